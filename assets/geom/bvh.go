package geom

import (
	"math"

	"github.com/rigkit/rigkit/assets"
)

// BVH is a bounding volume hierarchy over a mesh's triangles. Each node also keeps the
// first-order (dipole) moments the fast winding number needs. It is immutable after
// NewBVH and safe for concurrent use.
type BVH struct {
	verts []assets.Vec3
	tris  [][3]int // reordered so every subtree is a contiguous run
	ids   []int    // ids[i] is the original index of tris[i]
	nodes []bvhNode
}

type bvhNode struct {
	lo, hi      assets.Vec3
	first, span int32 // the subtree's triangles: tris[first : first+span]
	count       int32 // span for a leaf, 0 for an inner node
	left        int32 // inner node: children are left and left+1
	centroid    assets.Vec3
	areaNormal  assets.Vec3 // Σ area·unit normal of the subtree's triangles
	radius2     float64     // squared radius about centroid enclosing all its vertices
}

const bvhLeafSize = 8

// NewBVH builds the hierarchy. Triangles with out-of-range indices or non-finite
// corners are left out.
func NewBVH(m *assets.Mesh) *BVH {
	b := &BVH{verts: m.Positions}
	nv := len(m.Positions)
	for i, t := range m.Triangles {
		ok := true
		for _, v := range t {
			if v < 0 || v >= nv || !m.Positions[v].IsFinite() {
				ok = false
				break
			}
		}
		if ok {
			b.tris = append(b.tris, t)
			b.ids = append(b.ids, i)
		}
	}
	if len(b.tris) == 0 {
		return b
	}
	bd := &builder{b: b, order: make([]int32, len(b.tris)), cent: make([]assets.Vec3, len(b.tris)), info: make([]triInfo, len(b.tris))}
	bd.area = make([]float64, 1, 4*len(b.tris)/bvhLeafSize+2)
	bd.weighted = make([]assets.Vec3, 1, cap(bd.area))
	bd.flat = make([]assets.Vec3, 1, cap(bd.area))
	for i, t := range b.tris {
		p, q, r := b.verts[t[0]], b.verts[t[1]], b.verts[t[2]]
		ti := &bd.info[i]
		for k := 0; k < 3; k++ {
			ti.lo[k] = math.Min(p[k], math.Min(q[k], r[k]))
			ti.hi[k] = math.Max(p[k], math.Max(q[k], r[k]))
		}
		bd.cent[i] = p.Add(q).Add(r).Scale(1.0 / 3)
		ti.areaNormal = q.Sub(p).Cross(r.Sub(p)).Scale(0.5)
		ti.area = ti.areaNormal.Len()
		bd.order[i] = int32(i)
	}
	b.nodes = make([]bvhNode, 1, 4*len(b.tris)/bvhLeafSize+2)
	bd.node(0, 0, len(b.tris))
	// Lay the triangles out in tree order.
	tris, ids := make([][3]int, len(b.tris)), make([]int, len(b.tris))
	for i, ti := range bd.order {
		tris[i], ids[i] = b.tris[ti], b.ids[ti]
	}
	b.tris, b.ids = tris, ids
	return b
}

// NumTriangles returns how many triangles the hierarchy holds.
func (b *BVH) NumTriangles() int { return len(b.tris) }

// Bounds returns the bounding box of every triangle in the hierarchy.
func (b *BVH) Bounds() (lo, hi assets.Vec3) {
	if len(b.nodes) == 0 {
		return
	}
	return b.nodes[0].lo, b.nodes[0].hi
}

// triInfo is what the build needs of one triangle, computed once.
type triInfo struct {
	lo, hi     assets.Vec3 // bounding box
	areaNormal assets.Vec3 // area · unit normal
	area       float64
}

// builder holds the per-triangle data of one NewBVH call.
type builder struct {
	b     *BVH
	order []int32       // triangle indices, permuted so every subtree is a contiguous run
	cent  []assets.Vec3 // centroid of each triangle (compact, for the splits)
	info  []triInfo
	// Per node, for combining children: total area and Σ area·centroid, Σ centroid.
	area           []float64
	weighted, flat []assets.Vec3
}

