package geom

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/vecmath"
)

// boxPad is the number of empty cell layers VoxelizeBox keeps around the box; the
// outermost layer is never occupied, so a walk over occupied cells needs no bounds
// checks on its neighbours.
const boxPad = 2

// VoxelizeBox voxelizes a mesh over the box [lo,hi] (which should hold the mesh) with
// res cells along the box's longest axis, coarsened until the grid holds at most
// maxVoxels cells. Surface cells are those whose centre lies within half a cell
// diagonal of a triangle; the rest is split into connected components that are
// labelled inside or outside from a few winding-number probes each (see fillInterior),
// which costs far fewer winding queries than testing every cell as NewVoxelGrid does.
// It returns the grid and the number of winding queries it made, on up to workers
// goroutines.
func VoxelizeBox(m *character.Mesh, lo, hi vecmath.Vec3, res, maxVoxels, workers int) (*VoxelGrid, int) {
	wn := NewWindingNumber(m)
	g, evals := VoxelizeBoxWith(m, lo, hi, res, maxVoxels, workers, wn.At)
	g.WN = wn
	return g, evals
}

// VoxelizeBoxWith is VoxelizeBox with the caller's winding number (wind at a point
// of m's frame, ≈1 inside): a caller that holds one for the same surface, in
// another frame, does not build a second. The grid's WN is nil.
func VoxelizeBoxWith(m *character.Mesh, lo, hi vecmath.Vec3, res, maxVoxels, workers int, wind func(vecmath.Vec3) float64) (*VoxelGrid, int) {
	f := &boxFill{g: newBoxGrid(lo, hi, res, maxVoxels)}
	f.markSurface(m.Positions, m.Triangles)
	evals := f.fillInterior(wind, workers)
	return f.g, evals
}

// maxBoxRes bounds the cells asked along the longest axis: a caller deriving the
// resolution from a ratio of extents (a flat box) can ask for more than any grid
// holds.
const maxBoxRes = 1 << 16

// newBoxGrid covers the box [lo,hi] with res cells along its longest axis plus boxPad
// layers on every side, coarsened until the whole grid holds at most maxVoxels cells.
func newBoxGrid(lo, hi vecmath.Vec3, res, maxVoxels int) *VoxelGrid {
	ext := 0.0
	for a := 0; a < 3; a++ {
		ext = math.Max(ext, hi[a]-lo[a])
	}
	if ext <= 0 {
		ext = 1e-3
	}
	res = min(max(res, 4), maxBoxRes)
	h := ext / float64(res)
	var n [3]int
	for {
		total := 1.0 // in float64: the cell counts of a fine grid overflow an int
		for a := 0; a < 3; a++ {
			cells := math.Ceil((hi[a]-lo[a])/h) + 1 + 2*boxPad
			n[a] = int(math.Min(cells, maxBoxRes+1+2*boxPad))
			total *= cells
		}
		if total <= float64(maxVoxels) || ext/h < 8 {
			break
		}
		h *= math.Cbrt(total/float64(maxVoxels)) * 1.01
	}
	// Cell boxPad's centre sits on lo.
	return newGrid(n, h, lo.Sub(vecmath.Vec3{h, h, h}.Scale(boxPad)), false)
}

// boxFill is VoxelizeBox's working state.
type boxFill struct {
	g *VoxelGrid
	// meshLo, meshHi bound the cells the mesh's vertices fall in.
	meshLo, meshHi [3]int
}

// surface reports whether cell c is a surface cell: occupied but not known inside.
func (f *boxFill) surface(c int) bool { return f.g.Occ[c] && !f.g.Inner[c] }

// set labels cell c inside (occupied) or outside (empty).
func (f *boxFill) set(c int, inside bool) { f.g.Occ[c], f.g.Inner[c] = inside, inside }

func (f *boxFill) inMeshBox(i, j, k int) bool {
	return i >= f.meshLo[0] && i <= f.meshHi[0] && j >= f.meshLo[1] && j <= f.meshHi[1] && k >= f.meshLo[2] && k <= f.meshHi[2]
}

