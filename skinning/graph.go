package skinning

import (
	"math"
	"sort"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// solidGraph is the graph Dijkstra runs on: solid cells joined to their 26 neighbours,
// plus bridge edges that attach solid islands no bone reaches to the nearest reached
// solid (a floating armour plate follows the part it floats next to).
type solidGraph struct {
	g     *geom.VoxelGrid
	id    []int32 // grid cell → solid index, or -1
	cells []int32 // solid index → grid cell
	steps [26]int
	lens  [26]float32
	// bridges are the extra edges, by solid index; nil when there are none.
	bridges map[int32][]bridgeEdge
}

type bridgeEdge struct {
	to int32
	w  float32
}

// seed starts a Dijkstra search at a solid cell with an initial distance.
type seed struct {
	v int32
	d float32
}

func newSolidGraph(g *geom.VoxelGrid) *solidGraph {
	sg := &solidGraph{g: g, id: make([]int32, len(g.Occ))}
	for c, solid := range g.Occ {
		if solid {
			sg.id[c] = int32(len(sg.cells))
			sg.cells = append(sg.cells, int32(c))
		} else {
			sg.id[c] = -1
		}
	}
	n := 0
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 && dz == 0 {
					continue
				}
				sg.steps[n] = dx + dy*g.N[0] + dz*g.N[0]*g.N[1]
				sg.lens[n] = float32(g.Size * math.Sqrt(float64(dx*dx+dy*dy+dz*dz)))
				n++
			}
		}
	}
	return sg
}

func (sg *solidGraph) numSolid() int { return len(sg.cells) }

// nearestSolid maps every grid cell to the solid index of an approximately nearest
// solid cell (26-connected breadth-first search from all solid cells).
func (sg *solidGraph) nearestSolid() []int32 {
	g := sg.g
	near := make([]int32, len(g.Occ))
	for i := range near {
		near[i] = -1
	}
	queue := make([]int32, 0, len(sg.cells))
	for s, c := range sg.cells {
		near[c] = int32(s)
		queue = append(queue, c)
	}
	for q := 0; q < len(queue); q++ {
		c := int(queue[q])
		g.Neighbors(c, func(nb int, _ float64) {
			if near[nb] < 0 {
				near[nb] = near[c]
				queue = append(queue, int32(nb))
			}
		})
	}
	return near
}

// bridgeIslands adds edges from every solid component that holds no seed to the
// nearest solid cell of a seeded component. It returns the number of islands bridged.
func (sg *solidGraph) bridgeIslands(seeded []bool) int {
	ns := sg.numSolid()
	comp := make([]int32, ns)
	for i := range comp {
		comp[i] = -1
	}
	var hasSeed []bool
	stack := make([]int32, 0, 256)
	for s := 0; s < ns; s++ {
		if comp[s] >= 0 {
			continue
		}
		id := int32(len(hasSeed))
		hasSeed = append(hasSeed, false)
		comp[s] = id
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seeded[v] {
				hasSeed[id] = true
			}
			c := int(sg.cells[v])
			for _, st := range sg.steps {
				nb := sg.id[c+st]
				if nb >= 0 && comp[nb] < 0 {
					comp[nb] = id
					stack = append(stack, nb)
				}
			}
		}
	}
	islands := 0
	for _, h := range hasSeed {
		if !h {
			islands++
		}
	}
	if islands == 0 || islands == len(hasSeed) {
		return 0
	}
	// Breadth-first search through the whole grid from the seeded components; the
	// first time it enters an island, bridge that cell to the search's origin.
	g := sg.g
	origin := make([]int32, len(g.Occ))
	for i := range origin {
		origin[i] = -1
	}
	queue := make([]int32, 0, ns)
	for s := 0; s < ns; s++ {
		if hasSeed[comp[s]] {
			origin[sg.cells[s]] = int32(s)
			queue = append(queue, sg.cells[s])
		}
	}
	attached := make([]bool, len(hasSeed))
	sg.bridges = map[int32][]bridgeEdge{}
	bridged := 0
	for q := 0; q < len(queue) && bridged < islands; q++ {
		c := int(queue[q])
		g.Neighbors(c, func(nb int, _ float64) {
			if origin[nb] >= 0 {
				return
			}
			origin[nb] = origin[c]
			queue = append(queue, int32(nb))
			if s := sg.id[nb]; s >= 0 && !attached[comp[s]] {
				attached[comp[s]] = true
				bridged++
				o := origin[c]
				w := float32(g.Center(nb).Dist(g.Center(int(sg.cells[o]))))
				sg.bridges[s] = append(sg.bridges[s], bridgeEdge{to: o, w: w})
				sg.bridges[o] = append(sg.bridges[o], bridgeEdge{to: s, w: w})
			}
		})
	}
	return bridged
}

