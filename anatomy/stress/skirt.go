package stress

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
)

// Garment sizes, as shares of the height: the waistband sits this far above the
// hip joints, each ring measures the legs and hips within this band of its height,
// the cloth stands this far off them, and the hem flares this much wider than the
// legs it covers.
const (
	waistAbove = 0.08
	ringBand   = 0.03
	clothGap   = 0.01
	hemFlare   = 0.15
)

// Ring and segment counts of a garment's tube.
const (
	garmentRings    = 14
	garmentSegments = 32
)

// addGarment dresses a biped in a closed elliptic tube from the waist down: to the
// knees (a skirt) or to the ankles (a robe), hiding the crotch and the legs'
// parting. Each ring wraps the legs and hips at its height (arms and what the hands
// hold left out), never narrower than the ring above it (cloth hangs), and the hem
// flares. The tube is a separate closed part overlapping the body, as a game
// character's dress is; the cloth takes the skin weights of the nearest point of
// the body, as fused surfaces take theirs.
func addGarment(c *character.Character, toAnkles bool) error {
	b, err := newBody(c)
	if err != nil {
		return err
	}
	H := b.height()
	hipY, _ := b.meanHeight(anatomy.UpLeg) // newBody found both
	top := hipY + waistAbove*H
	hem := b.floor + 0.5*(hipY-b.floor)
	if k, ok := b.meanHeight(anatomy.Leg); ok {
		hem = k
	}
	if toAnkles {
		hem = b.floor + 0.04*H
		if a, ok := b.meanHeight(anatomy.Foot); ok {
			hem = math.Max(a, hem)
		}
	}
	if hem >= top-0.05*H {
		return fmt.Errorf("no room for a garment: the hem (%.2f of the height) is at the waist (%.2f)", (hem-b.floor)/H, (top-b.floor)/H)
	}
	rings, err := b.garmentRings(top, hem)
	if err != nil {
		return err
	}
	tube := tubeMesh(b, rings)
	skin, err := transferWeights(&c.Mesh, c.Skin, tube.Positions)
	if err != nil {
		return fmt.Errorf("garment: %w", err)
	}
	appendPart(c, tube, skin)
	return nil
}

// meanHeight is the mean height of the left and right artist joints of that part,
// when both are named.
func (b *body) meanHeight(part string) (float64, bool) {
	l, okL := b.joint[anatomy.Side(1, part)]
	r, okR := b.joint[anatomy.Side(-1, part)]
	if !okL || !okR {
		return 0, false
	}
	return (b.c.Skeleton.Position(l).Dot(b.up) + b.c.Skeleton.Position(r).Dot(b.up)) / 2, true
}

// ring is one level of a garment: its height, the forward coordinate of its
// centre (across, it centres on the mirror plane) and its half-widths across and
// front to back.
type ring struct {
	y, fwd, across, depth float64
}

// garmentRings measures the rings from the waist down to the hem: the vertices
// of neither arm within a band of each ring's height, widened by the cloth's gap,
// never narrower than the ring above, flaring toward the hem.
func (b *body) garmentRings(top, hem float64) ([]ring, error) {
	H := b.height()
	covered := b.bodyVertices()
	out := make([]ring, garmentRings)
	for k := range out {
		t := float64(k) / float64(garmentRings-1)
		y := top + t*(hem-top)
		lo, hi, across := math.Inf(1), math.Inf(-1), 0.0
		for _, v := range covered {
			p := b.c.Mesh.Positions[v]
			if math.Abs(p.Dot(b.up)-y) > ringBand*H {
				continue
			}
			f := p.Dot(b.fwd)
			lo, hi = math.Min(lo, f), math.Max(hi, f)
			across = math.Max(across, math.Abs(p.Dot(b.side)-b.mid))
		}
		switch {
		case hi < lo && k == 0:
			return nil, fmt.Errorf("no body at the waist (%.2f of the height) to wrap", (y-b.floor)/H)
		case hi < lo: // a gap between the parts (a mech's legs): the cloth hangs on
			out[k] = out[k-1]
			out[k].y = y
			continue
		}
		flare := 1 + hemFlare*t
		r := ring{y: y, fwd: (lo + hi) / 2, across: (across + clothGap*H) * flare, depth: ((hi-lo)/2 + clothGap*H) * flare}
		if k > 0 {
			r.across = math.Max(r.across, out[k-1].across)
			r.depth = math.Max(r.depth, out[k-1].depth)
		}
		out[k] = r
	}
	return out, nil
}

