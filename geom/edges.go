package geom

import (
	"math"
	"sort"

	"github.com/rigkit/rigkit/character"
)

// EdgeGraph is a mesh's vertex adjacency: vertices joined by a triangle edge. It is
// stored in compressed sparse rows: the neighbours of v are Adj[Start[v]:Start[v+1]].
type EdgeGraph struct {
	Start []int
	Adj   []int
	// Edges lists each undirected edge once, lower vertex first.
	Edges [][2]int
}

// NewEdgeGraph builds the edge graph of m, ignoring triangles with out-of-range
// indices and repeated corners. With weldTol > 0, vertices at the same position
// (within weldTol, as UV and normal seams split them) are also joined by an edge, so
// that the graph follows the surface across seams; such seam edges have length ≈0.
func NewEdgeGraph(m *character.Mesh, weldTol float64) *EdgeGraph {
	nv := len(m.Positions)
	es := make([][2]int, 0, 3*len(m.Triangles))
	if weldTol > 0 {
		rep := WeldVertices(m.Positions, weldTol)
		for v, r := range rep {
			if r != v {
				es = append(es, [2]int{r, v})
			}
		}
	}
	for _, t := range m.Triangles {
		if t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= nv || t[1] >= nv || t[2] >= nv {
			continue
		}
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a == b {
				continue
			}
			if a > b {
				a, b = b, a
			}
			es = append(es, [2]int{a, b})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i][0] != es[j][0] {
			return es[i][0] < es[j][0]
		}
		return es[i][1] < es[j][1]
	})
	uniq := es[:0]
	for i, e := range es {
		if i == 0 || e != es[i-1] {
			uniq = append(uniq, e)
		}
	}
	g := &EdgeGraph{Start: make([]int, nv+1), Edges: uniq}
	for _, e := range uniq {
		g.Start[e[0]+1]++
		g.Start[e[1]+1]++
	}
	for v := 0; v < nv; v++ {
		g.Start[v+1] += g.Start[v]
	}
	g.Adj = make([]int, 2*len(uniq))
	fill := append([]int(nil), g.Start[:nv]...)
	for _, e := range uniq {
		g.Adj[fill[e[0]]] = e[1]
		fill[e[0]]++
		g.Adj[fill[e[1]]] = e[0]
		fill[e[1]]++
	}
	return g
}

// Neighbors returns the vertices adjacent to v.
func (g *EdgeGraph) Neighbors(v int) []int { return g.Adj[g.Start[v]:g.Start[v+1]] }

// Components labels the connected components of the subgraph induced by the vertices
// with keep[v] true. It returns a label per vertex (-1 where keep is false) and the
// number of components.
func (g *EdgeGraph) Components(keep []bool) (labels []int, n int) {
	labels = make([]int, len(keep))
	for i := range labels {
		labels[i] = -1
	}
	var stack []int
	for s := range keep {
		if !keep[s] || labels[s] >= 0 {
			continue
		}
		labels[s] = n
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, u := range g.Neighbors(v) {
				if keep[u] && labels[u] < 0 {
					labels[u] = n
					stack = append(stack, u)
				}
			}
		}
		n++
	}
	return labels, n
}

// WeldVertices maps every vertex to a representative: the lowest-index vertex whose
// position quantizes to the same cell of size tol. Non-finite positions map to
// themselves.
func WeldVertices(positions []character.Vec3, tol float64) []int {
	rep := make([]int, len(positions))
	seen := make(map[[3]int64]int, len(positions))
	for v, p := range positions {
		rep[v] = v
		if !p.IsFinite() || tol <= 0 {
			continue
		}
		key := [3]int64{int64(math.Round(p[0] / tol)), int64(math.Round(p[1] / tol)), int64(math.Round(p[2] / tol))}
		if r, ok := seen[key]; ok {
			rep[v] = r
		} else {
			seen[key] = v
		}
	}
	return rep
}
