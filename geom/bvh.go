package geom

import (
	"math"
	"math/bits"
	"sort"
	"sync"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// BVH is a bounding volume hierarchy over a mesh's triangles. Each node also keeps the
// first-order (dipole) moments the fast winding number needs. It is immutable after
// NewBVH and safe for concurrent use.
type BVH struct {
	corners [][3]vecmath.Vec3 // each triangle's corners, in tree order: every subtree is a contiguous run
	ids     []int32           // ids[i] is the original index of corners[i]
	nodes   []bvhNode
}

type bvhNode struct {
	lo, hi      vecmath.Vec3
	first, span int32 // the subtree's triangles: corners[first : first+span]
	count       int32 // span for a leaf, 0 for an inner node
	left        int32 // inner node: children are left and left+1
	centroid    vecmath.Vec3
	areaNormal  vecmath.Vec3 // Σ area·unit normal of the subtree's triangles
	radius2     float64      // squared radius about centroid enclosing all its vertices
}

const bvhLeafSize = 8

// NewBVH builds the hierarchy. Triangles with out-of-range indices or non-finite
// corners are left out.
func NewBVH(m *character.Mesh) *BVH {
	b := &BVH{}
	nv := len(m.Positions)
	finite := make([]bool, nv)
	for i, p := range m.Positions {
		finite[i] = p.IsFinite()
	}
	// The build permutes items physically (centroid and triangle together), so every
	// pass over a node's run reads memory in order. Its scratch arrays are pooled:
	// scoring prepares a mesh per request, and reusing them saves zeroing and
	// faulting in fresh memory every time.
	sc := buildPool.Get().(*buildScratch)
	defer buildPool.Put(sc)
	items := sc.items[:0]
	for i, t := range m.Triangles {
		ok := true
		for _, v := range t {
			if v < 0 || v >= nv || !finite[v] {
				ok = false
				break
			}
		}
		if ok {
			p, q, r := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
			items = append(items, buildItem{c: p.Add(q).Add(r).Scale(1.0 / 3), tri: int32(i)})
		}
	}
	sc.items = items
	if len(items) == 0 {
		return b
	}
	n := len(items)
	b.corners = make([][3]vecmath.Vec3, n)
	b.ids = make([]int32, n)
	bd := &builder{b: b, m: m}
	bd.items, bd.codes = sc.sortMorton()
	// At most 2n-1 nodes (leaves of one triangle); the tree is copied out at its size.
	bd.nodes = grow(sc.nodes, 2*n)[:1]
	bd.nodes[0] = bvhNode{}
	bd.area = grow(sc.area, 2*n)
	bd.weighted = grow(sc.weighted, 2*n)
	bd.flat = grow(sc.flat, 2*n)
	bd.node(0, 0, n)
	b.nodes = append([]bvhNode(nil), bd.nodes...)
	sc.nodes, sc.area, sc.weighted, sc.flat = bd.nodes, bd.area, bd.weighted, bd.flat
	return b
}

// buildScratch holds NewBVH's temporary arrays between builds.
type buildScratch struct {
	items, sorted  []buildItem
	keys, tmp      []uint64
	codes          []uint32
	nodes          []bvhNode
	area           []float64
	weighted, flat []vecmath.Vec3
}

var buildPool = sync.Pool{New: func() any { return new(buildScratch) }}

// grow returns s resized to n, reallocated only when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// NumTriangles returns how many triangles the hierarchy holds.
func (b *BVH) NumTriangles() int { return len(b.corners) }

// Bounds returns the bounding box of every triangle in the hierarchy.
func (b *BVH) Bounds() (lo, hi vecmath.Vec3) {
	if len(b.nodes) == 0 {
		return
	}
	return b.nodes[0].lo, b.nodes[0].hi
}

// buildItem is one triangle during the build: its centroid and original index.
type buildItem struct {
	c   vecmath.Vec3
	tri int32
}

// builder holds the per-triangle data of one NewBVH call.
type builder struct {
	codes []uint32 // Morton codes of items' centroids, in items' order
	b     *BVH
	m     *character.Mesh
	items []buildItem // sorted so every subtree is a contiguous run
	nodes []bvhNode
	// Per node, for combining children: total area and Σ area·centroid, Σ centroid
	// (sized for every node up front).
	area           []float64
	weighted, flat []vecmath.Vec3
}

// node fills node ni over the triangles items[first:end], recursing for inner nodes.
// Bounds, area normals and area-weighted centroids of an inner node combine its
// children's; only the split and the exact radius look at every triangle per level
// (the radius at the corners stored in tree order by the leaves).
func (bd *builder) node(ni, first, end int) {
	b := bd.b
	run := bd.items[first:end]
	bd.nodes[ni].first, bd.nodes[ni].span = int32(first), int32(end-first)
	if end-first <= bvhLeafSize {
		inf := math.Inf(1)
		lo, hi := vecmath.Vec3{inf, inf, inf}, vecmath.Vec3{-inf, -inf, -inf}
		var areaNormal, weighted, flat vecmath.Vec3
		area := 0.0
		for i, it := range run {
			t := bd.m.Triangles[it.tri]
			p, q, r := bd.m.Positions[t[0]], bd.m.Positions[t[1]], bd.m.Positions[t[2]]
			b.corners[first+i] = [3]vecmath.Vec3{p, q, r}
			b.ids[first+i] = it.tri
			an := q.Sub(p).Cross(r.Sub(p)).Scale(0.5)
			a := an.Len()
			c := it.c
			for k := 0; k < 3; k++ {
				lo[k] = math.Min(lo[k], math.Min(p[k], math.Min(q[k], r[k])))
				hi[k] = math.Max(hi[k], math.Max(p[k], math.Max(q[k], r[k])))
				areaNormal[k] += an[k]
				weighted[k] += a * c[k]
				flat[k] += c[k]
			}
			area += a
		}
		n := &bd.nodes[ni]
		n.lo, n.hi, n.areaNormal, n.count = lo, hi, areaNormal, n.span
		bd.area[ni], bd.weighted[ni], bd.flat[ni] = area, weighted, flat
	} else {
		mid := splitMorton(bd.codes, first, end)
		left := len(bd.nodes)
		bd.nodes[ni].left = int32(left)
		bd.nodes = append(bd.nodes, bvhNode{}, bvhNode{})
		bd.node(left, first, mid)
		bd.node(left+1, mid, end)
		l, r := &bd.nodes[left], &bd.nodes[left+1]
		n := &bd.nodes[ni]
		n.lo, n.hi = l.lo, l.hi
		for k := 0; k < 3; k++ {
			if r.lo[k] < n.lo[k] {
				n.lo[k] = r.lo[k]
			}
			if r.hi[k] > n.hi[k] {
				n.hi[k] = r.hi[k]
			}
		}
		n.areaNormal = l.areaNormal.Add(r.areaNormal)
		bd.area[ni] = bd.area[left] + bd.area[left+1]
		bd.weighted[ni] = bd.weighted[left].Add(bd.weighted[left+1])
		bd.flat[ni] = bd.flat[left].Add(bd.flat[left+1])
	}
	n := &bd.nodes[ni]
	if bd.area[ni] > 0 {
		n.centroid = bd.weighted[ni].Scale(1 / bd.area[ni])
	} else {
		n.centroid = bd.flat[ni].Scale(1 / float64(end-first))
	}
	c := n.centroid
	r2 := 0.0
	for i := first; i < end; i++ {
		tc := &b.corners[i]
		for k := 0; k < 3; k++ {
			p := &tc[k]
			dx, dy, dz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
			if d := dx*dx + dy*dy + dz*dz; d > r2 {
				r2 = d
			}
		}
	}
	n.radius2 = r2
}

// boxDist2 returns the squared distance from p to the box [lo,hi] (0 inside).
func boxDist2(lo, hi, p vecmath.Vec3) float64 {
	d := 0.0
	for k := 0; k < 3; k++ {
		if p[k] < lo[k] {
			d += (lo[k] - p[k]) * (lo[k] - p[k])
		} else if p[k] > hi[k] {
			d += (p[k] - hi[k]) * (p[k] - hi[k])
		}
	}
	return d
}

// ClosestHit is the answer to a closest-point query.
type ClosestHit struct {
	Point    vecmath.Vec3 // closest point on the surface
	Dist     float64      // distance from the query point to Point
	Triangle int          // index into the mesh's Triangles
}

// Closest returns the point of the mesh surface nearest to p. ok is false for a mesh
// without valid triangles.
func (b *BVH) Closest(p vecmath.Vec3) (hit ClosestHit, ok bool) {
	return b.ClosestWithin(p, math.Inf(1))
}

// ClosestWithin is Closest limited to surface points closer than maxDist; ok is false
// when there is none.
func (b *BVH) ClosestWithin(p vecmath.Vec3, maxDist float64) (hit ClosestHit, ok bool) {
	if len(b.nodes) == 0 {
		return hit, false
	}
	best2 := maxDist * maxDist
	bestTri := -1
	var bestPt vecmath.Vec3
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		n := &b.nodes[stack[sp]]
		if boxDist2(n.lo, n.hi, p) >= best2 {
			continue
		}
		if n.count > 0 || sp+2 > len(stack) {
			for i := n.first; i < n.first+n.span; i++ {
				t := &b.corners[i]
				q := ClosestOnTriangle(p, t[0], t[1], t[2])
				d := q.Sub(p)
				if d2 := d.Dot(d); d2 < best2 {
					best2, bestTri, bestPt = d2, int(b.ids[i]), q
				}
			}
			continue
		}
		l, r := n.left, n.left+1
		dl := boxDist2(b.nodes[l].lo, b.nodes[l].hi, p)
		dr := boxDist2(b.nodes[r].lo, b.nodes[r].hi, p)
		if dl < dr { // visit the nearer child first: push it last
			l, r = r, l
		}
		stack[sp], stack[sp+1] = l, r
		sp += 2
	}
	if bestTri < 0 {
		return hit, false
	}
	return ClosestHit{Point: bestPt, Dist: math.Sqrt(best2), Triangle: bestTri}, true
}

