package geom

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
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
func (b *BVH) Ray(origin, dir vecmath.Vec3, tMin, tMax float64) (hit RayHit, ok bool) {
	t, tri, front := b.nearest(origin, dir, tMin, math.Inf(1), tMax)
	if tri < 0 {
		return hit, false
	}
	return RayHit{T: t, Triangle: tri, Front: front}, true
}

// nearest walks the tree for the nearest hit t of the ray with tMin < t < tMax and
// returns min(t, limit), the hit triangle (-1 on a miss) and its facing. Once a hit
// at limit or beyond is found, only nearer hits are looked for (limit = +Inf: the
// exact nearest hit).
func (b *BVH) nearest(origin, dir vecmath.Vec3, tMin, limit, tMax float64) (best float64, bestTri int, front bool) {
	if len(b.nodes) == 0 {
		return 0, -1, false
	}
	var inv vecmath.Vec3
	for k := 0; k < 3; k++ {
		inv[k] = 1 / dir[k] // ±Inf for a zero component is what the slab test wants
	}
	best, bestTri = tMax, -1
	// Nodes to visit with their entry distance; the nearer child is visited first so
	// that hits found there prune the farther one.
	type visit struct {
		node  int32
		enter float64
	}
	var stack [64]visit
	sp := 0
	if t, ok := slab(b.nodes[0].lo, b.nodes[0].hi, origin, inv, tMin, best); ok {
		stack[0] = visit{0, t}
		sp = 1
	}
	for sp > 0 {
		sp--
		vi := stack[sp]
		if vi.enter > best {
			continue
		}
		n := &b.nodes[vi.node]
		if n.count > 0 || sp+2 > len(stack) {
			for i := n.first; i < n.first+n.span; i++ {
				t := &b.corners[i]
				if d, f, hitOK := rayTriangle(origin, dir, t[0], t[1], t[2]); hitOK && d > tMin && d < best {
					best, bestTri, front = math.Min(d, limit), int(b.ids[i]), f
				}
			}
			continue
		}
		l, r := n.left, n.left+1
		tl, okl := slab(b.nodes[l].lo, b.nodes[l].hi, origin, inv, tMin, best)
		tr, okr := slab(b.nodes[r].lo, b.nodes[r].hi, origin, inv, tMin, best)
		if okl && okr && tl < tr { // push the farther first
			l, r, tl, tr = r, l, tr, tl
		}
		if okl && okr {
			stack[sp], stack[sp+1] = visit{l, tl}, visit{r, tr}
			sp += 2
		} else if okl {
			stack[sp] = visit{n.left, tl}
			sp++
		} else if okr {
			stack[sp] = visit{n.left + 1, tr}
			sp++
		}
	}
	return best, bestTri, front
}

// slab reports whether the ray meets the box within (tMin, tMax) and where it enters
// that stretch.
func slab(lo, hi, o, inv vecmath.Vec3, tMin, tMax float64) (enter float64, ok bool) {
	for k := 0; k < 3; k++ {
		t1 := (lo[k] - o[k]) * inv[k]
		t2 := (hi[k] - o[k]) * inv[k]
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		if math.IsNaN(t1) || math.IsNaN(t2) { // origin on a slab plane with a zero direction
			if o[k] < lo[k] || o[k] > hi[k] {
				return 0, false
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
			return 0, false
		}
	}
	return tMin, true
}

// rayTriangle intersects a ray with triangle abc (Möller–Trumbore), both faces.
func rayTriangle(o, d, a, b, c vecmath.Vec3) (t float64, front, ok bool) {
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

// RayCapped returns min(t, limit) for the nearest hit t of the ray origin + t·dir
// with tMin < t < tMax, and whether there is any hit there: the same as Ray clamped
// at limit, but once a hit at limit or beyond is found the search only looks nearer
// than limit, so rays that cross wide parts stop early.
func (b *BVH) RayCapped(origin, dir vecmath.Vec3, tMin, limit, tMax float64) (t float64, ok bool) {
	t, tri, _ := b.nearest(origin, dir, tMin, limit, tMax)
	return t, tri >= 0
}
