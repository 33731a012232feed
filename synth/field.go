package synth

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// prim is one body part of the implicit surface: a tapered capsule around the
// segment a→b (radius ra at a, rb at b), optionally squashed across one axis.
// It moves with joint owner. Skin weights blend towards the owner's parent near a
// when startBlend is set, and towards joint end near b when end >= 0.
type prim struct {
	a, b       vecmath.Vec3
	ra, rb     float64
	flat       vecmath.Vec3 // unit axis squashed by flatScale; zero for round
	flatScale  float64      // cross-section extent along flat, as a fraction (0,1]
	owner      int
	end        int  // joint at b the weights blend into, or -1
	startBlend bool // blend into parent(owner) near a
	wa, wb     float64
	primShape
}

// primShape is what prepare derives once from a prim's segment and radii, for dist
// and axial to reuse at every sample.
type primShape struct {
	ab      vecmath.Vec3
	length  float64
	invLen2 float64
	k       float64 // smooth-min radius
	lip     float64 // Lipschitz bound of dist
}

func (p *prim) prepare(smooth float64) {
	p.ab = p.b.Sub(p.a)
	l2 := p.ab.Dot(p.ab)
	p.length = math.Sqrt(l2)
	if l2 > 0 {
		p.invLen2 = 1 / l2
	}
	if p.flatScale <= 0 || p.flatScale > 1 {
		p.flatScale = 1
	}
	p.k = smooth * math.Min(p.ra, p.rb) * p.flatScale
	p.lip = 1
	if p.length > 0 {
		p.lip += math.Abs(p.rb-p.ra) / p.length
	}
	p.lip /= p.flatScale
}

// dist returns an approximate signed distance from x to the part (negative inside)
// and the segment parameter t in [0,1] of the closest axis point.
func (p *prim) dist(x vecmath.Vec3) (float64, float64) {
	ax, ay, az := x[0]-p.a[0], x[1]-p.a[1], x[2]-p.a[2]
	t := (ax*p.ab[0] + ay*p.ab[1] + az*p.ab[2]) * p.invLen2
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	dx, dy, dz := ax-p.ab[0]*t, ay-p.ab[1]*t, az-p.ab[2]*t
	if p.flatScale != 1 {
		f := (dx*p.flat[0] + dy*p.flat[1] + dz*p.flat[2]) * (1/p.flatScale - 1)
		dx, dy, dz = dx+p.flat[0]*f, dy+p.flat[1]*f, dz+p.flat[2]*f
	}
	return math.Sqrt(dx*dx+dy*dy+dz*dz) - (p.ra + (p.rb-p.ra)*t), t
}

// axial returns the signed distance of x along the axis from a (not clamped).
func (p *prim) axial(x vecmath.Vec3) float64 {
	if p.length == 0 {
		return 0
	}
	return x.Sub(p.a).Dot(p.ab) / p.length
}

// smin is the polynomial smooth minimum with blend radius k.
func smin(a, b, k float64) float64 {
	if k <= 0 {
		return math.Min(a, b)
	}
	h := k - math.Abs(a-b)
	if h <= 0 {
		return math.Min(a, b)
	}
	h /= k
	return math.Min(a, b) - h*h*k*0.25
}

// fieldAt evaluates the blended field at x over the listed parts.
func fieldAt(prims []prim, list []int32, x vecmath.Vec3) float64 {
	f := math.Inf(1)
	for _, i := range list {
		d, _ := prims[i].dist(x)
		f = smin(f, d, prims[i].k)
	}
	return f
}

// cube corner c has offsets (c&1, c>>1&1, c>>2&1); cube edges join corners that
// differ in one bit.
var (
	cubeEdges [12][2]int
	edgeIndex [8][8]int
	// cubeFaces lists each face's corners counter-clockwise seen from outside.
	cubeFaces [6][4]int
)

func init() {
	n := 0
	for c := 0; c < 8; c++ {
		for bit := 0; bit < 3; bit++ {
			d := c | 1<<bit
			if d != c {
				cubeEdges[n] = [2]int{c, d}
				edgeIndex[c][d], edgeIndex[d][c] = n, n
				n++
			}
		}
	}
	f := 0
	for axis := 0; axis < 3; axis++ {
		u, v := (axis+1)%3, (axis+2)%3
		for side := 0; side < 2; side++ {
			var q [4]int
			for i, uv := range [4][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				q[i] = side<<axis | uv[0]<<u | uv[1]<<v
			}
			// (u, v, axis) is right-handed, so (0,0)→(1,0)→(1,1) turns about +axis.
			if side == 0 {
				q[1], q[3] = q[3], q[1]
			}
			cubeFaces[f] = q
			f++
		}
	}
}

