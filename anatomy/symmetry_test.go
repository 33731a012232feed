package anatomy

import (
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// TestMirrorPlanePairsLimbs: a blocky T-posed figure mirrors as well front to
// back as side to side; the plane found is the one between its sides, which pairs
// its hands and feet, whichever way it faces.
func TestMirrorPlanePairsLimbs(t *testing.T) {
	// Facing +X: x is front to back, z side to side.
	parts := [][2]vecmath.Vec3{
		{{-0.1, 0, 0.06}, {0.1, 0.9, 0.25}}, {{-0.1, 0, -0.25}, {0.1, 0.9, -0.06}}, // legs
		{{-0.12, 0.9, -0.3}, {0.12, 1.6, 0.3}}, // torso
		{{-0.05, 1.6, -0.06}, {0.05, 1.7, 0.06}},
		{{-0.1, 1.7, -0.12}, {0.1, 2, 0.12}},                                           // head
		{{-0.06, 1.45, 0.3}, {0.06, 1.55, 1}}, {{-0.06, 1.45, -1}, {0.06, 1.55, -0.3}}, // arms
	}
	ends := []vecmath.Vec3{{0, 2, 0}, {0, 1.5, 1}, {0, 1.5, -1}, {0, 0, 0.15}, {0, 0, -0.15}}
	swap := func(p vecmath.Vec3) vecmath.Vec3 { return vecmath.Vec3{p[2], p[1], p[0]} }
	for _, tc := range []struct {
		name   string
		facing func(vecmath.Vec3) vecmath.Vec3
		axis   string
	}{
		{"facing +X", func(p vecmath.Vec3) vecmath.Vec3 { return p }, "z"},
		{"facing +Z", swap, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var boxes [][2]vecmath.Vec3
			for _, b := range parts {
				lo, hi := tc.facing(b[0]), tc.facing(b[1])
				boxes = append(boxes, [2]vecmath.Vec3{
					{min(lo[0], hi[0]), lo[1], min(lo[2], hi[2])},
					{max(lo[0], hi[0]), hi[1], max(lo[2], hi[2])},
				})
			}
			var e []vecmath.Vec3
			for _, p := range ends {
				e = append(e, tc.facing(p))
			}
			m := synth.Boxes(boxes...)
			wn := geom.NewWindingNumber(&m)
			s := newShape(&m, wn, upFrame("y"))
			_, _, sym := findSymmetry(&m, wn.BVH(), upView{s: s, planeErr: -1}, e)
			if sym.Axis != tc.axis || !sym.Symmetric {
				t.Errorf("plane across %s (symmetric %v, error %.4f), want across %s", sym.Axis, sym.Symmetric, sym.Error, tc.axis)
			}
		})
	}
}

// TestMirrorPlaneTurnedWhenFarBetter: a box figure facing +X with its arms
// against its sides, whose nose alone keeps it from mirroring front to back,
// pairs no end point either way; the plane between its sides mirrors it exactly,
// and wins over the front-to-back plane, which mirrors it within clearlyMirrored.
func TestMirrorPlaneTurnedWhenFarBetter(t *testing.T) {
	m := synth.Boxes(
		[2]vecmath.Vec3{{-0.1, 0, 0.02}, {0.1, 0.9, 0.2}}, [2]vecmath.Vec3{{-0.1, 0, -0.2}, {0.1, 0.9, -0.02}}, // legs
		[2]vecmath.Vec3{{-0.12, 0.9, -0.22}, {0.12, 1.6, 0.22}},                                                            // torso
		[2]vecmath.Vec3{{-0.06, 0.8, 0.23}, {0.06, 1.55, 0.33}}, [2]vecmath.Vec3{{-0.06, 0.8, -0.33}, {0.06, 1.55, -0.23}}, // arms
		[2]vecmath.Vec3{{-0.05, 1.6, -0.06}, {0.05, 1.7, 0.06}},
		[2]vecmath.Vec3{{-0.1, 1.7, -0.12}, {0.1, 2, 0.12}},    // head
		[2]vecmath.Vec3{{0.1, 1.8, -0.02}, {0.13, 1.84, 0.02}}, // nose
	)
	ends := []vecmath.Vec3{{0, 2, 0}, {0, 0, 0.11}}
	wn := geom.NewWindingNumber(&m)
	s := newShape(&m, wn, upFrame("y"))
	_, _, sym := findSymmetry(&m, wn.BVH(), upView{s: s, planeErr: -1}, ends)
	if sym.Axis != "z" || !sym.Symmetric {
		t.Errorf("plane across %s (symmetric %v, error %.5f), want across z", sym.Axis, sym.Symmetric, sym.Error)
	}
}
