package stress

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/dataset"
)

// heldOut returns the held-out files of ../shared/data (beside the repository
// root) of one category, or skips the test when the data is not there.
func heldOut(t *testing.T, category string) []dataset.File {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (CI lays shared/ beside the clone): %v", dir, err)
	}
	all, err := dataset.Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var out []dataset.File
	for _, f := range all {
		if f.HeldOut() && f.Category == category {
			out = append(out, f)
		}
	}
	return out
}

// TestHeldOutQuadrupeds: every held-out quadruped's four legs are found and
// pressed until each pair touches (within 0.05% of the height), and no held-out
// biped whose joints do not name its upper legs is pressed as a quadruped (its
// `legs` variant stays unmade, so the humanoid stress table keeps its files).
func TestHeldOutQuadrupeds(t *testing.T) {
	quads := heldOut(t, "quadruped")
	if len(quads) == 0 {
		t.Fatal("no held-out quadrupeds")
	}
	worst, best, apart := math.Inf(-1), math.Inf(1), 0
	for _, f := range quads {
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q, err := findQuadLegs(c)
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		out, err := Apply(c, "legs")
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		for i, g := range pairGaps(q, out) {
			worst, best = math.Max(worst, g), math.Min(best, g)
			if g > 0 {
				apart++
			}
			if g > 0.0005 {
				t.Errorf("%s: pair %d of legs %.4f of the height apart after pressing", f.Path, i, g)
			}
		}
	}
	t.Logf("%d quadrupeds, pairs' gaps after pressing %.4f to %.4f of the height, %d pairs apart", len(quads), best, worst, apart)
	for _, f := range heldOut(t, "biped") {
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newBody(c); err == nil {
			continue
		}
		if _, err := Apply(c, "legs"); err == nil {
			t.Errorf("%s: a biped without named upper legs was pressed as a quadruped", f.Path)
		}
	}
}
