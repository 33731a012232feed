package anatomy_test

import (
	"slices"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// blockyBody is a Minecraft-style figure, one closed box per part in pixels:
// head 8³ on a torso 8×12×4, arms 4×12×4 hanging flush against the torso's
// sides, legs 4×12×4 standing flush against each other. inflate > 0 adds a
// second box over each limb, that much larger on every side (clothing), which
// overlaps the other leg and the torso.
func blockyBody(inflate float64) *character.Mesh {
	m := &character.Mesh{}
	box := func(lo, hi vecmath.Vec3) { meshtest.AppendBox(m, lo, hi) }
	limb := func(lo, hi vecmath.Vec3) {
		box(lo, hi)
		if inflate > 0 {
			d := vecmath.Vec3{inflate, inflate, inflate}
			box(lo.Sub(d), hi.Add(d))
		}
	}
	box(vecmath.Vec3{-4, 24, -4}, vecmath.Vec3{4, 32, 4}) // head
	box(vecmath.Vec3{-4, 12, -2}, vecmath.Vec3{4, 24, 2}) // torso
	limb(vecmath.Vec3{4, 12, -2}, vecmath.Vec3{8, 24, 2})
	limb(vecmath.Vec3{-8, 12, -2}, vecmath.Vec3{-4, 24, 2})
	limb(vecmath.Vec3{0, 0, -2}, vecmath.Vec3{4, 12, 2})
	limb(vecmath.Vec3{-4, 0, -2}, vecmath.Vec3{0, 12, 2})
	return m
}

// TestBlockyBodyLimbs fits a figure of flush boxes, bare and with clothing boxes
// over its limbs: the voxels merge the legs and the arms into the torso, and the
// inner walls between the parts tell them apart. The legs run from the floor to
// the torso, the arms down their boxes from the shoulders.
func TestBlockyBodyLimbs(t *testing.T) {
	for _, inflate := range []float64{0, 0.5} {
		c := &character.Character{Mesh: *blockyBody(inflate)}
		sk, rep := fit(t, c, anatomy.Options{})
		if rep.Kind != anatomy.Humanoid {
			t.Fatalf("inflate %.1f: detected %s (%.2f) %v %v, want a humanoid", inflate, rep.Kind, rep.Confidence, rep.Suspect, rep.Warnings)
		}
		at := func(name string) vecmath.Vec3 {
			j := slices.Index(sk.Names, name)
			if j < 0 {
				t.Fatalf("inflate %.1f: no joint %s in %v", inflate, name, sk.Names)
			}
			return sk.Position(j)
		}
		for _, tc := range []struct {
			joint  string
			lo, hi vecmath.Vec3 // the box the joint must lie in, with a pixel of slack
		}{
			{"LeftUpLeg", vecmath.Vec3{0, 9, -2}, vecmath.Vec3{4, 14, 2}},
			{"RightUpLeg", vecmath.Vec3{-4, 9, -2}, vecmath.Vec3{0, 14, 2}},
			{"LeftFoot", vecmath.Vec3{0, 0, -2}, vecmath.Vec3{4, 3, 2}},
			{"LeftForeArm", vecmath.Vec3{4, 14, -2}, vecmath.Vec3{8, 21, 2}},
			{"RightHand", vecmath.Vec3{-8, 11, -2}, vecmath.Vec3{-4, 17, 2}},
			{"Head", vecmath.Vec3{-4, 23, -4}, vecmath.Vec3{4, 32, 4}},
		} {
			p := at(tc.joint)
			for a := 0; a < 3; a++ {
				if p[a] < tc.lo[a]-1 || p[a] > tc.hi[a]+1 {
					t.Errorf("inflate %.1f: %s at %v, outside %v..%v", inflate, tc.joint, p, tc.lo, tc.hi)
					break
				}
			}
		}
	}
}