// markSurface marks every cell whose centre lies within half a cell diagonal of a
// triangle (a superset of the cells the triangle touches) and every vertex's cell.
func (f *boxFill) markSurface(pos []vecmath.Vec3, tris [][3]int) {
	g := f.g
	r := 0.5 * math.Sqrt(3) * g.Size
	r2 := r * r
	f.meshLo, f.meshHi = g.N, [3]int{}
	for _, p := range pos {
		for a := 0; a < 3; a++ {
			c := g.AxisCell(p[a], a)
			f.meshLo[a] = min(f.meshLo[a], c)
			f.meshHi[a] = max(f.meshHi[a], c)
		}
	}
	for _, p := range pos {
		g.Occ[g.Nearest(p)] = true
	}
	for _, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		var lo, hi [3]int
		for ax := 0; ax < 3; ax++ {
			mn := math.Min(a[ax], math.Min(b[ax], c[ax])) - r
			mx := math.Max(a[ax], math.Max(b[ax], c[ax])) + r
			// The cells whose centres lie in [mn, mx].
			lo[ax] = g.clampAxis(int(math.Ceil(g.CentreCoord(mn, ax))), ax)
			hi[ax] = g.clampAxis(int(math.Floor(g.CentreCoord(mx, ax))), ax)
		}
		for k := lo[2]; k <= hi[2]; k++ {
			for j := lo[1]; j <= hi[1]; j++ {
				for i := lo[0]; i <= hi[0]; i++ {
					idx := g.Cell(i, j, k)
					if g.Occ[idx] {
						continue
					}
					p := g.Center(idx)
					d := p.Sub(ClosestOnTriangle(p, a, b, c))
					if d.Dot(d) <= r2 {
						g.Occ[idx] = true
					}
				}
			}
		}
	}
	f.clearBorder()
}

// clearBorder keeps the outermost layer empty (it never holds geometry by construction).
func (f *boxFill) clearBorder() {
	g := f.g
	for idx := range g.Occ {
		i, j, k := g.Coords(idx)
		if i == 0 || j == 0 || k == 0 || i == g.N[0]-1 || j == g.N[1]-1 || k == g.N[2]-1 {
			f.set(idx, false)
		}
	}
}

var off6 = [6][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}

// components splits the cells that are not surface into 6-connected components: it
// returns each cell's component (-1 for surface cells) and the cells grouped by
// component, component c being members[starts[c]:starts[c+1]].
func (f *boxFill) components(steps [6]int) (comp, members []int32, starts []int) {
	g := f.g
	nc := len(g.Occ)
	comp = make([]int32, nc)
	for i := range comp {
		comp[i] = -1
	}
	queue := make([]int32, 0, 1024)
	for s := 0; s < nc; s++ {
		if comp[s] >= 0 || f.surface(s) {
			continue
		}
		id := int32(len(starts))
		starts = append(starts, len(members))
		comp[s] = id
		queue = append(queue[:0], int32(s))
		for q := 0; q < len(queue); q++ {
			c := int(queue[q])
			members = append(members, int32(c))
			i, j, k := g.Coords(c)
			for d, st := range steps {
				if !f.inside6(i, j, k, d) {
					continue
				}
				nb := c + st
				if comp[nb] < 0 && !f.surface(nb) {
					comp[nb] = id
					queue = append(queue, int32(nb))
				}
			}
		}
	}
	return comp, members, append(starts, len(members))
}

