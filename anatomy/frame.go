package anatomy

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// frame maps world points to the canonical frame (+X left, +Y up, +Z forward) and
// back. Its axes are orthonormal and right-handed, so it is a rotation.
type frame struct {
	left, up, fwd vecmath.Vec3 // world directions of canonical +X, +Y, +Z
}

func (f frame) to(p vecmath.Vec3) vecmath.Vec3 {
	return vecmath.Vec3{p.Dot(f.left), p.Dot(f.up), p.Dot(f.fwd)}
}

func (f frame) from(q vecmath.Vec3) vecmath.Vec3 {
	return f.left.Scale(q[0]).Add(f.up.Scale(q[1])).Add(f.fwd.Scale(q[2]))
}

// upFrame is the frame of an up axis: Y-up meshes face +Z (glTF), Z-up meshes face
// -Y (Blender); both have the character's left on +X.
func upFrame(up string) frame {
	if up == "z" {
		return frame{left: vecmath.Vec3{1, 0, 0}, up: vecmath.Vec3{0, 0, 1}, fwd: vecmath.Vec3{0, -1, 0}}
	}
	return frame{left: vecmath.Vec3{1, 0, 0}, up: vecmath.Vec3{0, 1, 0}, fwd: vecmath.Vec3{0, 0, 1}}
}

// axesFrame returns the canonical frame of up axis axis ("y", glTF's, or "z") of a
// file's world in the mesh's own coordinates: the world's up, front and left taken
// back through world's rotation (the transform from the mesh's coordinates to the
// world, the zero matrix for none). Only the rotation matters: the fits measure in
// shares of the height.
func axesFrame(axis string, world vecmath.Mat4) frame {
	f := upFrame(axis)
	if world == (vecmath.Mat4{}) || world == vecmath.Identity4() {
		return f
	}
	inv, ok := world.Inverse()
	if !ok || !inv.IsFinite() {
		return f
	}
	up, fwd := inv.Dir(f.up).Normalize(), inv.Dir(f.fwd)
	fwd = fwd.Sub(up.Scale(fwd.Dot(up))).Normalize()
	left := up.Cross(fwd)
	if !up.IsFinite() || !fwd.IsFinite() || left.Len() < 0.5 {
		return f
	}
	return frame{left: left, up: up, fwd: fwd}
}

// turned returns the frame turned a quarter about up, for a character whose
// symmetry plane is across the canonical Z axis (it faces ±X): the old +X becomes
// forward.
func (f frame) turned() frame {
	return frame{left: f.fwd.Scale(-1), up: f.up, fwd: f.left}
}

// shape is a mesh seen in a canonical frame, with the queries the templates need.
type shape struct {
	f      frame
	pts    []vecmath.Vec3 // canonical vertex positions
	tris   [][3]int       // the mesh's triangles, into pts
	lo, hi vecmath.Vec3   // canonical bounds
	wn     *geom.WindingNumber
	mid    float64 // x of the symmetry plane
	// symmetric: the mesh mirrors across the plane (a mesh that does not may
	// hold a prop in one hand).
	symmetric bool
	// nearlySymmetric: it mirrors but for what one hand holds (Symmetry.Trimmed).
	nearlySymmetric bool
	slices          *profile // built on first use, once mid is known
	depth           float64  // standingDepth, once measured (0: not yet)
}

// profile returns the shape's horizontal slices, built on first use.
func (s *shape) profile() *profile {
	if s.slices == nil {
		s.slices = newProfile(s)
	}
	return s.slices
}

func newShape(m *character.Mesh, wn *geom.WindingNumber, f frame) *shape {
	s := &shape{f: f, wn: wn, pts: make([]vecmath.Vec3, len(m.Positions)), tris: m.Triangles}
	for i, p := range m.Positions {
		s.pts[i] = f.to(p)
	}
	s.lo, s.hi = bounds(s.pts)
	s.mid = (s.lo[0] + s.hi[0]) / 2
	return s
}

func bounds(pts []vecmath.Vec3) (lo, hi vecmath.Vec3) {
	lo = vecmath.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = lo.Scale(-1)
	for _, p := range pts {
		for a := 0; a < 3; a++ {
			lo[a], hi[a] = math.Min(lo[a], p[a]), math.Max(hi[a], p[a])
		}
	}
	return lo, hi
}

// height is the extent along up.
func (s *shape) height() float64 { return s.hi[1] - s.lo[1] }

// size is the largest extent, the unit of the templates' tolerances.
func (s *shape) size() float64 {
	d := s.hi.Sub(s.lo)
	return math.Max(d[0], math.Max(d[1], d[2]))
}

func (s *shape) inside(q vecmath.Vec3) bool { return s.wn.At(s.f.from(q)) > 0.5 }

// run returns the inside interval along axis through q: the run containing q, or
// when q is outside, the nearest run along the axis within the bounds (ok false
// when the line misses the mesh).
func (s *shape) run(q vecmath.Vec3, axis int) (lo, hi float64, ok bool) {
	const steps = 96
	a, b := s.lo[axis], s.hi[axis]
	step := (b - a) / steps
	if step <= 0 {
		return q[axis], q[axis], false
	}
	at := func(t float64) bool { p := q; p[axis] = t; return s.inside(p) }
	start := q[axis]
	if !at(start) {
		found := false
		for k := 1; k <= steps && !found; k++ {
			for _, t := range []float64{start - float64(k)*step, start + float64(k)*step} {
				if t >= a && t <= b && at(t) {
					start, found = t, true
					break
				}
			}
		}
		if !found {
			return q[axis], q[axis], false
		}
	}
	lo, hi = start, start
	for lo-step >= a && at(lo-step) {
		lo -= step
	}
	for hi+step <= b && at(hi+step) {
		hi += step
	}
	return lo - step/2, hi + step/2, true
}

// centre moves q to the middle of its inside run along each axis given, in order.
func (s *shape) centre(q vecmath.Vec3, axes ...int) vecmath.Vec3 {
	for _, a := range axes {
		if lo, hi, ok := s.run(q, a); ok {
			q[a] = (lo + hi) / 2
		}
	}
	return q
}

// mirror reflects a canonical point across the symmetry plane.
func (s *shape) mirror(q vecmath.Vec3) vecmath.Vec3 {
	q[0] = 2*s.mid - q[0]
	return q
}
