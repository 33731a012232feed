package animation

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// quat is a rotation (x, y, z, w), the glTF order, with the operations this package
// needs (vecmath.Quat carries no arithmetic).
type quat = vecmath.Quat

var identity = quat{0, 0, 0, 1}

// mul returns a·b (b applied first).
func mul(a, b quat) quat {
	return quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// inv returns the inverse of a unit quaternion.
func inv(q quat) quat { return quat{-q[0], -q[1], -q[2], q[3]} }

// norm returns q scaled to unit length (identity for a zero or non-finite q).
func norm(q quat) quat {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return identity
	}
	return quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// rotate applies q to v.
func rotate(q quat, v vecmath.Vec3) vecmath.Vec3 {
	u := vecmath.Vec3{q[0], q[1], q[2]}
	t := u.Cross(v).Scale(2)
	return v.Add(t.Scale(q[3])).Add(u.Cross(t))
}

// arc returns the shortest rotation that turns direction a onto direction b.
func arc(a, b vecmath.Vec3) quat {
	a, b = a.Normalize(), b.Normalize()
	d := a.Dot(b)
	if d < -1+1e-9 {
		// Opposite: half a turn about any axis perpendicular to a.
		axis := a.Cross(vecmath.Vec3{1, 0, 0})
		if axis.Len() < 1e-6 {
			axis = a.Cross(vecmath.Vec3{0, 1, 0})
		}
		return vecmath.QuatAxisAngle(axis, math.Pi)
	}
	c := a.Cross(b)
	return norm(quat{c[0], c[1], c[2], 1 + d})
}

// euler returns the rotation of angles (degrees) about X, then Y, then Z: Rz·Ry·Rx.
func euler(deg [3]float64) quat {
	r := math.Pi / 180
	qx := vecmath.QuatAxisAngle(vecmath.Vec3{1, 0, 0}, deg[0]*r)
	qy := vecmath.QuatAxisAngle(vecmath.Vec3{0, 1, 0}, deg[1]*r)
	qz := vecmath.QuatAxisAngle(vecmath.Vec3{0, 0, 1}, deg[2]*r)
	return mul(qz, mul(qy, qx))
}

// angle returns the rotation angle of q in radians, in [0, π].
func angle(q quat) float64 {
	w := math.Min(1, math.Abs(norm(q)[3]))
	return 2 * math.Acos(w)
}

// frame is an orthonormal basis: the character's left, up and forward axes in world
// coordinates. toWorld and toChar re-express a rotation between the two frames.
type frame struct {
	left, up, fwd vecmath.Vec3
	// sided says left (and so fwd) comes from named left and right joints, not
	// a default axis (characterFrame).
	sided bool
}

// rot returns the rotation that carries the character axes (X, Y, Z) onto the frame.
func (f frame) rot() quat {
	m := vecmath.Identity4()
	for r := 0; r < 3; r++ {
		m[0*4+r], m[1*4+r], m[2*4+r] = f.left[r], f.up[r], f.fwd[r]
	}
	_, q, _ := vecmath.DecomposeTRS(m)
	return q
}

func (f frame) toWorld(q quat) quat { r := f.rot(); return mul(r, mul(q, inv(r))) }
func (f frame) toChar(q quat) quat  { r := f.rot(); return mul(inv(r), mul(q, r)) }

// vecToWorld and vecToChar re-express a vector.
func (f frame) vecToWorld(v vecmath.Vec3) vecmath.Vec3 {
	return f.left.Scale(v[0]).Add(f.up.Scale(v[1])).Add(f.fwd.Scale(v[2]))
}
func (f frame) vecToChar(v vecmath.Vec3) vecmath.Vec3 {
	return vecmath.Vec3{v.Dot(f.left), v.Dot(f.up), v.Dot(f.fwd)}
}