// selectNth reorders order (indices into cent) so that element k is the one a sort by
// centroid coordinate axis would put there, every element before it is not greater
// and every element after not smaller (quickselect with a three-way partition, so
// runs of equal keys, common in regular meshes, stay linear instead of degrading to
// quadratic time).
func selectNth(order []int32, cent []assets.Vec3, axis, k int) {
	key := func(i int) float64 { return cent[order[i]][axis] }
	lo, hi := 0, len(order)-1
	for hi > lo {
		// Median of three as the pivot value.
		m := lo + (hi-lo)/2
		a, b, c := key(lo), key(m), key(hi)
		pivot := math.Max(math.Min(a, b), math.Min(math.Max(a, b), c))
		// Dutch flag: [lo,lt) < pivot, [lt,i) == pivot, (gt,hi] > pivot.
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch v := key(i); {
			case v < pivot:
				order[lt], order[i] = order[i], order[lt]
				lt++
				i++
			case v > pivot:
				order[i], order[gt] = order[gt], order[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return
		}
	}
}

// node fills node ni over the triangles order[first:end], recursing for inner nodes.
// Bounds, area normals and area-weighted centroids of an inner node combine its
// children's; only the split and the exact radius look at every triangle per level.
func (bd *builder) node(ni, first, end int) {
	b := bd.b
	run := bd.order[first:end]
	b.nodes[ni].first, b.nodes[ni].span = int32(first), int32(end-first)
	for len(bd.area) < len(b.nodes) { // grown with the nodes, a pair at a time
		bd.area = append(bd.area, 0, 0)
		bd.weighted = append(bd.weighted, assets.Vec3{}, assets.Vec3{})
		bd.flat = append(bd.flat, assets.Vec3{}, assets.Vec3{})
	}
	if end-first <= bvhLeafSize {
		inf := math.Inf(1)
		lo, hi := assets.Vec3{inf, inf, inf}, assets.Vec3{-inf, -inf, -inf}
		var areaNormal, weighted, flat assets.Vec3
		area := 0.0
		for _, ti := range run {
			t, c := &bd.info[ti], bd.cent[ti]
			for k := 0; k < 3; k++ {
				if t.lo[k] < lo[k] {
					lo[k] = t.lo[k]
				}
				if t.hi[k] > hi[k] {
					hi[k] = t.hi[k]
				}
				areaNormal[k] += t.areaNormal[k]
				weighted[k] += t.area * c[k]
				flat[k] += c[k]
			}
			area += t.area
		}
		n := &b.nodes[ni]
		n.lo, n.hi, n.areaNormal, n.count = lo, hi, areaNormal, n.span
		bd.area[ni], bd.weighted[ni], bd.flat[ni] = area, weighted, flat
	} else {
		inf := math.Inf(1)
		clo, chi := assets.Vec3{inf, inf, inf}, assets.Vec3{-inf, -inf, -inf}
		for _, ti := range run {
			c := bd.cent[ti]
			for k := 0; k < 3; k++ {
				if c[k] < clo[k] {
					clo[k] = c[k]
				}
				if c[k] > chi[k] {
					chi[k] = c[k]
				}
			}
		}
		axis := 0
		for k := 1; k < 3; k++ {
			if chi[k]-clo[k] > chi[axis]-clo[axis] {
				axis = k
			}
		}
		mid := (first + end) / 2
		selectNth(run, bd.cent, axis, mid-first)
		left := len(b.nodes)
		b.nodes[ni].left = int32(left)
		b.nodes = append(b.nodes, bvhNode{}, bvhNode{})
		bd.node(left, first, mid)
		bd.node(left+1, mid, end)
		l, r := &b.nodes[left], &b.nodes[left+1]
		n := &b.nodes[ni]
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
	n := &b.nodes[ni]
	if bd.area[ni] > 0 {
		n.centroid = bd.weighted[ni].Scale(1 / bd.area[ni])
	} else {
		n.centroid = bd.flat[ni].Scale(1 / float64(end-first))
	}
	c := n.centroid
	r2 := 0.0
	for _, ti := range run {
		for _, v := range b.tris[ti] {
			p := b.verts[v]
			dx, dy, dz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
			if d := dx*dx + dy*dy + dz*dz; d > r2 {
				r2 = d
			}
		}
	}
	n.radius2 = r2
}

// boxDist2 returns the squared distance from p to the box [lo,hi] (0 inside).
func boxDist2(lo, hi, p assets.Vec3) float64 {
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
	Point    assets.Vec3 // closest point on the surface
	Dist     float64     // distance from the query point to Point
	Triangle int         // index into the mesh's Triangles
}

// Closest returns the point of the mesh surface nearest to p. ok is false for a mesh
// without valid triangles.
func (b *BVH) Closest(p assets.Vec3) (hit ClosestHit, ok bool) {
	return b.ClosestWithin(p, math.Inf(1))
}

// ClosestWithin is Closest limited to surface points closer than maxDist; ok is false
// when there is none.
func (b *BVH) ClosestWithin(p assets.Vec3, maxDist float64) (hit ClosestHit, ok bool) {
	if len(b.nodes) == 0 {
		return hit, false
	}
	best2 := maxDist * maxDist
	bestTri := -1
	var bestPt assets.Vec3
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
				t := b.tris[i]
				q := ClosestOnTriangle(p, b.verts[t[0]], b.verts[t[1]], b.verts[t[2]])
				d := q.Sub(p)
				if d2 := d.Dot(d); d2 < best2 {
					best2, bestTri, bestPt = d2, b.ids[i], q
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
func ClosestOnTriangle(p, a, b, c assets.Vec3) assets.Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	if n := ab.Cross(ac); n.Dot(n) <= 1e-30 {
		best := closestOnEdge(p, a, b)
		for _, q := range []assets.Vec3{closestOnEdge(p, b, c), closestOnEdge(p, c, a)} {
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
		for _, q := range [2]assets.Vec3{b, c} {
			if q.Sub(p).Len() < best.Sub(p).Len() {
				best = q
			}
		}
		return best
	}
	v, w := vb/denom, vc/denom
	return a.Add(ab.Scale(v)).Add(ac.Scale(w))
}

// closestOnEdge returns the point of segment ab nearest to p.
func closestOnEdge(p, a, b assets.Vec3) assets.Vec3 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return a
	}
	t := p.Sub(a).Dot(ab) / l2
	return a.Add(ab.Scale(math.Max(0, math.Min(1, t))))
}
