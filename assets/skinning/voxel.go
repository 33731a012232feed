package skinning

import (
	"math"
	"runtime"
	"sync"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/geom"
)

// Voxel states.
const (
	voxOutside uint8 = iota
	voxSurface       // touched by a triangle: solid, so thin parts and open meshes work
	voxInside        // interior by generalized winding number
)

// voxelGrid is a regular grid of cubic cells of side h whose cell (0,0,0) is centered
// at origin. The outermost two layers are never solid, so neighbour offsets need no
// bounds checks on solid cells.
type voxelGrid struct {
	// meshLo, meshHi bound the cells the mesh's bounding box covers.
	meshLo, meshHi [3]int
	n              [3]int
	origin         assets.Vec3
	h              float64
	state          []uint8
}

const gridPad = 2

// newVoxelGrid covers the box [lo,hi] with res cells along its longest axis, coarsened
// until the whole grid holds at most maxVoxels cells.
func newVoxelGrid(lo, hi assets.Vec3, res, maxVoxels int) *voxelGrid {
	ext := 0.0
	for a := 0; a < 3; a++ {
		ext = math.Max(ext, hi[a]-lo[a])
	}
	if ext <= 0 {
		ext = 1e-3
	}
	if res < 4 {
		res = 4
	}
	h := ext / float64(res)
	g := &voxelGrid{}
	for {
		total := 1
		for a := 0; a < 3; a++ {
			g.n[a] = int(math.Ceil((hi[a]-lo[a])/h)) + 1 + 2*gridPad
			total *= g.n[a]
		}
		if total <= maxVoxels || ext/h < 8 {
			break
		}
		h *= math.Cbrt(float64(total)/float64(maxVoxels)) * 1.01
	}
	g.h = h
	g.origin = lo.Sub(assets.Vec3{h, h, h}.Scale(gridPad))
	g.state = make([]uint8, g.n[0]*g.n[1]*g.n[2])
	return g
}

func (g *voxelGrid) inMeshBox(i, j, k int) bool {
	return i >= g.meshLo[0] && i <= g.meshHi[0] && j >= g.meshLo[1] && j <= g.meshHi[1] && k >= g.meshLo[2] && k <= g.meshHi[2]
}

func (g *voxelGrid) index(i, j, k int) int { return (k*g.n[1]+j)*g.n[0] + i }

// neighbors26 calls visit for every cell of the 26-neighbourhood of cell c that lies
// inside the grid, in z, y, x order.
func (g *voxelGrid) neighbors26(c int, visit func(nb int)) {
	i, j, k := g.coords(c)
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				x, y, z := i+dx, j+dy, k+dz
				if (dx == 0 && dy == 0 && dz == 0) || x < 0 || y < 0 || z < 0 || x >= g.n[0] || y >= g.n[1] || z >= g.n[2] {
					continue
				}
				visit(g.index(x, y, z))
			}
		}
	}
}

func (g *voxelGrid) coords(idx int) (i, j, k int) {
	i = idx % g.n[0]
	idx /= g.n[0]
	return i, idx % g.n[1], idx / g.n[1]
}

func (g *voxelGrid) center(idx int) assets.Vec3 {
	i, j, k := g.coords(idx)
	return g.origin.Add(assets.Vec3{float64(i) * g.h, float64(j) * g.h, float64(k) * g.h})
}

// cellOf returns the cell whose center is nearest to p, clamped into the grid.
func (g *voxelGrid) cellOf(p assets.Vec3) int {
	var c [3]int
	for a := 0; a < 3; a++ {
		c[a] = clampInt(int(math.Round((p[a]-g.origin[a])/g.h)), 0, g.n[a]-1)
	}
	return g.index(c[0], c[1], c[2])
}

