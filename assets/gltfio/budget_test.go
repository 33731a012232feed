package gltfio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets/format"
)

// TestDefaultBudgetLoadsData loads every real character and every bundled sample
// with the default budget and checks that each limit is at least 20× what the
// largest file needs, so that the defaults refuse hostile files, not real ones.
func TestDefaultBudgetLoadsData(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "samples", "*.glb"))
	data := filepath.Join("..", "..", "..", "shared", "data")
	if _, err := os.Stat(data); err == nil {
		filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".glb") {
				files = append(files, p)
			}
			return nil
		})
	} else {
		t.Logf("real data not found at %s; checking the samples only", data)
	}
	def := format.DefaultBudget()
	var most format.Budget
	var mostJSON, mostObjects, mostNodes int
	for _, f := range files {
		b := format.NewCounter(def)
		if _, _, err := loadFileBudget(f, b); err != nil {
			t.Errorf("%v", err)
			continue
		}
		u := b.Used()
		most.FileBytes = max(most.FileBytes, u.FileBytes)
		most.Instances = max(most.Instances, u.Instances)
		most.Primitives = max(most.Primitives, u.Primitives)
		most.Vertices = max(most.Vertices, u.Vertices)
		most.Triangles = max(most.Triangles, u.Triangles)
		most.AnimationKeys = max(most.AnimationKeys, u.AnimationKeys)
		most.RepairWork = max(most.RepairWork, u.RepairWork)
		raw, _ := os.ReadFile(f)
		if js, _, _, err := parseContainer(raw); err == nil {
			o, n := scanJSONCounts(js)
			mostJSON, mostObjects, mostNodes = max(mostJSON, len(js)), max(mostObjects, o), max(mostNodes, n)
		}
	}
	t.Logf("%d files; largest needs: %d file bytes, %d JSON bytes, %d JSON objects, %d nodes, %d instances, %d primitives, %d vertices, %d triangles, %d animation keys, %d repair steps",
		len(files), most.FileBytes, mostJSON, mostObjects, mostNodes, most.Instances, most.Primitives, most.Vertices, most.Triangles, most.AnimationKeys, most.RepairWork)
	checks := []struct {
		name        string
		need, limit int64
	}{
		{"FileBytes", most.FileBytes, def.FileBytes},
		{"JSONBytes", int64(mostJSON), def.JSONBytes},
		{"JSONObjects", int64(mostObjects), int64(def.JSONObjects)},
		{"Nodes", int64(mostNodes), int64(def.Nodes)},
		{"Instances", int64(most.Instances), int64(def.Instances)},
		{"Primitives", int64(most.Primitives), int64(def.Primitives)},
		{"Vertices", int64(most.Vertices), int64(def.Vertices)},
		{"Triangles", int64(most.Triangles), int64(def.Triangles)},
		{"AnimationKeys", int64(most.AnimationKeys), int64(def.AnimationKeys)},
		{"RepairWork", int64(most.RepairWork), int64(def.RepairWork)},
	}
	for _, c := range checks {
		if c.need*20 > c.limit {
			t.Errorf("default %s = %d is less than 20× the largest file's %d", c.name, c.limit, c.need)
		}
	}
}

// TestDefaultBudgetAllocBound pins the allocation bound of the default budget that
// docs/hardening.md states (under 2.5 GiB).
func TestDefaultBudgetAllocBound(t *testing.T) {
	if got := format.BudgetAllocBytes(format.DefaultBudget()); got > 5<<29 {
		t.Errorf("BudgetAllocBytes(DefaultBudget()) = %d MiB, docs/hardening.md states under 2.5 GiB", got>>20)
	} else {
		t.Logf("BudgetAllocBytes(DefaultBudget()) = %d MiB", got>>20)
	}
}
