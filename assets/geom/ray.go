package geom

import (
	"math"

	"github.com/rigkit/rigkit/assets"
)

// RayHit is the answer to a ray query.
type RayHit struct {
	T        float64 // distance along the (unit) direction
	Triangle int     // index into the mesh's Triangles
	// Front reports whether the ray met the triangle's counter-clockwise front face.
	Front bool
}

// Ray returns the nearest triangle hit by the ray origin + t·dir with tMin < t < tMax.
// dir need not be unit length; T is then in units of |dir|. ok is false on a miss.
func (b *BVH) Ray(origin, dir assets.Vec3, tMin, tMax float64) (hit RayHit, ok bool) {
	if len(b.nodes) == 0 {
		return hit, false
	}
	var inv assets.Vec3
	for k := 0; k < 3; k++ {
		inv[k] = 1 / dir[k] // ±Inf for a zero component is what the slab test wants
	}
	best := tMax
	bestTri := -1
	front := false
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		n := &b.nodes[stack[sp]]
		if !slab(n.lo, n.hi, origin, inv, tMin, best) {
			continue
		}
		if n.count > 0 || sp+2 > len(stack) {
			for i := n.first; i < n.first+n.span; i++ {
				t := b.tris[i]
				if d, f, hitOK := rayTriangle(origin, dir, b.verts[t[0]], b.verts[t[1]], b.verts[t[2]]); hitOK && d > tMin && d < best {
					best, bestTri, front = d, b.ids[i], f
				}
			}
			continue
		}
		stack[sp], stack[sp+1] = n.left, n.left+1
		sp += 2
	}
	if bestTri < 0 {
		return hit, false
	}
	return RayHit{T: best, Triangle: bestTri, Front: front}, true
}

// slab reports whether the ray meets the box within (tMin, tMax).
func slab(lo, hi, o, inv assets.Vec3, tMin, tMax float64) bool {
	for k := 0; k < 3; k++ {
		t1 := (lo[k] - o[k]) * inv[k]
		t2 := (hi[k] - o[k]) * inv[k]
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		if math.IsNaN(t1) || math.IsNaN(t2) { // origin on a slab plane with a zero direction
			if o[k] < lo[k] || o[k] > hi[k] {
				return false
			}
			continue
		}
		if t1 > tMin {
			tMin = t1
		}
		if t2 < tMax {
			tMax = t2
		}
		if tMin > tMax {
			return false
		}
	}
	return true
}

// rayTriangle intersects a ray with triangle abc (Möller–Trumbore), both faces.
func rayTriangle(o, d, a, b, c assets.Vec3) (t float64, front, ok bool) {
	e1, e2 := b.Sub(a), c.Sub(a)
	p := d.Cross(e2)
	det := e1.Dot(p)
	if det == 0 || math.IsNaN(det) {
		return 0, false, false
	}
	inv := 1 / det
	s := o.Sub(a)
	u := s.Dot(p) * inv
	if u < 0 || u > 1 {
		return 0, false, false
	}
	q := s.Cross(e1)
	v := d.Dot(q) * inv
	if v < 0 || u+v > 1 {
		return 0, false, false
	}
	return e2.Dot(q) * inv, det > 0, true
}