// dijkstraWork holds one goroutine's buffers, reused across searches.
type dijkstraWork struct {
	dist    []float32 // by solid index; +Inf when untouched
	touched []int32
	heap    []heapItem
}

type heapItem struct {
	d float32
	v int32
}

func newDijkstraWork(n int) *dijkstraWork {
	w := &dijkstraWork{dist: make([]float32, n)}
	for i := range w.dist {
		w.dist[i] = float32(math.Inf(1))
	}
	return w
}

func (w *dijkstraWork) reset() {
	inf := float32(math.Inf(1))
	for _, v := range w.touched {
		w.dist[v] = inf
	}
	w.touched = w.touched[:0]
}

// run computes shortest distances from the seeds through the solid into w.dist.
// A cell whose distance exceeds limit (when limit is not nil) is not expanded: the
// search stops where this source could no longer matter.
func (sg *solidGraph) run(seeds []seed, limit []float32, w *dijkstraWork) {
	w.reset()
	w.heap = w.heap[:0]
	for _, s := range seeds {
		if s.d < w.dist[s.v] {
			if math.IsInf(float64(w.dist[s.v]), 1) {
				w.touched = append(w.touched, s.v)
			}
			w.dist[s.v] = s.d
			w.push(heapItem{s.d, s.v})
		}
	}
	for len(w.heap) > 0 {
		it := w.pop()
		if it.d > w.dist[it.v] {
			continue
		}
		if limit != nil && it.d > limit[it.v] {
			continue
		}
		c := int(sg.cells[it.v])
		for n, st := range sg.steps {
			nb := sg.id[c+st]
			if nb < 0 {
				continue
			}
			nd := it.d + sg.lens[n]
			if nd < w.dist[nb] {
				if math.IsInf(float64(w.dist[nb]), 1) {
					w.touched = append(w.touched, nb)
				}
				w.dist[nb] = nd
				w.push(heapItem{nd, nb})
			}
		}
		if sg.bridges != nil {
			for _, e := range sg.bridges[it.v] {
				nd := it.d + e.w
				if nd < w.dist[e.to] {
					if math.IsInf(float64(w.dist[e.to]), 1) {
						w.touched = append(w.touched, e.to)
					}
					w.dist[e.to] = nd
					w.push(heapItem{nd, e.to})
				}
			}
		}
	}
}

func (w *dijkstraWork) push(it heapItem) {
	h := append(w.heap, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].d <= it.d {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
	w.heap = h
}

func (w *dijkstraWork) pop() heapItem {
	h := w.heap
	top := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && h[r].d < h[l].d {
			l = r
		}
		if h[l].d >= last.d {
			break
		}
		h[i] = h[l]
		i = l
	}
	if n > 0 {
		h[i] = last
	}
	w.heap = h
	return top
}

// segmentSeeds returns the seeds of one joint: the solid cells its segments pass
// through, and for cells of the segment outside the solid, the nearest solid cell;
// each starts at its center's distance to the segment.
func (sg *solidGraph) segmentSeeds(segs []Segment, near func() []int32) []seed {
	g := sg.g
	best := map[int32]float32{}
	for _, s := range segs {
		l := s.A.Dist(s.B)
		n := int(math.Ceil(2*l/g.Size)) + 1
		for i := 0; i < n; i++ {
			t := 0.0
			if n > 1 {
				t = float64(i) / float64(n-1)
			}
			p := s.A.Lerp(s.B, t)
			c := g.Nearest(p)
			v := sg.id[c]
			if v < 0 {
				v = near()[c]
				if v < 0 {
					continue
				}
			}
			d := float32(s.dist(g.Center(int(sg.cells[v]))))
			if old, ok := best[v]; !ok || d < old {
				best[v] = d
			}
		}
	}
	out := make([]seed, 0, len(best))
	for v, d := range best {
		out = append(out, seed{v, d})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].v < out[b].v })
	return out
}

// vertexCells lists, for a point, the solid cells among the 8 cell centers around it
// and the point's distance to each.
func (sg *solidGraph) vertexCells(p vecmath.Vec3, dst []seed) []seed {
	g := sg.g
	dst = dst[:0]
	var base [3]int // the cell whose centre is the lower corner of the 8 around p
	for a := 0; a < 3; a++ {
		base[a] = int(math.Floor(g.CentreCoord(p[a], a)))
	}
	for dz := 0; dz <= 1; dz++ {
		for dy := 0; dy <= 1; dy++ {
			for dx := 0; dx <= 1; dx++ {
				x, y, z := base[0]+dx, base[1]+dy, base[2]+dz
				if x < 0 || y < 0 || z < 0 || x >= g.N[0] || y >= g.N[1] || z >= g.N[2] {
					continue
				}
				c := g.Cell(x, y, z)
				if v := sg.id[c]; v >= 0 {
					dst = append(dst, seed{v, float32(p.Dist(g.Center(c)))})
				}
			}
		}
	}
	return dst
}
