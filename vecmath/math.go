package vecmath

import "math"

// Vec3 is a point or direction in 3D. Frames are stated by the field or function
// that holds it (world, bind pose, normalized cube).
type Vec3 [3]float64

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a-b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s*a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }

// Dot returns the dot product a·b.
func (a Vec3) Dot(b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns the cross product a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Len returns the Euclidean length of a.
func (a Vec3) Len() float64 { return math.Sqrt(a.Dot(a)) }

// Dist returns the distance between a and b.
func (a Vec3) Dist(b Vec3) float64 { return a.Sub(b).Len() }

// Normalize returns a scaled to unit length, or the zero vector when a is zero.
func (a Vec3) Normalize() Vec3 {
	l := a.Len()
	if l == 0 {
		return Vec3{}
	}
	return a.Scale(1 / l)
}

// Lerp returns a + t(b-a).
func (a Vec3) Lerp(b Vec3, t float64) Vec3 { return a.Add(b.Sub(a).Scale(t)) }

// IsFinite reports whether no component is NaN or infinite.
func (a Vec3) IsFinite() bool {
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Mat4 is a 4×4 affine transform stored column-major, as glTF stores matrices:
// element (row r, column c) is at index c*4+r. Points are column vectors (p' = M p).
type Mat4 [16]float64

// Identity4 returns the identity transform.
func Identity4() Mat4 { return Mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

// Translate4 returns a translation by t.
func Translate4(t Vec3) Mat4 {
	m := Identity4()
	m[12], m[13], m[14] = t[0], t[1], t[2]
	return m
}

// Scale4 returns a uniform scale by s.
func Scale4(s float64) Mat4 {
	m := Identity4()
	m[0], m[5], m[10] = s, s, s
	return m
}

// At returns the element at row r, column c.
func (m Mat4) At(r, c int) float64 { return m[c*4+r] }

// Mul returns m·n (n applied first).
func (m Mat4) Mul(n Mat4) Mat4 {
	var o Mat4
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			o[c*4+r] = m[r]*n[c*4] + m[4+r]*n[c*4+1] + m[8+r]*n[c*4+2] + m[12+r]*n[c*4+3]
		}
	}
	return o
}

// Point transforms the point p (w=1).
func (m Mat4) Point(p Vec3) Vec3 {
	return Vec3{
		m[0]*p[0] + m[4]*p[1] + m[8]*p[2] + m[12],
		m[1]*p[0] + m[5]*p[1] + m[9]*p[2] + m[13],
		m[2]*p[0] + m[6]*p[1] + m[10]*p[2] + m[14],
	}
}

// Dir transforms the direction d (w=0).
func (m Mat4) Dir(d Vec3) Vec3 {
	return Vec3{
		m[0]*d[0] + m[4]*d[1] + m[8]*d[2],
		m[1]*d[0] + m[5]*d[1] + m[9]*d[2],
		m[2]*d[0] + m[6]*d[1] + m[10]*d[2],
	}
}

// Translation returns the translation column of m.
func (m Mat4) Translation() Vec3 { return Vec3{m[12], m[13], m[14]} }

// Det returns the determinant of m.
func (m Mat4) Det() float64 {
	inv, det := m.adjugate()
	_ = inv
	return det
}

// Inverse returns the inverse of m and false when m is singular.
func (m Mat4) Inverse() (Mat4, bool) {
	inv, det := m.adjugate()
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return Mat4{}, false
	}
	for i := range inv {
		inv[i] /= det
	}
	return inv, true
}

