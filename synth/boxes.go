package synth

import (
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Boxes returns closed axis-aligned boxes (lo, hi corner pairs) as one mesh, with
// outward-facing triangles: the smallest shapes that still have an inside, for
// tests of skeleton extraction, skinning and rigging policy.
func Boxes(boxes ...[2]vecmath.Vec3) character.Mesh {
	var m character.Mesh
	for _, b := range boxes {
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
		quads := [][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
		for _, q := range quads {
			m.Triangles = append(m.Triangles, [3]int{base + q[0], base + q[1], base + q[2]}, [3]int{base + q[0], base + q[2], base + q[3]})
		}
	}
	return m
}

// BoxQuadruped is a crude quadruped made of Boxes: a body box and four leg boxes.
func BoxQuadruped() character.Mesh {
	v := func(x, y, z float64) vecmath.Vec3 { return vecmath.Vec3{x, y, z} }
	return Boxes(
		[2]vecmath.Vec3{v(-1, 0.8, -0.3), v(1, 1.3, 0.3)},
		[2]vecmath.Vec3{v(-0.9, 0, -0.3), v(-0.7, 0.85, -0.1)},
		[2]vecmath.Vec3{v(-0.9, 0, 0.1), v(-0.7, 0.85, 0.3)},
		[2]vecmath.Vec3{v(0.7, 0, -0.3), v(0.9, 0.85, -0.1)},
		[2]vecmath.Vec3{v(0.7, 0, 0.1), v(0.9, 0.85, 0.3)},
	)
}