// bodyVertices are the vertices whose heaviest joint hangs from neither upper arm
// nor shoulder: the torso and legs a garment wraps.
func (b *body) bodyVertices() []int {
	arm := make([]bool, len(b.c.Skeleton.Names))
	for _, part := range []string{anatomy.Shoulder, anatomy.Arm} {
		for _, sd := range []int{1, -1} {
			if j, ok := b.joint[anatomy.Side(sd, part)]; ok {
				for k, in := range b.subtree(j) {
					arm[k] = arm[k] || in
				}
			}
		}
	}
	var out []int
	for v, d := range b.dominant {
		if d < 0 || !arm[d] {
			out = append(out, v)
		}
	}
	return out
}

// tubeMesh is the closed surface through the rings: quads between consecutive
// rings and a fan across each end, wound outward.
func tubeMesh(b *body, rings []ring) *character.Mesh {
	m := &character.Mesh{}
	for _, r := range rings {
		for s := 0; s < garmentSegments; s++ {
			th := 2 * math.Pi * float64(s) / garmentSegments
			p := b.up.Scale(r.y).Add(b.side.Scale(b.mid + r.across*math.Cos(th))).Add(b.fwd.Scale(r.fwd + r.depth*math.Sin(th)))
			m.Positions = append(m.Positions, p)
		}
	}
	at := func(k, s int) int { return k*garmentSegments + (s+garmentSegments)%garmentSegments }
	for k := 0; k+1 < len(rings); k++ {
		for s := 0; s < garmentSegments; s++ {
			m.Triangles = append(m.Triangles, [3]int{at(k, s), at(k+1, s), at(k+1, s+1)}, [3]int{at(k, s), at(k+1, s+1), at(k, s+1)})
		}
	}
	for _, end := range []struct{ k, dir int }{{0, 1}, {len(rings) - 1, -1}} {
		r := rings[end.k]
		centre := len(m.Positions)
		m.Positions = append(m.Positions, b.up.Scale(r.y).Add(b.side.Scale(b.mid)).Add(b.fwd.Scale(r.fwd)))
		for s := 0; s < garmentSegments; s++ {
			if end.dir > 0 {
				m.Triangles = append(m.Triangles, [3]int{centre, at(end.k, s), at(end.k, s+1)})
			} else {
				m.Triangles = append(m.Triangles, [3]int{centre, at(end.k, s+1), at(end.k, s)})
			}
		}
	}
	orientOutward(m)
	return m
}

// orientOutward flips every triangle when the surface's signed volume is
// negative, so the tube faces out whichever way the character's side and forward
// axes turn.
func orientOutward(m *character.Mesh) {
	vol := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		vol += a.Dot(b.Cross(c))
	}
	if vol < 0 {
		for i, t := range m.Triangles {
			m.Triangles[i] = [3]int{t[0], t[2], t[1]}
		}
	}
}

// appendPart adds a closed part and its skin to the character, with no material
// and zero texture coordinates.
func appendPart(c *character.Character, part *character.Mesh, skin *character.Skin) {
	m := &c.Mesh
	base, first := len(m.Positions), len(m.Triangles)
	m.Positions = append(m.Positions, part.Positions...)
	if len(m.UVs) > 0 {
		m.UVs = append(m.UVs, make([][2]float64, len(part.Positions))...)
	}
	m.Normals = nil
	for _, t := range part.Triangles {
		m.Triangles = append(m.Triangles, [3]int{t[0] + base, t[1] + base, t[2] + base})
	}
	if len(m.Groups) > 0 {
		m.Groups = append(m.Groups, character.TriangleGroup{Start: first, Count: len(part.Triangles), Material: -1})
	}
	c.Skin.Weights = append(c.Skin.Weights, skin.Weights...)
}