// fillInterior classifies the cells not touched by the surface. The surface cells cut
// the rest of the grid into 6-connected components; the winding number is continuous
// inside each, so a closed component is labelled from a few samples. A component
// whose samples disagree (the inside leaks out through a hole) is labelled per cell
// from a strided set of samples, each cell taking the label of the sample it reaches
// first without crossing the surface.
func (f *boxFill) fillInterior(wind func(vecmath.Vec3) float64, workers int) (evals int) {
	g := f.g
	steps := f.steps6()
	comp, members, starts := f.components(steps)
	var shell []int32
	for ci := 0; ci+1 < len(starts); ci++ {
		m := members[starts[ci]:starts[ci+1]]
		// Probe a few cells anywhere in the component and more among the cells next to
		// the surface: when a hole joins inside and outside, the inside may be a small
		// part of the component, but it lines the surface.
		const probes, shellProbes = 9, 64
		pts := make([]vecmath.Vec3, 0, probes+shellProbes)
		for p := 0; p < probes && p < len(m); p++ {
			pts = append(pts, g.Center(int(m[p*(len(m)-1)/max(probes-1, 1)])))
		}
		shell = shell[:0]
		for _, c := range m {
			if f.touchesSurface(int(c), steps) {
				shell = append(shell, c)
			}
		}
		for p := 0; p < shellProbes && p < len(shell); p++ {
			pts = append(pts, g.Center(int(shell[p*(len(shell)-1)/max(shellProbes-1, 1)])))
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
			for _, c := range m {
				f.set(int(c), out == 0)
			}
			continue
		}
		evals += f.labelMixed(m, comp, int32(ci), wind, workers)
	}
	f.clearBorder()
	return evals
}

// labelMixed labels one component whose inside and outside connect through a hole.
func (f *boxFill) labelMixed(m []int32, comp []int32, id int32, wind func(vecmath.Vec3) float64, workers int) int {
	g := f.g
	// Samples: a coarse lattice inside the mesh's box, and a finer one among the cells
	// lining the surface, where inside and outside meet.
	steps := f.steps6()
	var samples []int32
	for _, c := range m {
		i, j, k := g.Coords(int(c))
		if i%2 != 0 || j%2 != 0 || k%2 != 0 {
			continue
		}
		coarse := i%4 == 0 && j%4 == 0 && k%4 == 0
		if coarse && f.inMeshBox(i, j, k) || f.touchesSurface(int(c), steps) {
			samples = append(samples, c)
		}
	}
	if len(samples) == 0 {
		samples = m
	}
	pts := make([]vecmath.Vec3, len(samples))
	for i, c := range samples {
		pts[i] = g.Center(int(c))
	}
	w := evalParallel(pts, wind, workers)
	lab := make(map[int32]bool, len(m)) // inside
	queue := make([]int32, 0, len(m))
	for i, c := range samples {
		lab[c] = w[i] > 0.5
		queue = append(queue, c)
	}
	for q := 0; q < len(queue); q++ {
		c := int(queue[q])
		i, j, k := g.Coords(c)
		for d, st := range steps {
			if !f.inside6(i, j, k, d) {
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
		f.set(int(c), l)
	}
	return len(samples)
}

// touchesSurface reports whether a cell has a surface cell among its 6 neighbours.
func (f *boxFill) touchesSurface(c int, steps [6]int) bool {
	i, j, k := f.g.Coords(c)
	for d, st := range steps {
		if f.inside6(i, j, k, d) && f.surface(c+st) {
			return true
		}
	}
	return false
}

// steps6 are the index offsets of the 6 face neighbours, in off6 order.
func (f *boxFill) steps6() [6]int {
	var s [6]int
	for d, o := range off6 {
		s[d] = o[0] + o[1]*f.g.N[0] + o[2]*f.g.N[0]*f.g.N[1]
	}
	return s
}

// inside6 reports whether the face neighbour d of cell (i, j, k) lies in the grid.
func (f *boxFill) inside6(i, j, k, d int) bool {
	o := off6[d]
	i, j, k = i+o[0], j+o[1], k+o[2]
	return i >= 0 && j >= 0 && k >= 0 && i < f.g.N[0] && j < f.g.N[1] && k < f.g.N[2]
}

// evalParallel evaluates fn at every point on up to workers goroutines.
func evalParallel(pts []vecmath.Vec3, fn func(vecmath.Vec3) float64, workers int) []float64 {
	out := make([]float64, len(pts))
	if workers <= 1 || len(pts) < 64 {
		for i, p := range pts {
			out[i] = fn(p)
		}
		return out
	}
	var g workgroup.Group
	chunk := (len(pts) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(pts))
		if lo >= hi {
			break
		}
		g.Go(func() {
			for i := lo; i < hi; i++ {
				out[i] = fn(pts[i])
			}
		})
	}
	g.Wait()
	return out
}
