package geom

import (
	"math"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// EdgeGraph is a mesh's vertex adjacency: vertices joined by a triangle edge. It is
// stored in compressed sparse rows: the neighbours of v are Adj[Start[v]:Start[v+1]].
type EdgeGraph struct {
	Start []int
	Adj   []int
	// Edges lists each undirected edge once, lower vertex first, in increasing order.
	Edges [][2]int
	// Open is the number of Edges that exactly one triangle side uses: the mesh's
	// open boundary (a weld edge is no triangle's side).
	Open int
}

// NewEdgeGraph builds the edge graph of m, ignoring triangles with out-of-range
// indices and repeated corners. With weldTol > 0, vertices at the same position
// (within weldTol, as UV and normal seams split them) are also joined by an edge, so
// that the graph follows the surface across seams; such seam edges have length ≈0.
//
// The sides are bucketed by their lower vertex (a counting sort) and each short
// bucket is sorted in place, which is several times faster than sorting all the
// pairs. Vertex indices must fit in 31 bits.
func NewEdgeGraph(m *character.Mesh, weldTol float64) *EdgeGraph {
	nv := len(m.Positions)
	var weld []int
	if weldTol > 0 {
		weld = WeldVertices(m.Positions, weldTol)
	}
	// each visits the weld edges (a vertex and its lower representative) and the
	// triangle sides, lower vertex first.
	each := func(visit func(lo, hi int, side bool)) {
		for v, r := range weld {
			if r != v {
				visit(r, v, false)
			}
		}
		for _, t := range m.Triangles {
			if t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= nv || t[1] >= nv || t[2] >= nv {
				continue
			}
			for k := 0; k < 3; k++ {
				if a, b := t[k], t[(k+1)%3]; a != b {
					visit(min(a, b), max(a, b), true)
				}
			}
		}
	}
	start := make([]int, nv+1)
	each(func(lo, _ int, _ bool) { start[lo+1]++ })
	for v := 0; v < nv; v++ {
		start[v+1] += start[v]
	}
	// upper[start[lo]:start[lo+1]] holds hi<<1 | 1 for each side lo–hi and hi<<1
	// for each weld edge, so that sorting groups an edge's uses.
	upper := make([]uint32, start[nv])
	fill := append([]int(nil), start[:nv]...)
	each(func(lo, hi int, side bool) {
		u := uint32(hi) << 1
		if side {
			u |= 1
		}
		upper[fill[lo]] = u
		fill[lo]++
	})
	g := &EdgeGraph{Start: make([]int, nv+1), Edges: make([][2]int, 0, len(upper)/2+1)}
	for a := 0; a < nv; a++ {
		run := upper[start[a]:start[a+1]]
		if len(run) > 32 { // a fan's centre
			slices.Sort(run)
		}
		for i := 1; i < len(run); i++ { // insertion sort: a vertex has few edges
			for j := i; j > 0 && run[j] < run[j-1]; j-- {
				run[j], run[j-1] = run[j-1], run[j]
			}
		}
		for i := 0; i < len(run); {
			sides := 0
			j := i
			for ; j < len(run) && run[j]>>1 == run[i]>>1; j++ {
				sides += int(run[j] & 1)
			}
			if sides == 1 {
				g.Open++
			}
			g.Edges = append(g.Edges, [2]int{a, int(run[i] >> 1)})
			i = j
		}
	}
	for _, e := range g.Edges {
		g.Start[e[0]+1]++
		g.Start[e[1]+1]++
	}
	for v := 0; v < nv; v++ {
		g.Start[v+1] += g.Start[v]
	}
	g.Adj = make([]int, 2*len(g.Edges))
	fill = append(fill[:0], g.Start[:nv]...)
	for _, e := range g.Edges {
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

// WeldCell returns the cell of size tol that WeldVertices puts position p in.
func WeldCell(p vecmath.Vec3, tol float64) [3]int64 {
	return [3]int64{int64(math.Round(p[0] / tol)), int64(math.Round(p[1] / tol)), int64(math.Round(p[2] / tol))}
}

// WeldVertices maps every vertex to a representative: the lowest-index vertex whose
// position quantizes to the same cell of size tol. Non-finite positions map to
// themselves.
func WeldVertices(positions []vecmath.Vec3, tol float64) []int {
	rep := make([]int, len(positions))
	seen := make(map[[3]int64]int, len(positions))
	for v, p := range positions {
		rep[v] = v
		if !p.IsFinite() || tol <= 0 {
			continue
		}
		key := WeldCell(p, tol)
		if r, ok := seen[key]; ok {
			rep[v] = r
		} else {
			seen[key] = v
		}
	}
	return rep
}
