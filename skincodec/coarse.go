package skincodec

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// Coarse-to-fine decoding. On meshes with more than 2·coarsePoints distinct vertex
// positions, coarsePoints vertices are picked by farthest-point sampling; the first
// coarseLevel0 of them (themselves a farthest-point sample) are level 0, the rest
// level 1, every other vertex level 2. Each bone is decoded at every level-0 point;
// then at a level-1 point or level-2 vertex only when one of its coarseNear nearest
// points of the levels above has the bone's weight above coarseEps, or the bone is
// one of its two nearest. Skipped points keep weight 0.
const (
	coarseLevel0 = 128
	coarsePoints = 512
	coarseNear   = 4
	coarseEps    = 0.03
)

type coarsePlan struct {
	coarse []int32 // unique-vertex indices in farthest-point order
	level  []int8  // per unique vertex: 0, 1 or 2
	// above[u] are u's nearest points of the levels above its own (indices into
	// coarse): level 0 for a level-1 point, levels 0 and 1 for a level-2 vertex.
	above   [][coarseNear]int32
	nearest [][2]int32 // per unique vertex, its two nearest joints
}

// wanted reports whether unique vertex u must be decoded for joint j, given the
// probabilities (U × nJ) decoded so far at the levels above u's.
func (cp *coarsePlan) wanted(u, j int, probs []float32, nJ int) bool {
	if n := cp.nearest[u]; n[0] == int32(j) || n[1] == int32(j) {
		return true
	}
	for _, c := range cp.above[u] {
		if probs[int(cp.coarse[c])*nJ+j] > coarseEps {
			return true
		}
	}
	return false
}

// coarseToFine plans the coarse passes, or returns nil when decoding every vertex is
// as cheap or exhaustive is set. pos are the mesh's positions, uniq the vertex of
// each distinct position and dists their joint distances (len(uniq) × nJ). Once
// stop (nil: never) reports true, asked once per sampled point, it returns nil and
// the caller must discard the decode.
func (t *SkinTokenizer) coarseToFine(pos []vecmath.Vec3, uniq []int, dists []float32, nJ int, exhaustive bool, stop func() bool) *coarsePlan {
	U := len(uniq)
	if exhaustive || U <= 2*coarsePoints {
		return nil
	}
	pts := make([]vecmath.Vec3, U)
	for u, v := range uniq {
		pts[u] = pos[v]
	}
	cp := &coarsePlan{level: make([]int8, U), above: make([][coarseNear]int32, U), nearest: make([][2]int32, U)}
	// Farthest-point sampling from vertex 0.
	minD := make([]float64, U)
	for u := range minD {
		minD[u] = math.Inf(1)
		cp.level[u] = 2
	}
	next := 0
	for len(cp.coarse) < coarsePoints {
		if stop != nil && stop() {
			return nil
		}
		cp.level[next] = 1
		if len(cp.coarse) < coarseLevel0 {
			cp.level[next] = 0
		}
		cp.coarse = append(cp.coarse, int32(next))
		x := pts[next]
		best, bi := -1.0, 0
		for u, p := range pts {
			d0, d1, d2 := p[0]-x[0], p[1]-x[1], p[2]-x[2]
			if d := d0*d0 + d1*d1 + d2*d2; d < minD[u] {
				minD[u] = d
			}
			if minD[u] > best {
				best, bi = minD[u], u
			}
		}
		next = bi
	}
	cpts := make([]vecmath.Vec3, len(cp.coarse))
	for i, u := range cp.coarse {
		cpts[i] = pts[u]
	}
	g0 := newPointGrid(cpts[:coarseLevel0])
	g1 := newPointGrid(cpts)
	var bd [coarseNear]float64
	for u := 0; u < U; u++ {
		switch cp.level[u] {
		case 1:
			g0.nearest(pts[u], cp.above[u][:], bd[:])
		case 2:
			g1.nearest(pts[u], cp.above[u][:], bd[:])
		}
		row := dists[u*nJ : (u+1)*nJ]
		a, b := int32(0), int32(-1)
		for j := 1; j < nJ; j++ {
			switch {
			case row[j] < row[a]:
				a, b = int32(j), a
			case b < 0 || row[j] < row[b]:
				b = int32(j)
			}
		}
		cp.nearest[u] = [2]int32{a, b}
	}
	return cp
}

