package rigmodel

import "github.com/rigkit/rigkit/assets"

// boxMesh returns closed axis-aligned boxes (lo, hi pairs) as one mesh.
func boxMesh(boxes ...[2]assets.Vec3) assets.Mesh {
	var m assets.Mesh
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
		// Outward-facing quads as two triangles each.
		quads := [][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
		for _, q := range quads {
			m.Triangles = append(m.Triangles, [3]int{base + q[0], base + q[1], base + q[2]}, [3]int{base + q[0], base + q[2], base + q[3]})
		}
	}
	return m
}

// creatureMesh is a crude quadruped: a body box and four leg boxes.
func creatureMesh() assets.Mesh {
	v := func(x, y, z float64) assets.Vec3 { return assets.Vec3{x, y, z} }
	return boxMesh(
		[2]assets.Vec3{v(-1, 0.8, -0.3), v(1, 1.3, 0.3)},
		[2]assets.Vec3{v(-0.9, 0, -0.3), v(-0.7, 0.85, -0.1)},
		[2]assets.Vec3{v(-0.9, 0, 0.1), v(-0.7, 0.85, 0.3)},
		[2]assets.Vec3{v(0.7, 0, -0.3), v(0.9, 0.85, -0.1)},
		[2]assets.Vec3{v(0.7, 0, 0.1), v(0.9, 0.85, 0.3)},
	)
}