// grid is a regular lattice of field samples over a box.
type grid struct {
	origin     vecmath.Vec3
	h          float64
	nx, ny, nz int // points per axis
	val        []float32
	done       []bool
}

func (g *grid) index(i, j, k int) int { return (k*g.ny+j)*g.nx + i }

func (g *grid) point(i, j, k int) vecmath.Vec3 {
	return vecmath.Vec3{g.origin[0] + float64(i)*g.h, g.origin[1] + float64(j)*g.h, g.origin[2] + float64(k)*g.h}
}

// surface is a polygonized field: the mesh plus, per vertex, the block whose part
// list covers it (for weight evaluation).
type surface struct {
	positions []vecmath.Vec3
	triangles [][3]int
	vertBlock []int32
	blocks    [][]int32 // part lists per block
}

const blockCells = 4

// polygonize extracts the zero set of the smooth union of prims on a grid of cell
// size h with a table-free marching cubes: each cube's face segments are linked
// into loops, and ambiguous faces are split by the face-centre average, which both
// cubes sharing the face compute alike, so the result is closed and edge-manifold.
func polygonize(prims []prim, h float64) *surface {
	g, nb, lip := fieldGrid(prims, h)
	lo := g.origin
	bh := h * blockCells
	halfDiag := bh * math.Sqrt(3) / 2
	lists := binParts(prims, lo, nb, h, lip)

	s := &surface{blocks: make([][]int32, 0, 256)}
	edgeVert := make(map[int64]int32, 4096)
	var corner [8]float32
	var cidx [8]int
	var loopNext [12]int
	var loop []int
	for bz := 0; bz < nb[2]; bz++ {
		for by := 0; by < nb[1]; by++ {
			for bx := 0; bx < nb[0]; bx++ {
				list := lists[(bz*nb[1]+by)*nb[0]+bx]
				if len(list) == 0 {
					continue
				}
				c := lo.Add(vecmath.Vec3{(float64(bx) + 0.5) * bh, (float64(by) + 0.5) * bh, (float64(bz) + 0.5) * bh})
				kept, ok := keptParts(prims, list, c, lip, halfDiag, h)
				if !ok {
					continue // no zero crossing can reach into this block
				}
				blockID := int32(len(s.blocks))
				s.blocks = append(s.blocks, kept)
				i0, j0, k0 := bx*blockCells, by*blockCells, bz*blockCells
				for k := k0; k <= k0+blockCells; k++ {
					for j := j0; j <= j0+blockCells; j++ {
						for i := i0; i <= i0+blockCells; i++ {
							gi := g.index(i, j, k)
							if !g.done[gi] {
								g.val[gi] = float32(fieldAt(prims, kept, g.point(i, j, k)))
								g.done[gi] = true
							}
						}
					}
				}
				for k := k0; k < k0+blockCells; k++ {
					for j := j0; j < j0+blockCells; j++ {
						for i := i0; i < i0+blockCells; i++ {
							inside := 0
							for q := 0; q < 8; q++ {
								cidx[q] = g.index(i+q&1, j+q>>1&1, k+q>>2&1)
								corner[q] = g.val[cidx[q]]
								if corner[q] < 0 {
									inside |= 1 << q
								}
							}
							if inside == 0 || inside == 255 {
								continue
							}
							if !cubeLoops(corner, inside, &loopNext) {
								continue
							}
							var vid [12]int32
							for e := 0; e < 12; e++ {
								if loopNext[e] < 0 {
									continue
								}
								a, b := cubeEdges[e][0], cubeEdges[e][1]
								axis := 0
								for (a^b)>>axis != 1 {
									axis++
								}
								key := int64(cidx[a])*3 + int64(axis)
								v, ok := edgeVert[key]
								if !ok {
									va, vb := float64(corner[a]), float64(corner[b])
									t := va / (va - vb)
									t = math.Min(0.95, math.Max(0.05, t))
									pa := g.point(i+a&1, j+a>>1&1, k+a>>2&1)
									pb := g.point(i+b&1, j+b>>1&1, k+b>>2&1)
									v = int32(len(s.positions))
									s.positions = append(s.positions, pa.Lerp(pb, t))
									s.vertBlock = append(s.vertBlock, blockID)
									edgeVert[key] = v
								}
								vid[e] = v
							}
							loop = emitLoops(s, vid, &loopNext, loop)
						}
					}
				}
			}
		}
	}
	return s
}