func clampInt(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func (g *voxelGrid) solid(idx int) bool { return g.state[idx] != voxOutside }

// markSurface marks every cell whose center lies within half a cell diagonal of a
// triangle (a superset of the cells the triangle touches) and every vertex's cell.
func (g *voxelGrid) markSurface(pos []assets.Vec3, tris [][3]int) {
	r := 0.5 * math.Sqrt(3) * g.h
	r2 := r * r
	g.meshLo, g.meshHi = g.n, [3]int{}
	for _, p := range pos {
		for a := 0; a < 3; a++ {
			c := clampInt(int(math.Round((p[a]-g.origin[a])/g.h)), 0, g.n[a]-1)
			g.meshLo[a] = min(g.meshLo[a], c)
			g.meshHi[a] = max(g.meshHi[a], c)
		}
	}
	for _, p := range pos {
		g.state[g.cellOf(p)] = voxSurface
	}
	for _, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		var lo, hi [3]int
		for ax := 0; ax < 3; ax++ {
			mn := math.Min(a[ax], math.Min(b[ax], c[ax])) - r
			mx := math.Max(a[ax], math.Max(b[ax], c[ax])) + r
			lo[ax] = clampInt(int(math.Ceil((mn-g.origin[ax])/g.h)), 0, g.n[ax]-1)
			hi[ax] = clampInt(int(math.Floor((mx-g.origin[ax])/g.h)), 0, g.n[ax]-1)
		}
		for k := lo[2]; k <= hi[2]; k++ {
			for j := lo[1]; j <= hi[1]; j++ {
				for i := lo[0]; i <= hi[0]; i++ {
					idx := g.index(i, j, k)
					if g.state[idx] == voxSurface {
						continue
					}
					p := g.origin.Add(assets.Vec3{float64(i) * g.h, float64(j) * g.h, float64(k) * g.h})
					q := geom.ClosestOnTriangle(p, a, b, c)
					d := p.Sub(q)
					if d.Dot(d) <= r2 {
						g.state[idx] = voxSurface
					}
				}
			}
		}
	}
	g.clearBorder()
}

// clearBorder keeps the outermost layer empty (it never holds geometry by construction).
func (g *voxelGrid) clearBorder() {
	for idx := range g.state {
		i, j, k := g.coords(idx)
		if i == 0 || j == 0 || k == 0 || i == g.n[0]-1 || j == g.n[1]-1 || k == g.n[2]-1 {
			g.state[idx] = voxOutside
		}
	}
}

var off6 = [6][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}

// fillInterior classifies the cells not touched by the surface. The surface cells cut
// the rest of the grid into 6-connected components; the winding number is continuous
// inside each, so a closed component is labelled from a few samples. A component
// whose samples disagree (the inside leaks out through a hole) is labelled per cell
// from a strided set of samples, each cell taking the label of the sample it reaches
// first without crossing the surface.
func (g *voxelGrid) fillInterior(wind func(assets.Vec3) float64, workers int) (evals int) {
	nc := len(g.state)
	comp := make([]int32, nc)
	for i := range comp {
		comp[i] = -1
	}
	steps := g.steps6()
	var members []int32 // cells grouped by component
	var starts []int
	queue := make([]int32, 0, 1024)
	for s := 0; s < nc; s++ {
		if comp[s] >= 0 || g.state[s] == voxSurface {
			continue
		}
		id := int32(len(starts))
		starts = append(starts, len(members))
		comp[s] = id
		queue = append(queue[:0], int32(s))
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			members = append(members, int32(c))
			i, j, k := g.coords(c)
			for d, st := range steps {
				if !g.inside6(i, j, k, d) {
					continue
				}
				nb := c + st
				if comp[nb] < 0 && g.state[nb] != voxSurface {
					comp[nb] = id
					queue = append(queue, int32(nb))
				}
			}
		}
	}
	starts = append(starts, len(members))
	var shell []int32
	for ci := 0; ci+1 < len(starts); ci++ {
		m := members[starts[ci]:starts[ci+1]]
		// Probe a few cells anywhere in the component and more among the cells next to
		// the surface: when a hole joins inside and outside, the inside may be a small
		// part of the component, but it lines the surface.
		const probes, shellProbes = 9, 64
		pts := make([]assets.Vec3, 0, probes+shellProbes)
		for p := 0; p < probes && p < len(m); p++ {
			pts = append(pts, g.center(int(m[p*(len(m)-1)/max(probes-1, 1)])))
		}
		shell = shell[:0]
		for _, c := range m {
			if g.touchesSurface(int(c), steps) {
				shell = append(shell, c)
			}
		}
		for p := 0; p < shellProbes && p < len(shell); p++ {
			pts = append(pts, g.center(int(shell[p*(len(shell)-1)/max(shellProbes-1, 1)])))
		}
		w := evalParallel(pts, wind, workers)
		evals += len(pts)
		in, out := 0, 0
		for _, x := range w {
			if x > 0.5 {
				in++
			} else {
				out++
			}
		}
		if out == 0 || in == 0 {
			st := voxOutside
			if out == 0 {
				st = voxInside
			}
			for _, c := range m {
				g.state[c] = st
			}
			continue
		}
		evals += g.labelMixed(m, comp, int32(ci), wind, workers)
	}
	g.clearBorder()
	return evals
}

