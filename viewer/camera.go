package viewer

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// Camera is an orbit camera: it looks at Target from Distance away, turned by Yaw
// about the world Y axis and tilted by Pitch (radians; positive looks down).
type Camera struct {
	Target   vecmath.Vec3
	Yaw      float64 // 0 looks along -Z (from +Z, the glTF front)
	Pitch    float64
	Distance float64
	FovY     float64 // vertical field of view in radians
}

// defaultCamera returns a three-quarter view from the front, slightly above.
func defaultCamera() Camera {
	return Camera{Yaw: 0.45, Pitch: 0.15, Distance: 3, FovY: 40 * math.Pi / 180}
}

// eye returns the camera position in world space.
func (c Camera) eye() vecmath.Vec3 {
	cp := math.Cos(c.Pitch)
	dir := vecmath.Vec3{math.Sin(c.Yaw) * cp, math.Sin(c.Pitch), math.Cos(c.Yaw) * cp}
	return c.Target.Add(dir.Scale(c.Distance))
}

// basis returns the camera's right, up and forward (view direction) unit vectors.
func (c Camera) basis() (right, up, fwd vecmath.Vec3) {
	fwd = c.Target.Sub(c.eye()).Normalize()
	right = fwd.Cross(vecmath.Vec3{0, 1, 0}).Normalize()
	if right.Len() == 0 {
		right = vecmath.Vec3{1, 0, 0}
	}
	up = right.Cross(fwd)
	return right, up, fwd
}

// view returns the world-to-camera transform (camera looks down its -Z).
func (c Camera) view() vecmath.Mat4 {
	r, u, f := c.basis()
	e := c.eye()
	return vecmath.Mat4{
		r[0], u[0], -f[0], 0,
		r[1], u[1], -f[1], 0,
		r[2], u[2], -f[2], 0,
		-r.Dot(e), -u.Dot(e), f.Dot(e), 1,
	}
}

// nearFar returns the clip planes used by proj: they scale with the distance.
func (c Camera) nearFar() (near, far float64) {
	return c.Distance * 0.01, c.Distance * 20
}

// proj returns the OpenGL perspective projection for a viewport of the given aspect
// ratio (width/height).
func (c Camera) proj(aspect float64) vecmath.Mat4 {
	n, fa := c.nearFar()
	f := 1 / math.Tan(c.FovY/2)
	return vecmath.Mat4{
		f / aspect, 0, 0, 0,
		0, f, 0, 0,
		0, 0, (fa + n) / (n - fa), -1,
		0, 0, 2 * fa * n / (n - fa), 0,
	}
}

// viewProj returns proj(aspect)·view().
func (c Camera) viewProj(aspect float64) vecmath.Mat4 { return c.proj(aspect).Mul(c.view()) }

// frame moves the camera so that the box [lo, hi] fits the viewport of the given
// aspect ratio with a small margin, keeping the current direction: the target goes
// to the box center and the distance is the least at which all 8 corners are inside
// both fields of view.
func (c *Camera) frame(lo, hi vecmath.Vec3, aspect float64) {
	c.Target = lo.Add(hi).Scale(0.5)
	if aspect <= 0 || math.IsNaN(aspect) {
		aspect = 1
	}
	tanY := math.Tan(c.FovY / 2)
	tanX := tanY * aspect
	r, u, f := c.basis()
	d := 0.0
	for i := 0; i < 8; i++ {
		p := lo
		for a := 0; a < 3; a++ {
			if i&(1<<a) != 0 {
				p[a] = hi[a]
			}
		}
		q := p.Sub(c.Target)
		toward := -q.Dot(f) // how far the corner sits in front of the target
		d = math.Max(d, toward+math.Abs(q.Dot(r))/tanX)
		d = math.Max(d, toward+math.Abs(q.Dot(u))/tanY)
	}
	if d <= 0 || math.IsNaN(d) || math.IsInf(d, 0) {
		d = 1
	}
	c.Distance = d * 1.12
}

// orbit turns the camera by dx, dy radians, keeping the pitch short of the poles.
func (c *Camera) orbit(dx, dy float64) {
	c.Yaw -= dx
	c.Pitch = math.Max(-1.55, math.Min(1.55, c.Pitch+dy))
}

// pan moves the target by dx, dy in units of the viewport height (1 = one full
// viewport height at the target's depth).
func (c *Camera) pan(dx, dy float64) {
	r, u, _ := c.basis()
	h := 2 * c.Distance * math.Tan(c.FovY/2)
	c.Target = c.Target.Add(r.Scale(-dx * h)).Add(u.Scale(dy * h))
}

// zoom multiplies the distance by factor^-steps (positive steps move closer).
func (c *Camera) zoom(steps float64) {
	c.Distance *= math.Pow(1.15, -steps)
	c.Distance = math.Max(c.Distance, 1e-6)
}

// project maps a world point to pixel coordinates in a w×h viewport (x right, y down
// from the top-left corner) and its NDC depth; ok is false behind the camera.
func project(viewProj vecmath.Mat4, p vecmath.Vec3, w, h int) (x, y, depth float64, ok bool) {
	cx := viewProj[0]*p[0] + viewProj[4]*p[1] + viewProj[8]*p[2] + viewProj[12]
	cy := viewProj[1]*p[0] + viewProj[5]*p[1] + viewProj[9]*p[2] + viewProj[13]
	cz := viewProj[2]*p[0] + viewProj[6]*p[1] + viewProj[10]*p[2] + viewProj[14]
	cw := viewProj[3]*p[0] + viewProj[7]*p[1] + viewProj[11]*p[2] + viewProj[15]
	if cw <= 1e-12 {
		return 0, 0, 0, false
	}
	nx, ny := cx/cw, cy/cw
	return (nx + 1) / 2 * float64(w), (1 - ny) / 2 * float64(h), cz / cw, true
}

// f32 converts a matrix to float32 for OpenGL (same column-major order).
func f32(m vecmath.Mat4) [16]float32 {
	var o [16]float32
	for i, v := range m {
		o[i] = float32(v)
	}
	return o
}