// fieldGrid sizes the sample grid: the parts' padded bounding box in whole blocks of
// blockCells cells, plus the largest Lipschitz factor of the parts (at least 1),
// which bounds how fast the field can change between samples.
func fieldGrid(prims []prim, h float64) (g *grid, nb [3]int, lip float64) {
	lo := vecmath.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Scale(-1)
	lip = 1.0
	for i := range prims {
		p := &prims[i]
		r := math.Max(p.ra, p.rb)
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], math.Min(p.a[a], p.b[a])-r)
			hi[a] = math.Max(hi[a], math.Max(p.a[a], p.b[a])+r)
		}
		lip = math.Max(lip, p.lip)
	}
	pad := 2 * h
	lo = lo.Sub(vecmath.Vec3{pad, pad, pad})
	hi = hi.Add(vecmath.Vec3{pad, pad, pad})
	for a := 0; a < 3; a++ {
		nb[a] = int(math.Ceil((hi[a]-lo[a])/(h*blockCells))) + 1
	}
	g = &grid{origin: lo, h: h, nx: nb[0]*blockCells + 1, ny: nb[1]*blockCells + 1, nz: nb[2]*blockCells + 1}
	g.val = make([]float32, g.nx*g.ny*g.nz)
	g.done = make([]bool, len(g.val))
	return g, nb, lip
}

// binParts lists, per block, the parts whose padded boxes touch it, so each block
// evaluates only the parts that can reach it.
func binParts(prims []prim, lo vecmath.Vec3, nb [3]int, h, lip float64) [][]int32 {
	bh := h * blockCells
	halfDiag := bh * math.Sqrt(3) / 2
	lists := make([][]int32, nb[0]*nb[1]*nb[2])
	for i := range prims {
		p := &prims[i]
		r := math.Max(p.ra, p.rb)/p.flatScale + p.k + 2*lip*h + halfDiag*p.lip
		var b0, b1 [3]int
		for a := 0; a < 3; a++ {
			b0[a] = max(0, int(math.Floor((math.Min(p.a[a], p.b[a])-r-lo[a])/bh)))
			b1[a] = min(nb[a]-1, int(math.Floor((math.Max(p.a[a], p.b[a])+r-lo[a])/bh)))
		}
		for bz := b0[2]; bz <= b1[2]; bz++ {
			for by := b0[1]; by <= b1[1]; by++ {
				for bx := b0[0]; bx <= b1[0]; bx++ {
					bi := (bz*nb[1]+by)*nb[0] + bx
					lists[bi] = append(lists[bi], int32(i))
				}
			}
		}
	}
	return lists
}

// keptParts keeps only the parts of a block's list that can shape the surface
// inside it (block centre c); ok is false when no zero crossing can reach into the
// block at all.
func keptParts(prims []prim, list []int32, c vecmath.Vec3, lip, halfDiag, h float64) (kept []int32, ok bool) {
	fc := math.Inf(1)
	kept = make([]int32, 0, len(list))
	ds := make([]float64, len(list))
	for n, i := range list {
		d, _ := prims[i].dist(c)
		ds[n] = d
		fc = smin(fc, d, prims[i].k)
	}
	if math.Abs(fc) > lip*halfDiag*1.05+h {
		return nil, false
	}
	for n, i := range list {
		p := &prims[i]
		// A part farther than this from every point of the block can neither flip
		// a sample's sign nor move a crossing (see above).
		if ds[n]-p.lip*halfDiag <= 2*lip*h+p.k {
			kept = append(kept, i)
		}
	}
	return kept, true
}

// emitLoops walks each of a cube's loops once (loopNext links its edges) and
// triangulates it; loop is scratch space, returned for reuse.
func emitLoops(s *surface, vid [12]int32, loopNext *[12]int, loop []int) []int {
	var seen [12]bool
	for e := 0; e < 12; e++ {
		if loopNext[e] < 0 || seen[e] {
			continue
		}
		loop = loop[:0]
		for x := e; !seen[x]; x = loopNext[x] {
			seen[x] = true
			loop = append(loop, x)
		}
		emitLoop(s, vid, loop)
	}
	return loop
}

// emitLoop triangulates one cube loop. Loops run counter-clockwise around the
// inside as seen from outside the cube, so triangles are emitted reversed to face
// out of the solid. Quads are split along their shorter diagonal.
func emitLoop(s *surface, vid [12]int32, loop []int) {
	n := len(loop)
	v := func(i int) int { return int(vid[loop[i%n]]) }
	start := 0
	if n == 4 {
		d02 := s.positions[v(0)].Dist(s.positions[v(2)])
		d13 := s.positions[v(1)].Dist(s.positions[v(3)])
		if d13 < d02 {
			start = 1
		}
	}
	for i := 1; i+1 < n; i++ {
		s.triangles = append(s.triangles, [3]int{v(start), v(start + i + 1), v(start + i)})
	}
}