// labelMixed labels one component whose inside and outside connect through a hole.
func (g *voxelGrid) labelMixed(m []int32, comp []int32, id int32, wind func(assets.Vec3) float64, workers int) int {
	// Samples: a coarse lattice inside the mesh's box, and a finer one among the cells
	// lining the surface, where inside and outside meet.
	steps := g.steps6()
	var samples []int32
	for _, c := range m {
		i, j, k := g.coords(int(c))
		if i%2 != 0 || j%2 != 0 || k%2 != 0 {
			continue
		}
		coarse := i%4 == 0 && j%4 == 0 && k%4 == 0
		if coarse && g.inMeshBox(i, j, k) || g.touchesSurface(int(c), steps) {
			samples = append(samples, c)
		}
	}
	if len(samples) == 0 {
		samples = m
	}
	pts := make([]assets.Vec3, len(samples))
	for i, c := range samples {
		pts[i] = g.center(int(c))
	}
	w := evalParallel(pts, wind, workers)
	lab := make(map[int32]uint8, len(m))
	queue := make([]int32, 0, len(m))
	for i, c := range samples {
		l := voxOutside
		if w[i] > 0.5 {
			l = voxInside
		}
		lab[c] = l
		queue = append(queue, c)
	}
	for q := 0; q < len(queue); q++ {
		c := int(queue[q])
		i, j, k := g.coords(c)
		for d, st := range steps {
			if !g.inside6(i, j, k, d) {
				continue
			}
			nb := int32(c + st)
			if comp[nb] != id {
				continue
			}
			if _, ok := lab[nb]; !ok {
				lab[nb] = lab[int32(c)]
				queue = append(queue, nb)
			}
		}
	}
	for c, l := range lab {
		g.state[c] = l
	}
	return len(samples)
}

// touchesSurface reports whether a cell has a surface cell among its 6 neighbours.
func (g *voxelGrid) touchesSurface(c int, steps [6]int) bool {
	i, j, k := g.coords(c)
	for d, st := range steps {
		if g.inside6(i, j, k, d) && g.state[c+st] == voxSurface {
			return true
		}
	}
	return false
}

func (g *voxelGrid) steps6() [6]int {
	var s [6]int
	for d, o := range off6 {
		s[d] = o[0] + o[1]*g.n[0] + o[2]*g.n[0]*g.n[1]
	}
	return s
}

func (g *voxelGrid) inside6(i, j, k, d int) bool {
	o := off6[d]
	i, j, k = i+o[0], j+o[1], k+o[2]
	return i >= 0 && j >= 0 && k >= 0 && i < g.n[0] && j < g.n[1] && k < g.n[2]
}

// evalParallel evaluates f at every point on up to workers goroutines.
func evalParallel(pts []assets.Vec3, f func(assets.Vec3) float64, workers int) []float64 {
	out := make([]float64, len(pts))
	if workers <= 1 || len(pts) < 64 {
		for i, p := range pts {
			out[i] = f(p)
		}
		return out
	}
	var wg sync.WaitGroup
	chunk := (len(pts) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(pts))
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				out[i] = f(pts[i])
			}
		}()
	}
	wg.Wait()
	return out
}

func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