// pointGrid buckets points in a uniform grid for k-nearest-neighbour queries.
type pointGrid struct {
	pts   []vecmath.Vec3
	lo    vecmath.Vec3
	cell  float64
	dim   [3]int
	start []int32 // cell c holds idx[start[c]:start[c+1]]
	idx   []int32
}

// newPointGrid builds a grid of about two points per occupied cell for points
// spread over a surface.
func newPointGrid(pts []vecmath.Vec3) *pointGrid {
	g := &pointGrid{pts: pts}
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		for a := 0; a < 3; a++ {
			lo[a], hi[a] = math.Min(lo[a], p[a]), math.Max(hi[a], p[a])
		}
	}
	ext := hi.Sub(lo)
	// Surface points: cells sized so that the bounding box's largest face holds
	// about half as many cells as points.
	area := math.Max(ext[0]*ext[1], math.Max(ext[1]*ext[2], ext[0]*ext[2]))
	g.cell = math.Sqrt(2 * area / float64(len(pts)))
	if !(g.cell > 0) {
		g.cell = math.Max(ext[0], math.Max(ext[1], math.Max(ext[2], 1e-9)))
	}
	g.lo = lo
	cells := 1
	for a := 0; a < 3; a++ {
		g.dim[a] = min(int(ext[a]/g.cell)+1, 256)
		cells *= g.dim[a]
	}
	g.start = make([]int32, cells+1)
	cellOf := make([]int32, len(pts))
	for i, p := range pts {
		c := g.cellIndex(g.coords(p))
		cellOf[i] = int32(c)
		g.start[c+1]++
	}
	for c := 0; c < cells; c++ {
		g.start[c+1] += g.start[c]
	}
	fillPos := append([]int32(nil), g.start[:cells]...)
	g.idx = make([]int32, len(pts))
	for i, c := range cellOf {
		g.idx[fillPos[c]] = int32(i)
		fillPos[c]++
	}
	return g
}

func (g *pointGrid) coords(p vecmath.Vec3) [3]int {
	var c [3]int
	for a := 0; a < 3; a++ {
		c[a] = min(max(int((p[a]-g.lo[a])/g.cell), 0), g.dim[a]-1)
	}
	return c
}

func (g *pointGrid) cellIndex(c [3]int) int { return (c[2]*g.dim[1]+c[1])*g.dim[0] + c[0] }

// nearest writes the indices of the len(out) points nearest to x to out, nearest
// first (ties in index order within a cell), and their squared distances to bd.
// The grid must hold at least len(out) points.
func (g *pointGrid) nearest(x vecmath.Vec3, out []int32, bd []float64) {
	k := len(out)
	for i := range bd[:k] {
		bd[i] = math.Inf(1)
	}
	c := g.coords(x)
	maxRing := max(g.dim[0], g.dim[1], g.dim[2])
	for r := 0; r <= maxRing; r++ {
		for z := c[2] - r; z <= c[2]+r; z++ {
			if z < 0 || z >= g.dim[2] {
				continue
			}
			for y := c[1] - r; y <= c[1]+r; y++ {
				if y < 0 || y >= g.dim[1] {
					continue
				}
				onShell := z == c[2]-r || z == c[2]+r || y == c[1]-r || y == c[1]+r
				for xx := c[0] - r; xx <= c[0]+r; xx++ {
					if xx < 0 || xx >= g.dim[0] {
						continue
					}
					if !onShell && xx != c[0]-r && xx != c[0]+r {
						continue // inside the ring: visited before
					}
					ci := g.cellIndex([3]int{xx, y, z})
					for _, i := range g.idx[g.start[ci]:g.start[ci+1]] {
						p := g.pts[i]
						d0, d1, d2 := p[0]-x[0], p[1]-x[1], p[2]-x[2]
						d := d0*d0 + d1*d1 + d2*d2
						if d >= bd[k-1] {
							continue
						}
						s := k - 1
						for s > 0 && bd[s-1] > d {
							bd[s], out[s] = bd[s-1], out[s-1]
							s--
						}
						bd[s], out[s] = d, i
					}
				}
			}
		}
		// Every point beyond ring r is at least r cells away.
		if lim := float64(r) * g.cell; bd[k-1] <= lim*lim {
			return
		}
	}
}