// ClosestOnTriangle returns the point of triangle abc nearest to p (Voronoi-region
// walk, Ericson, Real-Time Collision Detection, 5.1.5). A degenerate (zero-area)
// triangle falls back to the nearest point on its edges.
func ClosestOnTriangle(p, a, b, c vecmath.Vec3) vecmath.Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	if n := ab.Cross(ac); n.Dot(n) <= 1e-30 {
		best := vecmath.ClosestOnSegment(p, a, b)
		for _, q := range []vecmath.Vec3{vecmath.ClosestOnSegment(p, b, c), vecmath.ClosestOnSegment(p, c, a)} {
			if p.Dist(q) < p.Dist(best) {
				best = q
			}
		}
		return best
	}
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return a.Add(ab.Scale(v))
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		w := d2 / (d2 - d6)
		return a.Add(ac.Scale(w))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return b.Add(c.Sub(b).Scale(w))
	}
	denom := va + vb + vc
	if denom == 0 || math.IsNaN(denom) {
		// Degenerate triangle: nearest of its corners.
		best := a
		for _, q := range [2]vecmath.Vec3{b, c} {
			if q.Sub(p).Len() < best.Sub(p).Len() {
				best = q
			}
		}
		return best
	}
	v, w := vb/denom, vc/denom
	return a.Add(ab.Scale(v)).Add(ac.Scale(w))
}

