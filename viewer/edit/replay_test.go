package edit

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/khronos"
)

// TestReplayMoveReskinSave replays a joint fix as a script would: move a joint,
// re-skin the edited bones with geodesic, save, reload. The joint is where it was
// dropped, only vertices the moved bones reach changed weights, the scene (world
// bounds, materials) is kept and the file validates. It runs on a synthetic biped
// and, when ../shared/data is there, on an artist's rig under a scaled armature.
func TestReplayMoveReskinSave(t *testing.T) {
	for _, tc := range []struct {
		name, joint string
		load        func(t *testing.T) (*character.Character, string)
	}{
		{"synthetic biped", "arm_l_lower", func(t *testing.T) (*character.Character, string) { return fixture(t, 2000) }},
		{"men__Casual2", "LowerArm.L", func(t *testing.T) (*character.Character, string) {
			return realFile(t, "quaternius-showcase/men__Casual2.glb")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, path := tc.load(t)
			replayFix(t, in, path, tc.joint)
		})
	}
}

// replayFix moves joint name, re-skins, saves, reloads and checks the output.
func replayFix(t *testing.T, in *character.Character, path, name string) {
	r := newRig(t, in)
	moved := joint(t, r, name)
	lo, hi := in.Mesh.Bounds()
	d := hi.Sub(lo).Scale(0.02)
	delta := Vec3(d)
	want := in.Skeleton.Position(moved).Add(d)
	out := filepath.Join(t.TempDir(), "fixed.glb")
	steps := []Step{
		{Op: "move", Joint: name, Delta: &delta},
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
	j := jointOf(t, got.Skeleton, name)
	if d := got.Skeleton.Position(j).Dist(want); d > 1e-5*hi.Sub(lo).Len() {
		t.Errorf("%s at %v, dropped at %v (%.3g apart)", name, got.Skeleton.Position(j), want, d)
	}
	edited := map[string]bool{name: true}
	if p := in.Skeleton.Parents[moved]; p >= 0 {
		edited[in.Skeleton.Names[p]] = true
	}
	if changedOutsideReach(t, in, got, edited) == 0 {
		t.Error("the re-skin changed no weights")
	}
	checkSceneKept(t, in, got)
	khronos.Check(t, out)
}

// realFile copies a file of ../shared/data into a temporary folder (skipping the
// test without the data) and loads it with its scene.
func realFile(t *testing.T, rel string) (*character.Character, string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", rel)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("real data not found: %v", err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := assets.Load(path, assets.Options{KeepScene: true, AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	return c, path
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
