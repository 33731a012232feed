package synth

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// edgeStats counts boundary edges (one triangle), non-manifold edges (more than
// two) and edges used twice in the same direction (inconsistent winding).
func edgeStats(m character.Mesh) (boundary, nonManifold, misoriented int) {
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
func signedVolume(m character.Mesh) float64 {
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		v += a.Dot(b.Cross(c)) / 6
	}
	return v
}

// flipFractions returns the share of non-degenerate triangles whose normal turns
// more than 90° between the bind and deformed positions: world compares with the
// bind normal itself (what rewards/ measures; on long chains it also counts
// triangles that merely rotate rigidly past 90°), local compares with the bind
// normal carried by the triangle's heaviest joint (true folds only).
func flipFractions(c *character.Character, deformed []vecmath.Vec3, posed []vecmath.Mat4) (world, local float64) {
	m := c.Mesh
	skinning := c.Skeleton.SkinningMatrices(posed)
	flipsW, flipsL, n := 0, 0, 0
	for _, t := range m.Triangles {
		a, b, cc := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		n0 := b.Sub(a).Cross(cc.Sub(a))
		if n0.Len() < 1e-12 {
			continue
		}
		a2, b2, c2 := deformed[t[0]], deformed[t[1]], deformed[t[2]]
		n1 := b2.Sub(a2).Cross(c2.Sub(a2))
		n++
		if n0.Dot(n1) < 0 {
			flipsW++
		}
		j, best := -1, 0.0
		for _, v := range t {
			for _, in := range c.Skin.Weights[v] {
				w := 0.0
				for _, u := range t {
					for _, in2 := range c.Skin.Weights[u] {
						if in2.Joint == in.Joint {
							w += in2.Weight
						}
					}
				}
				if w > best || (w == best && in.Joint < j) {
					j, best = in.Joint, w
				}
			}
		}
		if j >= 0 && skinning[j].Dir(n0).Dot(n1) < 0 {
			flipsL++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return float64(flipsW) / float64(n), float64(flipsL) / float64(n)
}
