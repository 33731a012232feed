package anatomy

import (
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// AppendBox adds to m a closed axis-aligned box from lo to hi, its faces
// wound outward: the part of the tests' blocky bodies and hand models.
func AppendBox(m *character.Mesh, lo, hi vecmath.Vec3) {
	base := len(m.Positions)
	for i := 0; i < 8; i++ {
		p := lo
		if i&1 != 0 {
			p[0] = hi[0]
		}
		if i&2 != 0 {
			p[1] = hi[1]
		}
		if i&4 != 0 {
			p[2] = hi[2]
		}
		m.Positions = append(m.Positions, p)
	}
	for _, f := range [][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}} {
		m.Triangles = append(m.Triangles,
			[3]int{base + f[0], base + f[1], base + f[2]}, [3]int{base + f[0], base + f[2], base + f[3]})
	}
}
