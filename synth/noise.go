package synth

import (
	"math"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// addNoise damages c the way real generated meshes are damaged. Each defect is
// chosen with probability 0.6 (at least one always): small disconnected pieces
// (eyes on the head, an accessory box on a random bone, each skinned rigidly to the
// joint owning the surface it sits on), holes, non-manifold fins, flipped
// triangles and uneven triangle sizes. New vertices inherit their corners' weights.
func addNoise(c *character.Character, rng *rand.Rand) {
	var picks [5]bool
	any := false
	for i := range picks {
		picks[i] = rng.Float64() < 0.6
		any = any || picks[i]
	}
	if !any {
		picks[rng.Intn(len(picks))] = true
	}
	if picks[0] {
		addPieces(c, rng)
	}
	if picks[1] {
		for n := 1 + rng.Intn(3); n > 0; n-- {
			punchHole(c, rng)
		}
	}
	if picks[2] {
		for n := 1 + rng.Intn(4); n > 0; n-- {
			addFin(c, rng)
		}
	}
	if picks[3] {
		for n := 1 + rng.Intn(3); n > 0; n-- {
			flipPatch(c, rng)
		}
	}
	if picks[4] {
		for n := 1 + rng.Intn(3); n > 0; n-- {
			refinePatch(c, rng)
		}
	}
}

// patch returns the triangles within rings edge-rings of a random vertex.
func patch(m *character.Mesh, rng *rand.Rand, rings int) map[int]bool {
	seed := m.Triangles[rng.Intn(len(m.Triangles))][0]
	verts := map[int]bool{seed: true}
	tris := map[int]bool{}
	for r := 0; r < rings; r++ {
		for t, tri := range m.Triangles {
			if verts[tri[0]] || verts[tri[1]] || verts[tri[2]] {
				tris[t] = true
			}
		}
		for t := range tris {
			for _, v := range m.Triangles[t] {
				verts[v] = true
			}
		}
	}
	return tris
}

func punchHole(c *character.Character, rng *rand.Rand) {
	drop := patch(&c.Mesh, rng, 1+rng.Intn(2))
	kept := c.Mesh.Triangles[:0]
	for t, tri := range c.Mesh.Triangles {
		if !drop[t] {
			kept = append(kept, tri)
		}
	}
	c.Mesh.Triangles = kept
}

func flipPatch(c *character.Character, rng *rand.Rand) {
	for t := range patch(&c.Mesh, rng, 1+rng.Intn(2)) {
		tri := &c.Mesh.Triangles[t]
		tri[1], tri[2] = tri[2], tri[1]
	}
}

// addVertex appends a vertex with weights averaged from src.
func addVertex(c *character.Character, p vecmath.Vec3, src ...int) int {
	var infl []character.Influence
	for _, v := range src {
		for _, in := range c.Skin.Weights[v] {
			infl = append(infl, character.Influence{Joint: in.Joint, Weight: in.Weight / float64(len(src))})
		}
	}
	k := character.Skin{Weights: [][]character.Influence{infl}}
	k.Prune(character.MaxInfluencesWritten)
	c.Mesh.Positions = append(c.Mesh.Positions, p)
	c.Skin.Weights = append(c.Skin.Weights, k.Weights[0])
	return len(c.Mesh.Positions) - 1
}

// addFin glues a third triangle onto an edge, making it non-manifold.
func addFin(c *character.Character, rng *rand.Rand) {
	m := &c.Mesh
	tri := m.Triangles[rng.Intn(len(m.Triangles))]
	a, b, o := m.Positions[tri[0]], m.Positions[tri[1]], m.Positions[tri[2]]
	n := b.Sub(a).Cross(o.Sub(a)).Normalize()
	l := a.Dist(b)
	tip := addVertex(c, a.Lerp(b, 0.5).Add(n.Scale(l*(0.5+rng.Float64()))), tri[0], tri[1])
	m.Triangles = append(m.Triangles, [3]int{tri[0], tri[1], tip})
}

// refinePatch splits a patch's triangles at their centroids, twice, leaving small
// slivers beside large neighbours.
func refinePatch(c *character.Character, rng *rand.Rand) {
	tris := patch(&c.Mesh, rng, 1+rng.Intn(2))
	for level := 0; level < 2; level++ {
		next := map[int]bool{}
		for _, t := range sortedKeys(tris) {
			tri := c.Mesh.Triangles[t]
			p := c.Mesh.Positions
			ctr := p[tri[0]].Add(p[tri[1]]).Add(p[tri[2]]).Scale(1.0 / 3)
			v := addVertex(c, ctr, tri[0], tri[1], tri[2])
			c.Mesh.Triangles[t] = [3]int{tri[0], tri[1], v}
			c.Mesh.Triangles = append(c.Mesh.Triangles, [3]int{tri[1], tri[2], v}, [3]int{tri[2], tri[0], v})
			next[t] = true
			next[len(c.Mesh.Triangles)-1] = true
			next[len(c.Mesh.Triangles)-2] = true
		}
		tris = next
	}
}

func sortedKeys(m map[int]bool) []int {
	k := make([]int, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Ints(k)
	return k
}

// addPieces adds two eyes on the head (or the highest joint) and a box on a random
// joint, each a separate closed piece skinned rigidly to the joint that owns the
// surface where it sits.
func addPieces(c *character.Character, rng *rand.Rand) {
	sk := c.Skeleton
	m := &c.Mesh
	lo, hi := m.Bounds()
	size := hi.Sub(lo).Len()
	head := -1
	for j, n := range sk.Names {
		if n == "head" || n == "head_1" {
			head = j
			break
		}
	}
	owner := func(v int) int { return c.Skin.Weights[v][0].Joint }
	if head >= 0 {
		// The most forward vertex the head owns carries the eyes.
		best, bestZ := -1, math.Inf(-1)
		for v, p := range m.Positions {
			if owner(v) == head && p[2] > bestZ {
				best, bestZ = v, p[2]
			}
		}
		if best >= 0 {
			r := size * 0.012 * (1 + rng.Float64())
			for _, sx := range []float64{-1, 1} {
				ctr := m.Positions[best].Add(vecmath.Vec3{sx * r * 2.2, r * 1.5, -r * 0.3})
				addShape(c, sphereMesh(ctr, r, 6, 8), head)
			}
		}
	}
	v := rng.Intn(len(m.Positions))
	r := size * 0.02 * (1 + rng.Float64())
	n := m.ComputeNormals()[v]
	addShape(c, boxMesh(m.Positions[v].Add(n.Scale(r*1.5)), r), owner(v))
}

// addShape appends a closed piece skinned fully to joint j.
func addShape(c *character.Character, piece character.Mesh, j int) {
	base := len(c.Mesh.Positions)
	for _, p := range piece.Positions {
		c.Mesh.Positions = append(c.Mesh.Positions, p)
		c.Skin.Weights = append(c.Skin.Weights, []character.Influence{{Joint: j, Weight: 1}})
	}
	for _, t := range piece.Triangles {
		c.Mesh.Triangles = append(c.Mesh.Triangles, [3]int{t[0] + base, t[1] + base, t[2] + base})
	}
}

// sphereMesh is a closed latitude-longitude sphere.
func sphereMesh(ctr vecmath.Vec3, r float64, rings, segs int) character.Mesh {
	var m character.Mesh
	m.Positions = append(m.Positions, ctr.Add(vecmath.Vec3{0, r, 0}))
	for i := 1; i < rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := 0; j < segs; j++ {
			ph := 2 * math.Pi * float64(j) / float64(segs)
			m.Positions = append(m.Positions, ctr.Add(vecmath.Vec3{r * math.Sin(th) * math.Cos(ph), r * math.Cos(th), -r * math.Sin(th) * math.Sin(ph)}))
		}
	}
	m.Positions = append(m.Positions, ctr.Add(vecmath.Vec3{0, -r, 0}))
	south := len(m.Positions) - 1
	ring := func(i, j int) int { return 1 + (i-1)*segs + (j % segs) }
	for j := 0; j < segs; j++ {
		m.Triangles = append(m.Triangles, [3]int{0, ring(1, j), ring(1, j+1)})
		m.Triangles = append(m.Triangles, [3]int{south, ring(rings-1, j+1), ring(rings-1, j)})
		for i := 1; i < rings-1; i++ {
			a, b, cc, d := ring(i, j), ring(i, j+1), ring(i+1, j), ring(i+1, j+1)
			m.Triangles = append(m.Triangles, [3]int{a, cc, d}, [3]int{a, d, b})
		}
	}
	return m
}

// boxMesh is a closed axis-aligned cube of half-size r.
func boxMesh(ctr vecmath.Vec3, r float64) character.Mesh {
	var m character.Mesh
	for c := 0; c < 8; c++ {
		m.Positions = append(m.Positions, ctr.Add(vecmath.Vec3{r * float64(2*(c&1)-1), r * float64(2*(c>>1&1)-1), r * float64(2*(c>>2&1)-1)}))
	}
	for _, q := range cubeFaces {
		m.Triangles = append(m.Triangles, [3]int{q[0], q[1], q[2]}, [3]int{q[0], q[2], q[3]})
	}
	return m
}
