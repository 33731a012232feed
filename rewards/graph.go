package rewards

import (
	"cmp"
	"math"
	"slices"

	"github.com/rigkit/rigkit/vecmath"
)

// surfaceGraph is vertex adjacency in compressed rows: the neighbours of v are
// adj[start[v]:start[v+1]].
type surfaceGraph struct {
	start []int32
	adj   []int32
}

// neighbors returns the vertices adjacent to v.
func (g *surfaceGraph) neighbors(v int) []int32 { return g.adj[g.start[v]:g.start[v+1]] }

// newSurfaceGraph joins vertices by the mesh edges (geom.EdgeGraph's, lower vertex
// first) and by proximity links: vertices closer than r (cube units) are joined too,
// at most 6 links found from each vertex, so that touching but unconnected mesh
// pieces (a belt on a body, a duplicated seam) count as one surface.
func newSurfaceGraph(pos []vecmath.Vec3, edges [][2]int, r float64) surfaceGraph {
	nv := len(pos)
	pairs := make([]uint64, len(edges), len(edges)+nv)
	for i, e := range edges {
		pairs[i] = uint64(e[0])<<32 | uint64(e[1])
	}
	pairs = appendProximityLinks(pairs, pos, r)
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

// appendProximityLinks appends v<<32|u for vertex pairs v < u closer than r, at most 6
// found from each v: the 27 grid cells of side r around v are searched column by
// column (x, then y; the cells z-1, z, z+1 of a column in order, vertices of a cell
// by index). Vertices are sorted by cell, and a dense table of the grid's (x, y)
// columns gives each column's run, so a lookup is an index, not a hash probe. A grid
// too large for that table (positions far outside the normalized cube, which scoring
// never passes) gets no links.
func appendProximityLinks(pairs []uint64, pos []vecmath.Vec3, r float64) []uint64 {
	const limit = 1 << 20 // cell coordinates beyond ±limit are left out
	const maxLinks = 6
	nv := len(pos)
	coord := make([][3]int64, nv)
	valid := make([]bool, nv)
	lo := [3]int64{limit, limit, limit}
	hi := [3]int64{-limit, -limit, -limit}
	for v, q := range pos {
		ok := true
		for k := 0; k < 3; k++ {
			f := math.Floor(q[k] / r)
			if !(f >= -limit && f < limit) {
				ok = false
				break
			}
			coord[v][k] = int64(f)
		}
		if !ok {
			continue
		}
		valid[v] = true
		for k := 0; k < 3; k++ {
			lo[k] = min(lo[k], coord[v][k])
			hi[k] = max(hi[k], coord[v][k])
		}
	}
	if lo[0] > hi[0] {
		return pairs
	}
	n := [3]int64{hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1}
	if n[0]*n[1] > 1<<22 || n[0]*n[1]*n[2] >= 1<<31 {
		return pairs
	}
	// keys: cell index (column-major: x, y, then z) above the vertex index.
	keys := make([]uint64, 0, nv)
	cols := n[0] * n[1]
	colStart := make([]int32, cols+1)
	for v, c := range coord {
		if !valid[v] {
			continue
		}
		col := (c[0]-lo[0])*n[1] + (c[1] - lo[1])
		keys = append(keys, uint64(col*n[2]+c[2]-lo[2])<<32|uint64(v))
		colStart[col+1]++
	}
	slices.Sort(keys)
	for i := int64(0); i < cols; i++ {
		colStart[i+1] += colStart[i]
	}
	zOf := func(k uint64) int64 { return int64(k>>32) % n[2] }
	for v, c := range coord {
		if !valid[v] {
			continue
		}
		q := pos[v]
		z := c[2] - lo[2]
		links := 0
		for dx := int64(-1); dx <= 1 && links < maxLinks; dx++ {
			x := c[0] + dx - lo[0]
			if x < 0 || x >= n[0] {
				continue
			}
			for dy := int64(-1); dy <= 1 && links < maxLinks; dy++ {
				y := c[1] + dy - lo[1]
				if y < 0 || y >= n[1] {
					continue
				}
				col := x*n[1] + y
				run := keys[colStart[col]:colStart[col+1]]
				i := 0
				if len(run) > 16 {
					i, _ = slices.BinarySearchFunc(run, z-1, func(k uint64, t int64) int { return cmp.Compare(zOf(k), t) })
				} else {
					for i < len(run) && zOf(run[i]) < z-1 {
						i++
					}
				}
				for ; i < len(run) && zOf(run[i]) <= z+1 && links < maxLinks; i++ {
					u := int(uint32(run[i]))
					if u <= v || pos[u].Dist(q) > r {
						continue
					}
					pairs = append(pairs, uint64(v)<<32|uint64(u))
					links++
				}
			}
		}
	}
	return pairs
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
