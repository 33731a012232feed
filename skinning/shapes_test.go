package skinning

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// addCapsule appends a closed, outward-facing capsule mesh from a to b of radius r.
func addCapsule(m *character.Mesh, a, b vecmath.Vec3, r float64) {
	const seg, capRings, bodyRings = 16, 6, 12
	axis := b.Sub(a).Normalize()
	// Any unit vector not parallel to the axis gives the frame.
	ref := vecmath.Vec3{0, 1, 0}
	if math.Abs(axis.Dot(ref)) > 0.9 {
		ref = vecmath.Vec3{1, 0, 0}
	}
	u := axis.Cross(ref).Normalize()
	w := axis.Cross(u)
	base := len(m.Positions)
	// Profile from the tip at a (t=-r) to the tip at b: (offset along axis, radius).
	type ring struct {
		center vecmath.Vec3
		rad    float64
	}
	var rings []ring
	for i := 1; i < capRings; i++ {
		th := math.Pi / 2 * float64(capRings-i) / float64(capRings)
		rings = append(rings, ring{a.Sub(axis.Scale(r * math.Sin(th))), r * math.Cos(th)})
	}
	for i := 0; i <= bodyRings; i++ {
		rings = append(rings, ring{a.Lerp(b, float64(i)/float64(bodyRings)), r})
	}
	for i := 1; i < capRings; i++ {
		th := math.Pi / 2 * float64(i) / float64(capRings)
		rings = append(rings, ring{b.Add(axis.Scale(r * math.Sin(th))), r * math.Cos(th)})
	}
	m.Positions = append(m.Positions, a.Sub(axis.Scale(r)))
	for _, rg := range rings {
		for s := 0; s < seg; s++ {
			phi := 2 * math.Pi * float64(s) / seg
			m.Positions = append(m.Positions, rg.center.Add(u.Scale(rg.rad*math.Cos(phi))).Add(w.Scale(rg.rad*math.Sin(phi))))
		}
	}
	m.Positions = append(m.Positions, b.Add(axis.Scale(r)))
	tipA, tipB := base, len(m.Positions)-1
	at := func(ri, s int) int { return base + 1 + ri*seg + (s+seg)%seg }
	var tris [][3]int
	for s := 0; s < seg; s++ {
		tris = append(tris, [3]int{tipA, at(0, s+1), at(0, s)})
		last := len(rings) - 1
		tris = append(tris, [3]int{tipB, at(last, s), at(last, s+1)})
	}
	for ri := 0; ri+1 < len(rings); ri++ {
		for s := 0; s < seg; s++ {
			tris = append(tris, [3]int{at(ri, s), at(ri, s+1), at(ri+1, s+1)}, [3]int{at(ri, s), at(ri+1, s+1), at(ri+1, s)})
		}
	}
	// Orient outward: flip if the signed volume is negative.
	c := a.Lerp(b, 0.5)
	vol := 0.0
	for _, t := range tris {
		p0, p1, p2 := m.Positions[t[0]].Sub(c), m.Positions[t[1]].Sub(c), m.Positions[t[2]].Sub(c)
		vol += p0.Dot(p1.Cross(p2))
	}
	for _, t := range tris {
		if vol < 0 {
			t[1], t[2] = t[2], t[1]
		}
		m.Triangles = append(m.Triangles, t)
	}
}

// skeleton builds a skeleton from joint positions and parents (identity rotations).
func skeleton(names []string, parents []int, pos []vecmath.Vec3) *character.Skeleton {
	s := &character.Skeleton{Names: names, Parents: parents}
	for _, p := range pos {
		s.BindWorld = append(s.BindWorld, vecmath.Translate4(p))
	}
	return s
}

// armCharacter is one capsule along x from 0 to 2 with joints at x = 0, 1 (the
// elbow) and 2.
func armCharacter() *character.Character {
	c := &character.Character{Name: "arm"}
	addCapsule(&c.Mesh, vecmath.Vec3{0, 0, 0}, vecmath.Vec3{2, 0, 0}, 0.2)
	c.Skeleton = skeleton([]string{"upper", "lower", "tip"}, []int{-1, 0, 1},
		[]vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}})
	return c
}

// handCharacter is a palm capsule with two parallel finger capsules that overlap it
// (separate, self-intersecting parts) and a narrow gap between them.
func handCharacter() *character.Character {
	c := &character.Character{Name: "hand"}
	addCapsule(&c.Mesh, vecmath.Vec3{0, 0, -0.3}, vecmath.Vec3{0, 0, 0.3}, 0.15)
	for _, z := range []float64{-0.15, 0.15} {
		addCapsule(&c.Mesh, vecmath.Vec3{0, 0, z}, vecmath.Vec3{1.2, 0, z}, 0.1)
	}
	c.Skeleton = skeleton(
		[]string{"palm", "a1", "a2", "a3", "b1", "b2", "b3"},
		[]int{-1, 0, 1, 2, 0, 4, 5},
		[]vecmath.Vec3{{0, 0, 0}, {0.2, 0, -0.15}, {0.7, 0, -0.15}, {1.2, 0, -0.15}, {0.2, 0, 0.15}, {0.7, 0, 0.15}, {1.2, 0, 0.15}})
	return c
}
