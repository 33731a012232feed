package rewards

import (
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// capsule is one limb of a test creature's implicit body.
type capsule struct {
	a, b vecmath.Vec3
	r    float64
}

func (c capsule) sdf(p vecmath.Vec3) float64 { return vecmath.SegmentDist(p, c.a, c.b) - c.r }

// creature is a test character: capsules blended into one surface, a skeleton along
// them, smooth inverse-distance weights.
type creatureSpec struct {
	caps    []capsule
	names   []string
	parents []int
	joints  []vecmath.Vec3
}

// capsuleMan returns a humanoid spec; seed varies its proportions, tail adds a tail.
func capsuleMan(seed int64, tail bool) creatureSpec {
	rng := rand.New(rand.NewSource(seed))
	j := func(x, y, z float64) vecmath.Vec3 { return vecmath.Vec3{x, y, z} }
	arm := 0.25 + 0.1*rng.Float64()
	leg := 0.38 + 0.06*rng.Float64()
	s := creatureSpec{}
	add := func(name string, parent int, p vecmath.Vec3) int {
		s.names = append(s.names, name)
		s.parents = append(s.parents, parent)
		s.joints = append(s.joints, p)
		return len(s.names) - 1
	}
	hips := add("hips", -1, j(0, -0.05, 0))
	spine := add("spine", hips, j(0, 0.2, 0))
	chest := add("chest", spine, j(0, 0.45, 0))
	neck := add("neck", chest, j(0, 0.6, 0))
	head := add("head", neck, j(0, 0.72, 0))
	add("head_end", head, j(0, 0.9, 0))
	for _, side := range []float64{1, -1} {
		pre := "l_"
		if side < 0 {
			pre = "r_"
		}
		sh := add(pre+"shoulder", chest, j(side*0.22, 0.45, 0))
		el := add(pre+"elbow", sh, j(side*(0.22+arm), 0.45, 0))
		wr := add(pre+"wrist", el, j(side*(0.22+2*arm), 0.45, 0))
		add(pre+"hand_end", wr, j(side*(0.22+2*arm+0.08), 0.45, 0))
		hp := add(pre+"hip", hips, j(side*0.12, -0.12, 0))
		kn := add(pre+"knee", hp, j(side*0.13, -0.12-leg, 0))
		add(pre+"ankle", kn, j(side*0.14, -0.12-2*leg, 0))
		s.caps = append(s.caps,
			capsule{s.joints[sh], s.joints[el], 0.07}, capsule{s.joints[el], s.joints[wr], 0.06},
			capsule{s.joints[wr], s.joints[wr+1], 0.05},
			capsule{s.joints[hp], s.joints[kn], 0.09}, capsule{s.joints[kn], s.joints[kn+1], 0.07})
	}
	s.caps = append(s.caps, capsule{s.joints[hips], s.joints[chest], 0.2},
		capsule{s.joints[chest], s.joints[neck], 0.08}, capsule{s.joints[head], s.joints[head], 0.15})
	if tail {
		t1 := add("tail1", hips, j(0, -0.05, -0.25))
		t2 := add("tail2", t1, j(0, -0.15, -0.55))
		add("tail3", t2, j(0, -0.3, -0.8))
		s.caps = append(s.caps, capsule{s.joints[t1], s.joints[t2], 0.06}, capsule{s.joints[t2], s.joints[t2+1], 0.04})
	}
	return s
}

// sdf is the smooth union of the capsules (polynomial smooth minimum, k=0.04).
func (s creatureSpec) sdf(p vecmath.Vec3) float64 {
	d := math.Inf(1)
	const k = 0.04
	for _, c := range s.caps {
		e := c.sdf(p)
		if math.IsInf(d, 1) {
			d = e
			continue
		}
		h := math.Max(k-math.Abs(d-e), 0) / k
		d = math.Min(d, e) - h*h*k*0.25
	}
	return d
}

// character meshes the spec with naive surface nets on an n³ grid and skins it with
// smooth inverse-distance weights (4 influences).
func (s creatureSpec) character(n int) *character.Character {
	lo, hi := vecmath.Vec3{-1.2, -1.2, -1.2}, vecmath.Vec3{1.2, 1.2, 1.2}
	h := (hi[0] - lo[0]) / float64(n-1)
	at := func(i, j, k int) vecmath.Vec3 {
		return vecmath.Vec3{lo[0] + float64(i)*h, lo[1] + float64(j)*h, lo[2] + float64(k)*h}
	}
	f := make([]float64, n*n*n)
	idx := func(i, j, k int) int { return (i*n+j)*n + k }
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				f[idx(i, j, k)] = s.sdf(at(i, j, k))
			}
		}
	}
	m := character.Mesh{}
	cellVert := make(map[int]int)
	corner := [8][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}
	edgesOf := [12][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	vertex := func(i, j, k int) int {
		key := idx(i, j, k)
		if v, ok := cellVert[key]; ok {
			return v
		}
		var sum vecmath.Vec3
		cnt := 0
		for _, e := range edgesOf {
			a, b := corner[e[0]], corner[e[1]]
			fa, fb := f[idx(i+a[0], j+a[1], k+a[2])], f[idx(i+b[0], j+b[1], k+b[2])]
			if (fa < 0) != (fb < 0) {
				t := fa / (fa - fb)
				sum = sum.Add(at(i+a[0], j+a[1], k+a[2]).Lerp(at(i+b[0], j+b[1], k+b[2]), t))
				cnt++
			}
		}
		m.Positions = append(m.Positions, sum.Scale(1/float64(cnt)))
		cellVert[key] = len(m.Positions) - 1
		return len(m.Positions) - 1
	}
	quad := func(a, b, c, d int) {
		m.Triangles = append(m.Triangles, [3]int{a, b, c}, [3]int{a, c, d})
	}
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			for k := 1; k < n-1; k++ {
				f0 := f[idx(i, j, k)]
				// Edges from (i,j,k) in +x, +y, +z; the four cells around each.
				if f1 := f[idx(i+1, j, k)]; (f0 < 0) != (f1 < 0) {
					a, b, c, d := vertex(i, j-1, k-1), vertex(i, j, k-1), vertex(i, j, k), vertex(i, j-1, k)
					if f0 < 0 {
						quad(a, b, c, d)
					} else {
						quad(a, d, c, b)
					}
				}
				if f1 := f[idx(i, j+1, k)]; (f0 < 0) != (f1 < 0) {
					a, b, c, d := vertex(i-1, j, k-1), vertex(i-1, j, k), vertex(i, j, k), vertex(i, j, k-1)
					if f0 < 0 {
						quad(a, b, c, d)
					} else {
						quad(a, d, c, b)
					}
				}
				if f1 := f[idx(i, j, k+1)]; (f0 < 0) != (f1 < 0) {
					a, b, c, d := vertex(i-1, j-1, k), vertex(i, j-1, k), vertex(i, j, k), vertex(i-1, j, k)
					if f0 < 0 {
						quad(a, b, c, d)
					} else {
						quad(a, d, c, b)
					}
				}
			}
		}
	}
	// Orient every triangle outward by the field's gradient.
	for t, tr := range m.Triangles {
		a, b, c := m.Positions[tr[0]], m.Positions[tr[1]], m.Positions[tr[2]]
		nrm := b.Sub(a).Cross(c.Sub(a)).Normalize()
		ctr := a.Add(b).Add(c).Scale(1.0 / 3)
		if s.sdf(ctr.Add(nrm.Scale(h*0.3))) < s.sdf(ctr.Sub(nrm.Scale(h*0.3))) {
			m.Triangles[t] = [3]int{tr[0], tr[2], tr[1]}
		}
	}
	sk := &character.Skeleton{Names: s.names, Parents: s.parents}
	for _, p := range s.joints {
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(p))
	}
	c := &character.Character{Name: "capsule-man", Mesh: m, Skeleton: sk}
	c.Skin = smoothWeights(m.Positions, sk)
	return c
}

// smoothWeights is an artist-like stand-in: weights ∝ (d+0.02)^-6 over the distance d
// to each joint's bones, 4 heaviest kept.
func smoothWeights(positions []vecmath.Vec3, sk *character.Skeleton) *character.Skin {
	n := sk.NumJoints()
	pos := sk.Positions()
	ch := sk.Children()
	dense := make([][]float64, len(positions))
	for v, p := range positions {
		row := make([]float64, n)
		for j := 0; j < n; j++ {
			d := math.Inf(1)
			if len(ch[j]) == 0 {
				d = p.Dist(pos[j])
			}
			for _, c := range ch[j] {
				d = math.Min(d, vecmath.SegmentDist(p, pos[j], pos[c]))
			}
			row[j] = math.Pow(d+0.02, -6)
		}
		dense[v] = row
	}
	return character.SkinFromDense(dense, 4)
}
