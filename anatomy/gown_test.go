package anatomy_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/anatomy/stress"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// TestGownToTheFloor: a box figure in a gown to the floor, no legs or feet
// showing, is a humanoid (it was kind Other), its legs under the gown from the
// floor to hips between the hem and the shoulders.
func TestGownToTheFloor(t *testing.T) {
	c := &character.Character{Mesh: synth.Boxes(
		[2]vecmath.Vec3{{-0.24, 0, -0.16}, {0.24, 0.95, 0.16}},  // gown
		[2]vecmath.Vec3{{-0.17, 0.95, -0.1}, {0.17, 1.45, 0.1}}, // torso
		[2]vecmath.Vec3{{0.17, 1.36, -0.04}, {0.8, 1.44, 0.04}}, // arms
		[2]vecmath.Vec3{{-0.8, 1.36, -0.04}, {-0.17, 1.44, 0.04}},
		[2]vecmath.Vec3{{-0.05, 1.45, -0.05}, {0.05, 1.52, 0.05}}, // neck
		[2]vecmath.Vec3{{-0.1, 1.52, -0.11}, {0.1, 1.75, 0.11}},   // head
	)}
	sk, rep := fit(t, c, anatomy.Options{Up: "y"})
	if rep.Kind != anatomy.Humanoid || rep.Status != "ok" {
		t.Fatalf("detected %s (%.2f), status %s %v, want a humanoid, ok", rep.Kind, rep.Confidence, rep.Status, rep.Suspect)
	}
	at := map[string]vecmath.Vec3{}
	for j, n := range sk.Names {
		at[n] = sk.BindWorld[j].Translation()
	}
	if y := at["Hips"][1]; y < 0.75 || y > 1.1 {
		t.Errorf("hips at %.2f, want between 0.75 and 1.1 (the hem is at 0, the shoulders at 1.4)", y)
	}
	for _, foot := range []string{"LeftFoot", "RightFoot"} {
		if p, ok := at[foot]; !ok || p[1] > 0.2 {
			t.Errorf("%s at %v, want near the floor", foot, p)
		}
	}
	if l, r := at["LeftHand"], at["RightHand"]; l[0] < 0.5 || r[0] > -0.5 {
		t.Errorf("hands at %v and %v, want out along the arms", l, r)
	}
}

// TestFeetJustBelowTheHem: a box figure in a gown whose hem stops 2.5% of its
// height above the floor, the feet showing apart under it, is a humanoid with
// its legs under the gown: the feet below the 2% of the height where the
// search for a crotch starts still show the hem.
func TestFeetJustBelowTheHem(t *testing.T) {
	c := &character.Character{Mesh: synth.Boxes(
		[2]vecmath.Vec3{{0.06, 0, -0.05}, {0.16, 0.045, 0.1}}, // feet
		[2]vecmath.Vec3{{-0.16, 0, -0.05}, {-0.06, 0.045, 0.1}},
		[2]vecmath.Vec3{{-0.24, 0.044, -0.16}, {0.24, 0.95, 0.16}}, // gown
		[2]vecmath.Vec3{{-0.17, 0.95, -0.1}, {0.17, 1.45, 0.1}},    // torso
		[2]vecmath.Vec3{{0.17, 1.36, -0.04}, {0.36, 1.44, 0.04}},   // shoulders
		[2]vecmath.Vec3{{-0.36, 1.36, -0.04}, {-0.17, 1.44, 0.04}},
		[2]vecmath.Vec3{{0.29, 0.8, -0.04}, {0.36, 1.36, 0.04}}, // arms, hanging
		[2]vecmath.Vec3{{-0.36, 0.8, -0.04}, {-0.29, 1.36, 0.04}},
		[2]vecmath.Vec3{{-0.05, 1.45, -0.05}, {0.05, 1.52, 0.05}}, // neck
		[2]vecmath.Vec3{{-0.1, 1.52, -0.11}, {0.1, 1.75, 0.11}},   // head
	)}
	sk, rep := fit(t, c, anatomy.Options{Up: "y"})
	if rep.Kind != anatomy.Humanoid {
		t.Fatalf("detected %s (%.2f), status %s %v, want a humanoid", rep.Kind, rep.Confidence, rep.Status, rep.Suspect)
	}
	for j, n := range sk.Names {
		if p := sk.BindWorld[j].Translation(); (n == "LeftFoot" && p[0] < 0.03) || (n == "RightFoot" && p[0] > -0.03) {
			t.Errorf("%s at %v, want over its foot", n, p)
		}
	}
}

// TestPeopleOfRealData: two realistic people of ../shared/data that came out as
// kind Other under a stress variant are humanoids with their names in place:
// Quaternius' cowboy, who faces +X, with his arms lowered against his sides
// (the front-to-back plane mirrored him within clearlyMirrored, and the
// proposal's routes to what it took for hands left the body below the hips),
// and Quaternius' woman in a suit fused into one surface in a gown to the floor,
// her feet barely showing below its hem. The cowboy with his legs pressed
// together too shows no limb in any slice: kind Other, but suspect
// (standingFigure), not ok. Skipped without the data.
func TestPeopleOfRealData(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (CI lays shared/ beside the clone): %v", dir, err)
	}
	for _, tc := range []struct {
		file    string
		variant stress.Variant
		suspect bool // a suspect rig of kind Other is wanted, not a humanoid
	}{
		{"quaternius-fbx/Cowboy_Pack__Cowboy.glb", "armsdown", false},
		{"quaternius-showcase/women__Suit.glb", "fused+robe", false},
		{"quaternius-fbx/Cowboy_Pack__Cowboy.glb", "legs+armsdown", true},
	} {
		t.Run(string(tc.variant), func(t *testing.T) {
			c, _, err := assets.Load(filepath.Join(dir, tc.file), assets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c, err = stress.Apply(c, tc.variant); err != nil {
				t.Fatal(err)
			}
			sk, rep := fit(t, c, anatomy.Options{})
			if tc.suspect {
				if rep.Kind != anatomy.Other || rep.Status != "suspect" {
					t.Errorf("%s: detected %s (%.2f), status %s, want kind other, suspect", tc.file, rep.Kind, rep.Confidence, rep.Status)
				}
				return
			}
			if rep.Kind != anatomy.Humanoid {
				t.Fatalf("%s: detected %s (%.2f), status %s %v, want a humanoid", tc.file, rep.Kind, rep.Confidence, rep.Status, rep.Suspect)
			}
			H := height(&c.Mesh, 1)
			hits, total, missed := anatomy.NameAccuracy(sk, c.Skeleton, 0.1*H)
			if total == 0 || float64(hits) < 0.85*float64(total) {
				t.Errorf("%s: names %d/%d, missed %v", tc.file, hits, total, missed)
			}
		})
	}
}
