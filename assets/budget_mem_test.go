package assets_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets/format"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/hostile"
)

// TestLoadMemoryWithinBudget measures the heap a load allocates (an upper bound on
// how far its peak heap grows) for a file exactly at a budget and for hostile files
// over it, and checks both against format.BudgetAllocBytes, the multiple of the
// budget docs/hardening.md states.
func TestLoadMemoryWithinBudget(t *testing.T) {
	dir := t.TempDir()
	cases, err := hostile.Write(filepath.Join(dir, "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	atBudget, err := hostile.Mesh(dir, "at-budget.glb", 100_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := hostile.EmptyNodes(dir, "nodes-at-budget.gltf", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(atBudget)
	if err != nil {
		t.Fatal(err)
	}
	// at-budget.glb needs exactly these vertices and triangles (2 instances of 100k
	// vertices and 99,998 strip triangles), nodes-at-budget.gltf these JSON objects
	// and nodes; the hostile files exceed one limit or more.
	b := format.Budget{FileBytes: st.Size(), Vertices: 200_000, Triangles: 199_996, Instances: 5000, Primitives: 5000,
		JSONObjects: 100_003, Nodes: 100_000, JSONBytes: 1 << 20}
	bound := format.BudgetAllocBytes(b)
	files := []string{atBudget, nodes}
	for _, c := range cases {
		if c.Want != "" {
			files = append(files, c.Path)
		}
	}
	for i, f := range files {
		runtime.GC()
		before := allocated()
		_, _, err := assets.Load(f, assets.Options{Budget: b, AllowOrphans: true})
		alloc := int64(allocated() - before)
		t.Logf("%s: %.1f MiB allocated (bound %.1f MiB), err: %v", filepath.Base(f), float64(alloc)/(1<<20), float64(bound)/(1<<20), err)
		if format.IsBudgetError(err) != (i >= 2 && err != nil && !strings.Contains(err.Error(), "regular") &&
			!strings.Contains(err.Error(), "escapes") && !strings.Contains(err.Error(), "invalid glTF")) {
			t.Errorf("%s: unexpected error %v", f, err)
		}
		if alloc > bound {
			t.Errorf("%s: allocated %d bytes, over the stated bound %d for %+v", f, alloc, bound, b)
		}
	}
}
