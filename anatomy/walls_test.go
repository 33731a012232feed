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

// stockyBody is a blocky monster with its legs apart: a torso 16×16×6 between
// arms 5×14×6 hanging flush against its sides, legs 5×10×6 a pixel apart, a
// head 8³. Its arms reach out to 0.38 of its height, and it stands only 1.3
// times as tall as it is wide (the Minetest dungeon master).
func stockyBody() *character.Mesh {
	m := &character.Mesh{}
	box := func(lo, hi vecmath.Vec3) { meshtest.AppendBox(m, lo, hi) }
	box(vecmath.Vec3{-4, 26, -4}, vecmath.Vec3{4, 34, 4})   // head
	box(vecmath.Vec3{-8, 10, -3}, vecmath.Vec3{8, 26, 3})   // torso
	box(vecmath.Vec3{8, 12, -3}, vecmath.Vec3{13, 26, 3})   // left arm
	box(vecmath.Vec3{-13, 12, -3}, vecmath.Vec3{-8, 26, 3}) // right arm
	box(vecmath.Vec3{1, 0, -3}, vecmath.Vec3{6, 10, 3})     // left leg
	box(vecmath.Vec3{-6, 0, -3}, vecmath.Vec3{-1, 10, 3})   // right leg
	return m
}

// TestBlockyBodyLimbs fits figures of flush boxes, bare and with clothing boxes
// over their limbs: the voxels merge the arms (and touching legs) into the
// torso, and the inner walls between the parts tell them apart. The legs run
// from the floor to the torso, the arms down their boxes from the shoulders.
func TestBlockyBodyLimbs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mesh   *character.Mesh
		joints map[string]box
	}{
		{"flush", blockyBody(0), blockyJoints},
		{"flush, clothed", blockyBody(0.5), blockyJoints},
		{"stocky, legs apart", stockyBody(), map[string]box{
			"LeftUpLeg":   {vecmath.Vec3{0, 7, -3}, vecmath.Vec3{7, 16, 3}},
			"LeftFoot":    {vecmath.Vec3{1, 0, -3}, vecmath.Vec3{6, 3, 3}},
			"LeftForeArm": {vecmath.Vec3{8, 12, -3}, vecmath.Vec3{13, 26, 3}},
			"RightHand":   {vecmath.Vec3{-13, 10, -3}, vecmath.Vec3{-8, 22, 3}},
			"Head":        {vecmath.Vec3{-4, 25, -4}, vecmath.Vec3{4, 34, 4}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sk, rep := fit(t, &character.Character{Mesh: *tc.mesh}, anatomy.Options{})
			if rep.Kind != anatomy.Humanoid {
				t.Fatalf("detected %s (%.2f) %v %v, want a humanoid", rep.Kind, rep.Confidence, rep.Suspect, rep.Warnings)
			}
			for name, b := range tc.joints {
				j := slices.Index(sk.Names, name)
				if j < 0 {
					t.Fatalf("no joint %s in %v", name, sk.Names)
				}
				p := sk.Position(j)
				for a := 0; a < 3; a++ {
					if p[a] < b.lo[a]-1 || p[a] > b.hi[a]+1 {
						t.Errorf("%s at %v, outside %v..%v", name, p, b.lo, b.hi)
						break
					}
				}
			}
		})
	}
}

// box is where a joint must lie, with a pixel of slack.
type box struct{ lo, hi vecmath.Vec3 }

// blockyJoints are where blockyBody's joints must lie.
var blockyJoints = map[string]box{
	"LeftUpLeg":   {vecmath.Vec3{0, 9, -2}, vecmath.Vec3{4, 14, 2}},
	"RightUpLeg":  {vecmath.Vec3{-4, 9, -2}, vecmath.Vec3{0, 14, 2}},
	"LeftFoot":    {vecmath.Vec3{0, 0, -2}, vecmath.Vec3{4, 3, 2}},
	"LeftForeArm": {vecmath.Vec3{4, 14, -2}, vecmath.Vec3{8, 21, 2}},
	"RightHand":   {vecmath.Vec3{-8, 11, -2}, vecmath.Vec3{-4, 17, 2}},
	"Head":        {vecmath.Vec3{-4, 23, -4}, vecmath.Vec3{4, 32, 4}},
}
