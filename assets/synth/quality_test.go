package synth

import (
	"math"

	"github.com/rigkit/rigkit/assets"
)

// edgeStats counts boundary edges (one triangle), non-manifold edges (more than
// two) and edges used twice in the same direction (inconsistent winding).
func edgeStats(m assets.Mesh) (boundary, nonManifold, misoriented int) {
	type key [2]int
	count := map[key]int{}
	dir := map[key]int{}
	for _, t := range m.Triangles {
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			k := key{min(a, b), max(a, b)}
			count[k]++
			if a < b {
				dir[k]++
			} else {
				dir[k]--
			}
		}
	}
	for k, n := range count {
		switch {
		case n == 1:
			boundary++
		case n > 2:
			nonManifold++
		case dir[k] != 0:
			misoriented++
		}
	}
	return
}

// signedVolume is positive for a closed mesh whose triangles face outwards.
func signedVolume(m assets.Mesh) float64 {
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		v += a.Dot(b.Cross(c)) / 6
	}
	return v
}

// flipFraction is the share of non-degenerate triangles whose normal turns more
// than 90° between bind and deformed positions.
func flipFraction(m assets.Mesh, deformed []assets.Vec3) float64 {
	flips, n := 0, 0
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		n0 := b.Sub(a).Cross(c.Sub(a))
		area := n0.Len()
		if area < 1e-12 {
			continue
		}
		a2, b2, c2 := deformed[t[0]], deformed[t[1]], deformed[t[2]]
		n1 := b2.Sub(a2).Cross(c2.Sub(a2))
		n++
		if n0.Dot(n1) < 0 {
			flips++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(flips) / float64(n)
}
