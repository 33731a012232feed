package geom

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// referenceEdges is the plain definition of NewEdgeGraph's edges without welding:
// every side of an in-range triangle, lower vertex first, once, sorted; and the
// number of them that one side alone uses.
func referenceEdges(m *character.Mesh) (edges [][2]int, open int) {
	uses := map[[2]int]int{}
	nv := len(m.Positions)
	for _, t := range m.Triangles {
		if min(t[0], t[1], t[2]) < 0 || max(t[0], t[1], t[2]) >= nv {
			continue
		}
		for k := 0; k < 3; k++ {
			if a, b := t[k], t[(k+1)%3]; a != b {
				uses[[2]int{min(a, b), max(a, b)}]++
			}
		}
	}
	for e, n := range uses {
		edges = append(edges, e)
		if n == 1 {
			open++
		}
	}
	slices.SortFunc(edges, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return edges, open
}

// TestEdgeGraphMatchesReference checks the bucketed construction against the plain
// definition on random meshes with repeated corners, out-of-range indices, shared
// and open sides, and fans larger than a bucket's insertion sort.
func TestEdgeGraphMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	meshes := []*character.Mesh{uvSphere(vecmath.Vec3{}, 1, 16, 20), {Positions: make([]vecmath.Vec3, 3)}}
	for k := 0; k < 200; k++ {
		nv := 1 + rng.Intn(60)
		m := &character.Mesh{Positions: make([]vecmath.Vec3, nv)}
		for i := rng.Intn(200); i > 0; i-- {
			m.Triangles = append(m.Triangles, [3]int{rng.Intn(nv+2) - 1, rng.Intn(nv), rng.Intn(nv)})
		}
		meshes = append(meshes, m)
	}
	for i, m := range meshes {
		g := NewEdgeGraph(m, 0)
		edges, open := referenceEdges(m)
		if !slices.Equal(g.Edges, edges) || g.Open != open {
			t.Fatalf("mesh %d: %d edges (%d open), want %d (%d open)", i, len(g.Edges), g.Open, len(edges), open)
		}
		for v := range m.Positions {
			var want []int
			for _, e := range edges {
				if e[0] == v {
					want = append(want, e[1])
				} else if e[1] == v {
					want = append(want, e[0])
				}
			}
			got := slices.Clone(g.Neighbors(v))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("mesh %d: neighbours of %d %v, want %v", i, v, got, want)
			}
		}
	}
}

// BenchmarkNewEdgeGraph builds the edge graph of a ≈160k-triangle sphere, about the
// largest mesh scoring prepares in practice.
func BenchmarkNewEdgeGraph(b *testing.B) {
	m := uvSphere(vecmath.Vec3{}, 1, 256, 320)
	b.ReportMetric(float64(len(m.Triangles)), "triangles")
	for i := 0; i < b.N; i++ {
		NewEdgeGraph(m, 0)
	}
}