// adjugate returns the adjugate (transposed cofactor matrix) and the determinant.
func (m Mat4) adjugate() (Mat4, float64) {
	var inv Mat4
	inv[0] = m[5]*m[10]*m[15] - m[5]*m[11]*m[14] - m[9]*m[6]*m[15] + m[9]*m[7]*m[14] + m[13]*m[6]*m[11] - m[13]*m[7]*m[10]
	inv[4] = -m[4]*m[10]*m[15] + m[4]*m[11]*m[14] + m[8]*m[6]*m[15] - m[8]*m[7]*m[14] - m[12]*m[6]*m[11] + m[12]*m[7]*m[10]
	inv[8] = m[4]*m[9]*m[15] - m[4]*m[11]*m[13] - m[8]*m[5]*m[15] + m[8]*m[7]*m[13] + m[12]*m[5]*m[11] - m[12]*m[7]*m[9]
	inv[12] = -m[4]*m[9]*m[14] + m[4]*m[10]*m[13] + m[8]*m[5]*m[14] - m[8]*m[6]*m[13] - m[12]*m[5]*m[10] + m[12]*m[6]*m[9]
	inv[1] = -m[1]*m[10]*m[15] + m[1]*m[11]*m[14] + m[9]*m[2]*m[15] - m[9]*m[3]*m[14] - m[13]*m[2]*m[11] + m[13]*m[3]*m[10]
	inv[5] = m[0]*m[10]*m[15] - m[0]*m[11]*m[14] - m[8]*m[2]*m[15] + m[8]*m[3]*m[14] + m[12]*m[2]*m[11] - m[12]*m[3]*m[10]
	inv[9] = -m[0]*m[9]*m[15] + m[0]*m[11]*m[13] + m[8]*m[1]*m[15] - m[8]*m[3]*m[13] - m[12]*m[1]*m[11] + m[12]*m[3]*m[9]
	inv[13] = m[0]*m[9]*m[14] - m[0]*m[10]*m[13] - m[8]*m[1]*m[14] + m[8]*m[2]*m[13] + m[12]*m[1]*m[10] - m[12]*m[2]*m[9]
	inv[2] = m[1]*m[6]*m[15] - m[1]*m[7]*m[14] - m[5]*m[2]*m[15] + m[5]*m[3]*m[14] + m[13]*m[2]*m[7] - m[13]*m[3]*m[6]
	inv[6] = -m[0]*m[6]*m[15] + m[0]*m[7]*m[14] + m[4]*m[2]*m[15] - m[4]*m[3]*m[14] - m[12]*m[2]*m[7] + m[12]*m[3]*m[6]
	inv[10] = m[0]*m[5]*m[15] - m[0]*m[7]*m[13] - m[4]*m[1]*m[15] + m[4]*m[3]*m[13] + m[12]*m[1]*m[7] - m[12]*m[3]*m[5]
	inv[14] = -m[0]*m[5]*m[14] + m[0]*m[6]*m[13] + m[4]*m[1]*m[14] - m[4]*m[2]*m[13] - m[12]*m[1]*m[6] + m[12]*m[2]*m[5]
	inv[3] = -m[1]*m[6]*m[11] + m[1]*m[7]*m[10] + m[5]*m[2]*m[11] - m[5]*m[3]*m[10] - m[9]*m[2]*m[7] + m[9]*m[3]*m[6]
	inv[7] = m[0]*m[6]*m[11] - m[0]*m[7]*m[10] - m[4]*m[2]*m[11] + m[4]*m[3]*m[10] + m[8]*m[2]*m[7] - m[8]*m[3]*m[6]
	inv[11] = -m[0]*m[5]*m[11] + m[0]*m[7]*m[9] + m[4]*m[1]*m[11] - m[4]*m[3]*m[9] - m[8]*m[1]*m[7] + m[8]*m[3]*m[5]
	inv[15] = m[0]*m[5]*m[10] - m[0]*m[6]*m[9] - m[4]*m[1]*m[10] + m[4]*m[2]*m[9] + m[8]*m[1]*m[6] - m[8]*m[2]*m[5]
	det := m[0]*inv[0] + m[1]*inv[4] + m[2]*inv[8] + m[3]*inv[12]
	return inv, det
}

