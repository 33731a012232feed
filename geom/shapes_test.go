package geom

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// uvSphere returns a closed, outward-oriented UV sphere.
func uvSphere(center vecmath.Vec3, r float64, rings, segs int) *character.Mesh {
	m := &character.Mesh{}
	m.Positions = append(m.Positions, center.Add(vecmath.Vec3{0, r, 0}))
	for i := 1; i < rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := 0; j < segs; j++ {
			ph := 2 * math.Pi * float64(j) / float64(segs)
			m.Positions = append(m.Positions, center.Add(vecmath.Vec3{
				r * math.Sin(th) * math.Cos(ph), r * math.Cos(th), r * math.Sin(th) * math.Sin(ph)}))
		}
	}
	m.Positions = append(m.Positions, center.Add(vecmath.Vec3{0, -r, 0}))
	south := len(m.Positions) - 1
	idx := func(i, j int) int { return 1 + (i-1)*segs + (j % segs) }
	for j := 0; j < segs; j++ {
		m.Triangles = append(m.Triangles, [3]int{0, idx(1, j+1), idx(1, j)})
		m.Triangles = append(m.Triangles, [3]int{south, idx(rings-1, j), idx(rings-1, j+1)})
	}
	for i := 1; i < rings-1; i++ {
		for j := 0; j < segs; j++ {
			a, b, c, d := idx(i, j), idx(i, j+1), idx(i+1, j), idx(i+1, j+1)
			m.Triangles = append(m.Triangles, [3]int{a, b, d}, [3]int{a, d, c})
		}
	}
	return m
}

// merge concatenates meshes (overlapping parts make a non-manifold union).
func merge(ms ...*character.Mesh) *character.Mesh {
	out := &character.Mesh{}
	for _, m := range ms {
		off := len(out.Positions)
		out.Positions = append(out.Positions, m.Positions...)
		for _, t := range m.Triangles {
			out.Triangles = append(out.Triangles, [3]int{t[0] + off, t[1] + off, t[2] + off})
		}
	}
	return out
}
