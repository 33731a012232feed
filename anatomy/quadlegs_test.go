package anatomy

import (
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// boxes returns one mesh of axis-aligned boxes given by their low and high corners
// (closed, outward-wound, parts overlapping where they touch).
func boxes(bs ...[2]vecmath.Vec3) *character.Mesh {
	m := &character.Mesh{}
	faces := [6][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	for _, b := range bs {
		base := len(m.Positions)
		for i := 0; i < 8; i++ {
			p := b[0]
			for a := 0; a < 3; a++ {
				if i>>a&1 == 1 {
					p[a] = b[1][a]
				}
			}
			m.Positions = append(m.Positions, p)
		}
		for _, f := range faces {
			m.Triangles = append(m.Triangles, [3]int{base + f[0], base + f[1], base + f[2]}, [3]int{base + f[0], base + f[2], base + f[3]})
		}
	}
	return m
}

func box(x0, y0, z0, x1, y1, z1 float64) [2]vecmath.Vec3 {
	return [2]vecmath.Vec3{{x0, y0, z0}, {x1, y1, z1}}
}

// TestFindQuadFeet: a box animal's feet are found whether its legs stand apart or
// are pressed together at the plane, front and hind told apart, left on +X; a
// biped's two feet side by side are not a quadruped's.
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
		{"biped", [][2]vecmath.Vec3{box(0.05, 0, -0.1, 0.2, 1, 0.1), box(-0.2, 0, -0.1, -0.05, 1, 0.1), box(-0.3, 1, -0.15, 0.3, 1.8, 0.15)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := boxes(tc.parts...)
			s := newShape(m, geom.NewWindingNumber(m), upFrame("y"))
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
