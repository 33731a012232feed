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
	cent := make([]assets.Vec3, len(b.tris))
	for i, t := range b.tris {
		cent[i] = b.verts[t[0]].Add(b.verts[t[1]]).Add(b.verts[t[2]]).Scale(1.0 / 3)
	}
	b.nodes = make([]bvhNode, 1, 2*len(b.tris)/bvhLeafSize+2)
	b.build(0, 0, len(b.tris), cent)
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

type triOrder struct {
	tris [][3]int
	ids  []int
	cent []assets.Vec3
	axis int
}

func (o triOrder) Len() int           { return len(o.tris) }
func (o triOrder) Less(i, j int) bool { return o.cent[i][o.axis] < o.cent[j][o.axis] }
func (o triOrder) Swap(i, j int) {
	o.tris[i], o.tris[j] = o.tris[j], o.tris[i]
	o.ids[i], o.ids[j] = o.ids[j], o.ids[i]
	o.cent[i], o.cent[j] = o.cent[j], o.cent[i]
}

// selectNth reorders o so that element k is the one a sort would put there, every
// element before it is not greater and every element after not smaller (quickselect;
// the split a median sort gives, in linear expected time).
func selectNth(o triOrder, k int) {
	lo, hi := 0, o.Len()-1
	for hi > lo {
		// Median of three as the pivot, moved to hi.
		m := lo + (hi-lo)/2
		if o.Less(m, lo) {
			o.Swap(m, lo)
		}
		if o.Less(hi, lo) {
			o.Swap(hi, lo)
		}
		if o.Less(m, hi) {
			o.Swap(m, hi)
		}
		pivot := o.cent[hi][o.axis]
		i := lo
		for j := lo; j < hi; j++ {
			if o.cent[j][o.axis] < pivot {
				o.Swap(i, j)
				i++
			}
		}
		o.Swap(i, hi)
		switch {
		case k == i:
			return
		case k < i:
			hi = i - 1
		default:
			lo = i + 1
		}
	}
}

func (b *BVH) build(ni, first, end int, cent []assets.Vec3) {
	n := &b.nodes[ni]
	n.first, n.span = int32(first), int32(end-first)
	inf := math.Inf(1)
	n.lo = assets.Vec3{inf, inf, inf}
	n.hi = assets.Vec3{-inf, -inf, -inf}
	clo, chi := n.lo, n.hi
	var areaSum float64
	var weighted, plain assets.Vec3
	for i := first; i < end; i++ {
		t := b.tris[i]
		a, bb, c := b.verts[t[0]], b.verts[t[1]], b.verts[t[2]]
		for _, p := range [3]assets.Vec3{a, bb, c} {
			for k := 0; k < 3; k++ {
				n.lo[k] = math.Min(n.lo[k], p[k])
				n.hi[k] = math.Max(n.hi[k], p[k])
			}
		}
		for k := 0; k < 3; k++ {
			clo[k] = math.Min(clo[k], cent[i][k])
			chi[k] = math.Max(chi[k], cent[i][k])
		}
		an := bb.Sub(a).Cross(c.Sub(a)).Scale(0.5)
		n.areaNormal = n.areaNormal.Add(an)
		area := an.Len()
		areaSum += area
		weighted = weighted.Add(cent[i].Scale(area))
		plain = plain.Add(cent[i])
	}
	if areaSum > 0 {
		n.centroid = weighted.Scale(1 / areaSum)
	} else {
		n.centroid = plain.Scale(1 / float64(end-first))
	}
	for i := first; i < end; i++ {
		for _, v := range b.tris[i] {
			d := b.verts[v].Sub(n.centroid)
			n.radius2 = math.Max(n.radius2, d.Dot(d))
		}
	}
	if end-first <= bvhLeafSize {
		n.count = n.span
		return
	}
	axis := 0
	for k := 1; k < 3; k++ {
		if chi[k]-clo[k] > chi[axis]-clo[axis] {
			axis = k
		}
	}
	mid := (first + end) / 2
	selectNth(triOrder{b.tris[first:end], b.ids[first:end], cent[first:end], axis}, mid-first)
	left := int32(len(b.nodes))
	n.left = left
	b.nodes = append(b.nodes, bvhNode{}, bvhNode{})
	b.build(int(left), first, mid, cent)
	b.build(int(left)+1, mid, end, cent)
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