// sortMorton sorts sc.items by the Morton code of their centroids (10 bits per axis
// over the centroids' bounding cube; ties keep their order) and returns the sorted
// items and their codes, both in scratch arrays.
func (sc *buildScratch) sortMorton() ([]buildItem, []uint32) {
	items := sc.items
	inf := math.Inf(1)
	lo, hi := vecmath.Vec3{inf, inf, inf}, vecmath.Vec3{-inf, -inf, -inf}
	for i := range items {
		for k := 0; k < 3; k++ {
			lo[k] = math.Min(lo[k], items[i].c[k])
			hi[k] = math.Max(hi[k], items[i].c[k])
		}
	}
	ext := math.Max(hi[0]-lo[0], math.Max(hi[1]-lo[1], hi[2]-lo[2]))
	scale := 0.0
	if ext > 0 {
		scale = 1023.999 / ext
	}
	keys := grow(sc.keys, len(items))
	for i := range items {
		var code uint32
		for k := 0; k < 3; k++ {
			q := uint32((items[i].c[k] - lo[k]) * scale)
			code |= spread3(q) << (2 - k)
		}
		keys[i] = uint64(code)<<32 | uint64(i)
	}
	// Least-significant-digit radix sort of the 30-bit codes, 15 bits a pass
	// (stable, so equal codes stay in index order).
	tmp := grow(sc.tmp, len(items))
	var count [1 << 15]int32
	for shift := 32; shift < 62; shift += 15 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(1<<15-1)]++
		}
		sum := int32(0)
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & (1<<15 - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	sorted := grow(sc.sorted, len(items))
	codes := grow(sc.codes, len(items))
	for i, k := range keys {
		sorted[i] = items[uint32(k)]
		codes[i] = uint32(k >> 32)
	}
	sc.keys, sc.tmp, sc.sorted, sc.codes = keys, tmp, sorted, codes
	return sorted, codes
}

// spread3 moves the low 10 bits of x to every third bit.
func spread3(x uint32) uint32 {
	x &= 0x3ff
	x = (x | x<<16) & 0x030000ff
	x = (x | x<<8) & 0x0300f00f
	x = (x | x<<4) & 0x030c30c3
	x = (x | x<<2) & 0x09249249
	return x
}

// splitMorton returns where codes[first:end] (sorted) change in their highest
// differing bit, or the middle when they are all equal or the split would leave a
// side empty.
func splitMorton(codes []uint32, first, end int) int {
	a, z := codes[first], codes[end-1]
	if a == z {
		return (first + end) / 2
	}
	bit := uint32(1) << (31 - bits.LeadingZeros32(a^z))
	// First index whose code has bit set (codes share every higher bit).
	i := first + sort.Search(end-first, func(i int) bool { return codes[first+i]&bit != 0 })
	if i <= first || i >= end {
		return (first + end) / 2
	}
	return i
}
