package edit

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/khronos"
	"github.com/rigkit/rigkit/vecmath"
)

// TestReplayMoveReskinSave replays a joint fix as a script would: move a joint,
// re-skin the edited bones with geodesic, save, reload. The joint is where it was
// dropped, only vertices the moved bones reach changed weights, the scene (world
// bounds, materials) is kept and the file validates.
func TestReplayMoveReskinSave(t *testing.T) {
	in, path := fixture(t, 2000)
	r := newRig(t, in)
	moved := joint(t, r, "arm_l_lower")
	parent := in.Skeleton.Parents[moved]
	delta := vecmath.Vec3{0.01, 0.03, -0.02}
	want := in.Skeleton.Position(moved).Add(delta)
	out := filepath.Join(t.TempDir(), "fixed.glb")
	steps := []Step{
		{Op: "move", Joint: "arm_l_lower", Delta: &delta},
		{Op: "reskin", Method: "geodesic"},
		{Op: "save", Out: out},
	}
	if err := Replay(r, steps, Env{Save: SaveOptions{Input: path}}); err != nil {
		t.Fatal(err)
	}
	got, _, err := assets.Load(out, assets.Options{KeepScene: true})
	if err != nil {
		t.Fatal(err)
	}
	j := jointOf(t, got.Skeleton, "arm_l_lower")
	if d := got.Skeleton.Position(j).Dist(want); d > 1e-5 {
		t.Errorf("arm_l_lower at %v, dropped at %v (%.3g apart)", got.Skeleton.Position(j), want, d)
	}
	edited := map[string]bool{"arm_l_lower": true, in.Skeleton.Names[parent]: true}
	changed := changedOutsideReach(t, in, got, edited)
	if changed == 0 {
		t.Error("the re-skin changed no weights")
	}
	checkSceneKept(t, in, got)
	khronos.Check(t, out)
}

// changedOutsideReach counts the vertices whose weights differ between a and b, and
// fails for every one on which no edited joint weighs in either.
func changedOutsideReach(t *testing.T, a, b *character.Character, edited map[string]bool) int {
	t.Helper()
	changed := 0
	for v := range a.Skin.Weights {
		wa, wb := byName(a, v), byName(b, v)
		if sameWeights(wa, wb, 1e-6) {
			continue
		}
		changed++
		reach := false
		for n := range edited {
			reach = reach || wa[n] > 0 || wb[n] > 0
		}
		if !reach {
			t.Errorf("vertex %d changed (%v → %v) outside the moved bones' reach", v, wa, wb)
			return changed
		}
	}
	return changed
}

func byName(c *character.Character, v int) map[string]float64 {
	m := map[string]float64{}
	for _, in := range c.Skin.Weights[v] {
		m[c.Skeleton.Names[in.Joint]] += in.Weight
	}
	return m
}

func sameWeights(a, b map[string]float64, tol float64) bool {
	for n, w := range a {
		if math.Abs(w-b[n]) > tol {
			return false
		}
	}
	for n, w := range b {
		if math.Abs(w-a[n]) > tol {
			return false
		}
	}
	return true
}

// checkSceneKept compares world bounds and materials of input and output.
func checkSceneKept(t *testing.T, in, out *character.Character) {
	t.Helper()
	lo0, hi0 := in.Mesh.Bounds()
	lo1, hi1 := out.Mesh.Bounds()
	if lo0.Dist(lo1) > 1e-6 || hi0.Dist(hi1) > 1e-6 {
		t.Errorf("world bounds [%v %v], input's [%v %v]", lo1, hi1, lo0, hi0)
	}
	if len(in.Materials) != len(out.Materials) {
		t.Fatalf("%d materials, input had %d", len(out.Materials), len(in.Materials))
	}
	for i := range in.Materials {
		a, b := in.Materials[i], out.Materials[i]
		if a.Name != b.Name || a.BaseColor != b.BaseColor || a.Roughness != b.Roughness {
			t.Errorf("material %d is %+v, input's %+v", i, b, a)
		}
	}
}

func jointOf(t *testing.T, sk *character.Skeleton, name string) int {
	t.Helper()
	for j, n := range sk.Names {
		if n == name {
			return j
		}
	}
	t.Fatalf("no joint %q in %v", name, sk.Names)
	return -1
}
