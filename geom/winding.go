package geom

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// WindingNumber answers inside/outside queries for a triangle mesh by its generalized
// winding number (Jacobson et al. 2013): the signed solid angle the surface subtends at
// a point, over 4π. It is ≈1 inside a closed, outward-oriented surface, ≈0 outside, and
// degrades gracefully on meshes with holes and non-manifold parts. Queries use a BVH
// with a first-order (dipole) far-field expansion per node (Barill et al. 2018) and are
// exact for nearby triangles. A WindingNumber is immutable after construction and safe
// for concurrent use.
type WindingNumber struct {
	bvh *BVH
	// Beta is the far-field acceptance ratio: a node whose cluster radius r is seen
	// from distance d > Beta·r is replaced by its dipole.
	beta float64
}

// DefaultWindingBeta is the far-field acceptance ratio of NewWindingNumber (Barill
// et al. use 2).
const DefaultWindingBeta = 2.0

// NewWindingNumber builds the query structure for m. Triangles with out-of-range
// indices or non-finite positions are ignored. An empty mesh answers 0 everywhere.
func NewWindingNumber(m *character.Mesh) *WindingNumber {
	return &WindingNumber{bvh: NewBVH(m), beta: DefaultWindingBeta}
}

// NewWindingNumberBVH builds the query structure on an existing BVH (sharing it with
// closest-point queries).
func NewWindingNumberBVH(b *BVH) *WindingNumber {
	return &WindingNumber{bvh: b, beta: DefaultWindingBeta}
}

// BVH returns the hierarchy the queries run on.
func (w *WindingNumber) BVH() *BVH { return w.bvh }

// At returns the generalized winding number of the mesh at p: ≈1 inside, ≈0 outside.
func (w *WindingNumber) At(p vecmath.Vec3) float64 {
	b := w.bvh
	if len(b.nodes) == 0 {
		return 0
	}
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	sum := 0.0
	beta2 := w.beta * w.beta
	for sp > 0 {
		sp--
		n := &b.nodes[stack[sp]]
		d := n.centroid.Sub(p)
		d2 := d.Dot(d)
		if n.span > 1 && d2 > beta2*n.radius2 {
			// Far field: the cluster acts as a dipole of strength Σ area·normal at its
			// area-weighted centroid.
			sum += d.Dot(n.areaNormal) / (d2 * math.Sqrt(d2))
			continue
		}
		if n.count > 0 {
			for i := n.first; i < n.first+n.count; i++ {
				t := &b.corners[i]
				sum += solidAngle(t[0], t[1], t[2], p)
			}
			continue
		}
		if sp+2 > len(stack) {
			// Deeper than any balanced tree we build; fall back to exact sums.
			sum += b.exactSubtree(n, p)
			continue
		}
		stack[sp] = n.left
		stack[sp+1] = n.left + 1
		sp += 2
	}
	return sum / (4 * math.Pi)
}

// Inside reports whether p is inside the mesh: At(p) > 0.5.
func (w *WindingNumber) Inside(p vecmath.Vec3) bool { return w.At(p) > 0.5 }

// exactSubtree sums exact solid angles of every triangle under n.
func (b *BVH) exactSubtree(n *bvhNode, p vecmath.Vec3) float64 {
	sum := 0.0
	for i := n.first; i < n.first+n.span; i++ {
		t := &b.corners[i]
		sum += solidAngle(t[0], t[1], t[2], p)
	}
	return sum
}

// solidAngle returns the signed solid angle of triangle (a,b,c) seen from p
// (Van Oosterom & Strackee 1983); positive when p is behind the triangle's
// counter-clockwise front face.
func solidAngle(a, b, c, p vecmath.Vec3) float64 {
	a, b, c = a.Sub(p), b.Sub(p), c.Sub(p)
	la, lb, lc := a.Len(), b.Len(), c.Len()
	num := a.Dot(b.Cross(c))
	den := la*lb*lc + a.Dot(b)*lc + b.Dot(c)*la + c.Dot(a)*lb
	if num == 0 && den == 0 {
		return 0
	}
	return 2 * math.Atan2(num, den)
}

// BruteForceWindingNumber returns the exact generalized winding number of m at p by
// summing every triangle's solid angle: O(triangles) per query. It is the reference
// that the accelerated WindingNumber is tested against.
func BruteForceWindingNumber(m *character.Mesh, p vecmath.Vec3) float64 {
	nv := len(m.Positions)
	sum := 0.0
	for _, t := range m.Triangles {
		if t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= nv || t[1] >= nv || t[2] >= nv {
			continue
		}
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		if !a.IsFinite() || !b.IsFinite() || !c.IsFinite() {
			continue
		}
		sum += solidAngle(a, b, c, p)
	}
	return sum / (4 * math.Pi)
}