// IsFinite reports whether every element is finite.
func (m Mat4) IsFinite() bool {
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Quat is a rotation quaternion (x, y, z, w), as glTF stores rotations.
type Quat [4]float64

// QuatAxisAngle returns the rotation by angle radians about axis (normalized here).
func QuatAxisAngle(axis Vec3, angle float64) Quat {
	a := axis.Normalize()
	s := math.Sin(angle / 2)
	return Quat{a[0] * s, a[1] * s, a[2] * s, math.Cos(angle / 2)}
}

// Mat4 returns the rotation matrix of the (normalized) quaternion q.
func (q Quat) Mat4() Mat4 {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if n == 0 {
		return Identity4()
	}
	x, y, z, w := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return Mat4{
		1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w), 0,
		2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w), 0,
		2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y), 0,
		0, 0, 0, 1,
	}
}

// TRS composes translation, rotation and per-axis scale as glTF nodes do (T·R·S).
func TRS(t Vec3, r Quat, s Vec3) Mat4 {
	m := r.Mat4()
	for c := 0; c < 3; c++ {
		for row := 0; row < 3; row++ {
			m[c*4+row] *= s[c]
		}
	}
	m[12], m[13], m[14] = t[0], t[1], t[2]
	return m
}

// DecomposeTRS splits an affine matrix without shear into translation, rotation and
// scale. A negative determinant is carried by a negative x scale.
func DecomposeTRS(m Mat4) (Vec3, Quat, Vec3) {
	t := m.Translation()
	cols := [3]Vec3{{m[0], m[1], m[2]}, {m[4], m[5], m[6]}, {m[8], m[9], m[10]}}
	s := Vec3{cols[0].Len(), cols[1].Len(), cols[2].Len()}
	if m.Det() < 0 {
		s[0] = -s[0]
	}
	var r [3]Vec3
	for i := range cols {
		if s[i] != 0 {
			r[i] = cols[i].Scale(1 / s[i])
		}
	}
	// Rotation matrix to quaternion (Shepperd's method); r[c][row].
	m00, m11, m22 := r[0][0], r[1][1], r[2][2]
	var q Quat
	tr := m00 + m11 + m22
	switch {
	case tr > 0:
		k := math.Sqrt(tr+1) * 2
		q = Quat{(r[1][2] - r[2][1]) / k, (r[2][0] - r[0][2]) / k, (r[0][1] - r[1][0]) / k, k / 4}
	case m00 > m11 && m00 > m22:
		k := math.Sqrt(1+m00-m11-m22) * 2
		q = Quat{k / 4, (r[1][0] + r[0][1]) / k, (r[2][0] + r[0][2]) / k, (r[1][2] - r[2][1]) / k}
	case m11 > m22:
		k := math.Sqrt(1+m11-m00-m22) * 2
		q = Quat{(r[1][0] + r[0][1]) / k, k / 4, (r[2][1] + r[1][2]) / k, (r[2][0] - r[0][2]) / k}
	default:
		k := math.Sqrt(1+m22-m00-m11) * 2
		q = Quat{(r[2][0] + r[0][2]) / k, (r[2][1] + r[1][2]) / k, k / 4, (r[0][1] - r[1][0]) / k}
	}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if n > 0 {
		for i := range q {
			q[i] /= n
		}
	} else {
		q = Quat{0, 0, 0, 1}
	}
	return t, q, s
}

// ClosestOnSegment returns the point of segment ab nearest to p; a degenerate
// segment (a == b) is the point a. It is the one point-to-segment projection that
// bones, meshes and metrics share, so every package measures a bone alike.
func ClosestOnSegment(p, a, b Vec3) Vec3 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return a
	}
	t := p.Sub(a).Dot(ab) / l2
	return a.Add(ab.Scale(math.Max(0, math.Min(1, t))))
}

// SegmentDist returns the Euclidean distance from p to segment ab.
func SegmentDist(p, a, b Vec3) float64 { return p.Dist(ClosestOnSegment(p, a, b)) }
