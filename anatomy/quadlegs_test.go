package anatomy

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

func box(x0, y0, z0, x1, y1, z1 float64) [2]vecmath.Vec3 {
	return [2]vecmath.Vec3{{x0, y0, z0}, {x1, y1, z1}}
}

// TestFindQuadFeet: a box animal's feet are found whether its legs stand apart or
// are pressed together at the plane, and under a long neck and tail, front and
// hind told apart, left on +X; a biped's two feet side by side are not a
// quadruped's.
func TestFindQuadFeet(t *testing.T) {
	body := box(-0.3, 0.5, -1, 0.3, 1, 1)
	legs := func(x0, x1 float64) [][2]vecmath.Vec3 {
		var out [][2]vecmath.Vec3
		for _, z := range []float64{0.7, -0.7} {
			out = append(out, box(x0, 0, z-0.1, x1, 0.55, z+0.1), box(-x1, 0, z-0.1, -x0, 0.55, z+0.1))
		}
		return out
	}
	tests := []struct {
		name  string
		parts [][2]vecmath.Vec3
		ok    bool
	}{
		{"legs apart", append(legs(0.1, 0.25), body), true},
		{"legs together", append(legs(-0.01, 0.15), body), true},
		// A sauropod: neck and tail make the body four times as long as the
		// legs stand apart.
		{"long neck and tail, legs together", append(legs(-0.01, 0.15), body, box(-0.1, 0.7, 1, 0.1, 0.9, 4), box(-0.1, 0.6, -4, 0.1, 0.8, -1)), true},
		{"biped", [][2]vecmath.Vec3{box(0.05, 0, -0.1, 0.2, 1, 0.1), box(-0.2, 0, -0.1, -0.05, 1, 0.1), box(-0.3, 1, -0.15, 0.3, 1.8, 0.15)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := synth.Boxes(tc.parts...)
			s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
			s.mid = 0
			feet, err := s.profile().findQuadFeet(s)
			if (err == nil) != tc.ok {
				t.Fatalf("findQuadFeet: %v, want ok %v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			for i, z := range []float64{0.7, -0.7} {
				for k, sd := range sides {
					f := feet[i][k]
					if f[2] < z-0.15 || f[2] > z+0.15 || float64(sd)*f[0] <= 0 {
						t.Errorf("foot [%d][%d] at %v, want z near %g on side %d", i, k, f, z, sd)
					}
				}
			}
		})
	}
}

// TestStandingDepth: a tail lying on the ground behind a biped, three times its
// height long, or a thin rod reaching back from its chest, leaves the depth a
// humanoid is judged by at the body's; a body long above its legs stays long.
func TestStandingDepth(t *testing.T) {
	legs := [][2]vecmath.Vec3{box(0.05, 0, -0.1, 0.2, 1, 0.1), box(-0.2, 0, -0.1, -0.05, 1, 0.1)}
	for _, tc := range []struct {
		name      string
		parts     [][2]vecmath.Vec3
		bounds    float64 // the bounds' depth
		want, tol float64
	}{
		{"biped", append(legs, box(-0.3, 1, -0.15, 0.3, 1.8, 0.15)), 0.3, 0.3, 1e-9},
		{"biped with a tail on the ground", append(legs, box(-0.3, 1, -0.15, 0.3, 1.8, 0.15), box(-0.05, 0, -5.4, 0.05, 0.2, -0.1)), 5.55, 0.3, 1e-9},
		{"long body on two legs", append(legs, box(-0.3, 1, -2, 0.3, 1.8, 2)), 4, 4, 1e-9},
		{"biped with a rod reaching back", append(legs, box(-0.3, 1, -0.15, 0.3, 1.8, 0.15), box(-0.0025, 1.4, -1.5, 0.0025, 1.405, -0.15)), 1.65, 0.3, 1e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := synth.Boxes(tc.parts...)
			s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
			if d := s.hi[2] - s.lo[2]; math.Abs(d-tc.bounds) > 1e-9 {
				t.Fatalf("bounds' depth %g, want %g", d, tc.bounds)
			}
			if got := s.standingDepth(); math.Abs(got-tc.want) > tc.tol {
				t.Errorf("standing depth %g, want %g", got, tc.want)
			}
		})
	}
}
