package rewards

import (
	"math"
	"slices"

	"github.com/rigkit/rigkit/assets"
)

// edgeList returns each undirected edge of the triangles once, packed as
// lo<<32 | hi (lo < hi, repeated corners skipped), in increasing order, and the
// fraction of them that only one triangle uses (open boundary; 1 for no edges).
// Sorting packed integers is several times faster than hashing edge pairs.
func edgeList(tris [][3]int) (edges []uint64, boundary float64) {
	all := make([]uint64, 0, 3*len(tris))
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a == b {
				continue
			}
			if a > b {
				a, b = b, a
			}
			all = append(all, uint64(a)<<32|uint64(b))
		}
	}
	slices.Sort(all)
	open := 0
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j] == all[i] {
			j++
		}
		if j-i == 1 {
			open++
		}
		edges = append(edges, all[i])
		i = j
	}
	if len(edges) == 0 {
		return edges, 1
	}
	return edges, float64(open) / float64(len(edges))
}

// surfaceGraph is vertex adjacency in compressed rows: the neighbours of v are
// adj[start[v]:start[v+1]].
type surfaceGraph struct {
	start []int32
	adj   []int32
}

// neighbors returns the vertices adjacent to v.
func (g *surfaceGraph) neighbors(v int) []int32 { return g.adj[g.start[v]:g.start[v+1]] }

// newSurfaceGraph joins vertices by the mesh edges and by proximity links: vertices
// closer than r (cube units) are joined too, at most 6 links found from each vertex,
// so that touching but unconnected mesh pieces (a belt on a body, a duplicated
// seam) count as one surface.
func newSurfaceGraph(pos []assets.Vec3, edges []uint64, r float64) surfaceGraph {
	nv := len(pos)
	pairs := append([]uint64(nil), edges...)
	// Vertices sorted by grid cell (then index) so each cell is one contiguous run.
	type cellVert struct {
		cell uint64
		v    int32
	}
	const bits = 21 // cells per axis up to 2^21: r = 0.02 over the cube needs 100
	const mask = 1<<bits - 1
	cellOf := func(q assets.Vec3, d [3]int64) (uint64, bool) {
		var c uint64
		for k := 0; k < 3; k++ {
			i := int64(math.Floor(q[k]/r)) + d[k] + 1<<(bits-1)
			if i < 0 || i > mask {
				return 0, false
			}
			c = c<<bits | uint64(i)
		}
		return c, true
	}
	cells := make([]cellVert, 0, nv)
	for v, q := range pos {
		if c, ok := cellOf(q, [3]int64{}); ok {
			cells = append(cells, cellVert{c, int32(v)})
		}
	}
	slices.SortFunc(cells, func(a, b cellVert) int {
		switch {
		case a.cell < b.cell:
			return -1
		case a.cell > b.cell:
			return 1
		}
		return int(a.v - b.v)
	})
	const maxLinks = 6
	// First index of each occupied cell in an open-addressing table (a Go map costs
	// several times more for these 27 lookups per vertex).
	size := 1
	for size < 2*len(cells)+1 {
		size <<= 1
	}
	slotKey := make([]uint64, size)
	slotAt := make([]int32, size)
	const empty = ^uint64(0) // never a cell: each coordinate has only 21 bits
	for i := range slotKey {
		slotKey[i] = empty
	}
	slotOf := func(c uint64) int {
		h := int((c * 0x9E3779B97F4A7C15) >> 32)
		for i := h & (size - 1); ; i = (i + 1) & (size - 1) {
			if slotKey[i] == c || slotKey[i] == empty {
				return i
			}
		}
	}
	for i := len(cells) - 1; i >= 0; i-- {
		sl := slotOf(cells[i].cell)
		slotKey[sl], slotAt[sl] = cells[i].cell, int32(i)
	}
	for v, q := range pos {
		links := 0
		for dx := int64(-1); dx <= 1 && links < maxLinks; dx++ {
			for dy := int64(-1); dy <= 1 && links < maxLinks; dy++ {
				// The cells z-1, z, z+1 of one column are consecutive keys: find
				// the first occupied one, then walk the three in order.
				first, ok := cellOf(q, [3]int64{dx, dy, -1})
				last, ok2 := cellOf(q, [3]int64{dx, dy, 1})
				if !ok || !ok2 {
					continue
				}
				i := -1
				for c := first; c <= last && i < 0; c++ {
					if sl := slotOf(c); slotKey[sl] == c {
						i = int(slotAt[sl])
					}
				}
				if i < 0 {
					continue
				}
				for ; i < len(cells) && cells[i].cell <= last && links < maxLinks; i++ {
					u := int(cells[i].v)
					if u <= v || pos[u].Dist(q) > r {
						continue
					}
					pairs = append(pairs, uint64(v)<<32|uint64(u))
					links++
				}
			}
		}
	}
	g := surfaceGraph{start: make([]int32, nv+1)}
	for _, e := range pairs {
		g.start[(e>>32)+1]++
		g.start[uint32(e)+1]++
	}
	for v := 0; v < nv; v++ {
		g.start[v+1] += g.start[v]
	}
	g.adj = make([]int32, g.start[nv])
	fill := append([]int32(nil), g.start[:nv]...)
	for _, e := range pairs {
		a, b := int(e>>32), int(uint32(e))
		g.adj[fill[a]] = int32(b)
		fill[a]++
		g.adj[fill[b]] = int32(a)
		fill[b]++
	}
	return g
}

// pieces labels each vertex with its connected piece of the graph (0, 1, ...).
func (g *surfaceGraph) pieces() []int32 {
	nv := len(g.start) - 1
	label := make([]int32, nv)
	for i := range label {
		label[i] = -1
	}
	var stack []int32
	next := int32(0)
	for s := 0; s < nv; s++ {
		if label[s] >= 0 {
			continue
		}
		label[s] = next
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, u := range g.neighbors(int(v)) {
				if label[u] < 0 {
					label[u] = next
					stack = append(stack, u)
				}
			}
		}
		next++
	}
	return label
}