// cubeLoops links the crossing edges of one cube: next[e] is the crossing edge that
// follows e on the boundary of the inside region (inside on the left seen from
// outside the cube), or -1 when edge e is not crossed. It reports false if the links
// are inconsistent, which a valid sign pattern never produces.
func cubeLoops(v [8]float32, inside int, next *[12]int) bool {
	for e := range next {
		next[e] = -1
	}
	in := func(c int) bool { return inside>>c&1 == 1 }
	for _, q := range cubeFaces {
		// Face edge m joins q[m] and q[m+1].
		var up, down []int // neg→pos and pos→neg face edges
		for m := 0; m < 4; m++ {
			a, b := q[m], q[(m+1)%4]
			switch {
			case in(a) && !in(b):
				up = append(up, m)
			case !in(a) && in(b):
				down = append(down, m)
			}
		}
		edge := func(m int) int { return edgeIndex[q[m]][q[(m+1)%4]] }
		switch len(up) {
		case 0:
		case 1:
			if next[edge(up[0])] >= 0 {
				return false
			}
			next[edge(up[0])] = edge(down[0])
		case 2:
			centre := (v[q[0]] + v[q[1]] + v[q[2]] + v[q[3]]) / 4
			for j := 0; j < 4; j++ {
				prev := (j + 3) % 4
				if centre < 0 && !in(q[j]) {
					// Inside connected through the centre: cut off outside corner j.
					next[edge(prev)] = edge(j)
				} else if centre >= 0 && in(q[j]) {
					// Inside corners separated: cut off inside corner j.
					next[edge(j)] = edge(prev)
				}
			}
		}
	}
	// Every crossed edge must have exactly one successor and one predecessor.
	var pred [12]int
	for e := 0; e < 12; e++ {
		a, b := cubeEdges[e][0], cubeEdges[e][1]
		crossed := in(a) != in(b)
		if crossed != (next[e] >= 0) {
			return false
		}
		if next[e] >= 0 {
			pred[next[e]]++
		}
	}
	for e := 0; e < 12; e++ {
		a, b := cubeEdges[e][0], cubeEdges[e][1]
		if (in(a) != in(b)) != (pred[e] == 1) {
			return false
		}
	}
	return true
}

// relax evens out the marching-cubes triangles, whose vertices crowd grid corners
// and leave slivers that flip under the slightest deformation: each round moves
// every vertex halfway to its neighbours' centroid, then back onto the surface
// with one Newton step along the field gradient.
func relax(prims []prim, s *surface, h float64, rounds int) {
	n := len(s.positions)
	start := make([]int32, n+1)
	for _, t := range s.triangles {
		for _, v := range t {
			start[v+1] += 2
		}
	}
	for v := 0; v < n; v++ {
		start[v+1] += start[v]
	}
	nbr := make([]int32, start[n])
	fill := append([]int32(nil), start[:n]...)
	for _, t := range s.triangles {
		for e := 0; e < 3; e++ {
			a, b, c := t[e], t[(e+1)%3], t[(e+2)%3]
			nbr[fill[a]], nbr[fill[a]+1] = int32(b), int32(c)
			fill[a] += 2
		}
	}
	next := make([]vecmath.Vec3, n)
	eps := 0.05 * h
	for r := 0; r < rounds; r++ {
		for v := 0; v < n; v++ {
			p := s.positions[v]
			ns := nbr[start[v]:start[v+1]]
			if len(ns) == 0 {
				next[v] = p
				continue
			}
			var c vecmath.Vec3
			for _, u := range ns {
				c = c.Add(s.positions[u])
			}
			q := p.Lerp(c.Scale(1/float64(len(ns))), 0.5)
			list := s.blocks[s.vertBlock[v]]
			f := fieldAt(prims, list, q)
			g := vecmath.Vec3{
				fieldAt(prims, list, q.Add(vecmath.Vec3{eps, 0, 0})) - f,
				fieldAt(prims, list, q.Add(vecmath.Vec3{0, eps, 0})) - f,
				fieldAt(prims, list, q.Add(vecmath.Vec3{0, 0, eps})) - f,
			}.Scale(1 / eps)
			if g2 := g.Dot(g); g2 > 1e-12 {
				step := g.Scale(-f / g2)
				if l := step.Len(); l > h {
					step = step.Scale(h / l)
				}
				q = q.Add(step)
			}
			next[v] = q
		}
		s.positions, next = next, s.positions
	}
}
