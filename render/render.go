// Package render is a small software rasterizer for looking at characters without a
// GPU: z-buffered triangles with two-sided Lambert shading and per-vertex colors
// (e.g. weight heatmaps), line and skeleton overlays, and PNG output. It serves
// tests, contact sheets and the README gallery; it is not a real-time renderer.
package render

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Camera looks from Eye at Target. FovY > 0 selects a perspective projection with
// that vertical field of view (radians); FovY == 0 an orthographic one showing
// Height world units vertically.
type Camera struct {
	Eye, Target, Up vecmath.Vec3
	FovY            float64
	Height          float64
}

// Frame returns a camera that fits the axis-aligned box lo..hi, looking along dir
// (from the eye towards the box), with +Y up.
func Frame(lo, hi, dir vecmath.Vec3, perspective bool) Camera {
	ctr := lo.Add(hi).Scale(0.5)
	radius := hi.Sub(lo).Len() / 2
	if radius == 0 {
		radius = 1
	}
	dir = dir.Normalize()
	if dir == (vecmath.Vec3{}) {
		dir = vecmath.Vec3{0, 0, -1}
	}
	cam := Camera{Target: ctr, Up: vecmath.Vec3{0, 1, 0}}
	if perspective {
		cam.FovY = 35 * math.Pi / 180
		cam.Eye = ctr.Sub(dir.Scale(radius / math.Sin(cam.FovY/2) * 1.02))
	} else {
		cam.Height = 2 * radius * 1.02
		cam.Eye = ctr.Sub(dir.Scale(radius * 3))
	}
	return cam
}

// DefaultView is a three-quarter view from the front, right and a little above,
// for characters facing +Z.
var DefaultView = vecmath.Vec3{-0.55, -0.35, -1}

// Canvas is an image with a depth buffer, drawn through one camera.
type Canvas struct {
	img        *image.RGBA
	depth      []float64
	w, h       int
	eye        vecmath.Vec3
	right, up  vecmath.Vec3
	fwd        vecmath.Vec3
	tanHalf    float64
	halfHeight float64
	// Light is the direction towards the light (world frame).
	Light vecmath.Vec3
}

// NewCanvas returns a w×h canvas cleared to bg.
func NewCanvas(w, h int, cam Camera, bg color.RGBA) *Canvas {
	c := &Canvas{img: image.NewRGBA(image.Rect(0, 0, w, h)), depth: make([]float64, w*h), w: w, h: h}
	for i := range c.depth {
		c.depth[i] = math.Inf(1)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c.img.SetRGBA(x, y, bg)
		}
	}
	c.eye = cam.Eye
	c.fwd = cam.Target.Sub(cam.Eye).Normalize()
	up := cam.Up
	if up == (vecmath.Vec3{}) {
		up = vecmath.Vec3{0, 1, 0}
	}
	c.right = c.fwd.Cross(up).Normalize()
	if c.right == (vecmath.Vec3{}) {
		c.right = c.fwd.Cross(vecmath.Vec3{0, 0, 1}).Normalize()
	}
	c.up = c.right.Cross(c.fwd)
	if cam.FovY > 0 {
		c.tanHalf = math.Tan(cam.FovY / 2)
	} else {
		c.halfHeight = cam.Height / 2
		if c.halfHeight <= 0 {
			c.halfHeight = 1
		}
	}
	c.Light = cam.Eye.Sub(cam.Target).Normalize().Add(vecmath.Vec3{0.3, 0.8, 0}).Normalize()
	return c
}

// project returns pixel coordinates and view depth of p; ok is false behind the eye.
func (c *Canvas) project(p vecmath.Vec3) (x, y, z float64, ok bool) {
	d := p.Sub(c.eye)
	vx, vy, vz := d.Dot(c.right), d.Dot(c.up), d.Dot(c.fwd)
	half := c.halfHeight
	if c.tanHalf > 0 {
		if vz <= 1e-6 {
			return 0, 0, 0, false
		}
		half = vz * c.tanHalf
	}
	s := float64(c.h) / 2 / half
	return float64(c.w)/2 + vx*s, float64(c.h)/2 - vy*s, vz, true
}

// DrawMesh rasterizes m. colors holds one linear RGB color (0..1) per vertex, or is
// nil for a neutral grey. Both triangle sides are lit, so flipped triangles show.
func (c *Canvas) DrawMesh(m character.Mesh, colors []vecmath.Vec3) {
	type sv struct {
		x, y, z float64
		ok      bool
	}
	pts := make([]sv, len(m.Positions))
	for i, p := range m.Positions {
		x, y, z, ok := c.project(p)
		pts[i] = sv{x, y, z, ok}
	}
	smooth := len(m.Normals) == len(m.Positions)
	grey := vecmath.Vec3{0.72, 0.72, 0.72}
	col := func(v int) vecmath.Vec3 {
		if v < len(colors) {
			return colors[v]
		}
		return grey
	}
	for _, t := range m.Triangles {
		a, b, d := pts[t[0]], pts[t[1]], pts[t[2]]
		if !a.ok || !b.ok || !d.ok {
			continue
		}
		pa, pb, pd := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		fn := pb.Sub(pa).Cross(pd.Sub(pa)).Normalize()
		area := (b.x-a.x)*(d.y-a.y) - (b.y-a.y)*(d.x-a.x)
		if area == 0 {
			continue
		}
		x0 := max(0, int(math.Floor(math.Min(a.x, math.Min(b.x, d.x)))))
		x1 := min(c.w-1, int(math.Ceil(math.Max(a.x, math.Max(b.x, d.x)))))
		y0 := max(0, int(math.Floor(math.Min(a.y, math.Min(b.y, d.y)))))
		y1 := min(c.h-1, int(math.Ceil(math.Max(a.y, math.Max(b.y, d.y)))))
		ca, cb, cd := col(t[0]), col(t[1]), col(t[2])
		for y := y0; y <= y1; y++ {
			py := float64(y) + 0.5
			for x := x0; x <= x1; x++ {
				px := float64(x) + 0.5
				w0 := ((b.x-px)*(d.y-py) - (b.y-py)*(d.x-px)) / area
				w1 := ((d.x-px)*(a.y-py) - (d.y-py)*(a.x-px)) / area
				w2 := 1 - w0 - w1
				if w0 < 0 || w1 < 0 || w2 < 0 {
					continue
				}
				z := w0*a.z + w1*b.z + w2*d.z
				i := y*c.w + x
				if z >= c.depth[i] {
					continue
				}
				c.depth[i] = z
				n := fn
				if smooth {
					n = m.Normals[t[0]].Scale(w0).Add(m.Normals[t[1]].Scale(w1)).Add(m.Normals[t[2]].Scale(w2)).Normalize()
				}
				shade := 0.25 + 0.75*math.Abs(n.Dot(c.Light))
				rgb := ca.Scale(w0).Add(cb.Scale(w1)).Add(cd.Scale(w2)).Scale(shade)
				c.img.SetRGBA(x, y, toRGBA(rgb))
			}
		}
	}
}

// DrawLine draws a segment of the given pixel width. With onTop it ignores depth.
func (c *Canvas) DrawLine(p, q vecmath.Vec3, col color.RGBA, width int, onTop bool) {
	ax, ay, az, ok1 := c.project(p)
	bx, by, bz, ok2 := c.project(q)
	if !ok1 || !ok2 {
		return
	}
	steps := int(math.Max(math.Abs(bx-ax), math.Abs(by-ay))) + 1
	r := max(width, 1) / 2
	for s := 0; s <= steps; s++ {
		t := float64(s) / float64(steps)
		x, y, z := int(ax+(bx-ax)*t), int(ay+(by-ay)*t), az+(bz-az)*t
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				px, py := x+dx, y+dy
				if px < 0 || py < 0 || px >= c.w || py >= c.h {
					continue
				}
				i := py*c.w + px
				if !onTop && z > c.depth[i] {
					continue
				}
				c.img.SetRGBA(px, py, col)
			}
		}
	}
}

// DrawSkeleton overlays bones (parent to child) and joints, ignoring depth.
func (c *Canvas) DrawSkeleton(s *character.Skeleton, bone, joint color.RGBA) {
	if s == nil {
		return
	}
	for j, p := range s.Parents {
		if p >= 0 {
			c.DrawLine(s.Position(p), s.Position(j), bone, 2, true)
		}
	}
	for j := range s.Parents {
		c.DrawLine(s.Position(j), s.Position(j), joint, 4, true)
	}
}

// Image returns the canvas image.
func (c *Canvas) Image() *image.RGBA { return c.img }

// WritePNG writes the canvas to path.
func (c *Canvas) WritePNG(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("render: write %s: %w", path, err)
	}
	if err := png.Encode(f, c.img); err != nil {
		f.Close()
		return fmt.Errorf("render: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("render: write %s: %w", path, err)
	}
	return nil
}

// Heat maps t in [0,1] to a blue→cyan→green→yellow→red ramp (linear RGB).
func Heat(t float64) vecmath.Vec3 {
	t = math.Min(1, math.Max(0, t))
	stops := [...]vecmath.Vec3{{0.1, 0.15, 0.6}, {0.1, 0.7, 0.9}, {0.2, 0.8, 0.3}, {0.95, 0.9, 0.2}, {0.9, 0.15, 0.1}}
	x := t * float64(len(stops)-1)
	i := min(int(x), len(stops)-2)
	return stops[i].Lerp(stops[i+1], x-float64(i))
}

// WeightColors returns per-vertex heat colors of one joint's skin weight.
func WeightColors(skin *character.Skin, joint int) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(skin.Weights))
	for v, infl := range skin.Weights {
		w := 0.0
		for _, in := range infl {
			if in.Joint == joint {
				w += in.Weight
			}
		}
		out[v] = Heat(w)
	}
	return out
}

// DominantColors colors each vertex by its heaviest joint (a distinct hue per
// joint), blended by weight, which shows part boundaries and blend zones.
func DominantColors(skin *character.Skin, numJoints int) []vecmath.Vec3 {
	pal := make([]vecmath.Vec3, numJoints)
	for j := range pal {
		h := math.Mod(float64(j)*0.618034, 1)
		pal[j] = hsv(h, 0.65, 0.95)
	}
	out := make([]vecmath.Vec3, len(skin.Weights))
	for v, infl := range skin.Weights {
		var c vecmath.Vec3
		for _, in := range infl {
			if in.Joint >= 0 && in.Joint < numJoints {
				c = c.Add(pal[in.Joint].Scale(in.Weight))
			}
		}
		out[v] = c
	}
	return out
}

// Coverage returns the fraction of pixels that differ from bg.
func Coverage(img *image.RGBA, bg color.RGBA) float64 {
	b := img.Bounds()
	n, diff := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n++
			if img.RGBAAt(x, y) != bg {
				diff++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(diff) / float64(n)
}

func hsv(h, s, v float64) vecmath.Vec3 {
	i := math.Floor(h * 6)
	f := h*6 - i
	p, q, t := v*(1-s), v*(1-f*s), v*(1-(1-f)*s)
	switch int(i) % 6 {
	case 0:
		return vecmath.Vec3{v, t, p}
	case 1:
		return vecmath.Vec3{q, v, p}
	case 2:
		return vecmath.Vec3{p, v, t}
	case 3:
		return vecmath.Vec3{p, q, v}
	case 4:
		return vecmath.Vec3{t, p, v}
	default:
		return vecmath.Vec3{v, p, q}
	}
}

// toRGBA converts linear RGB to 8-bit sRGB.
func toRGBA(c vecmath.Vec3) color.RGBA {
	var o [3]uint8
	for i, v := range c {
		v = math.Min(1, math.Max(0, v))
		if v <= 0.0031308 {
			v *= 12.92
		} else {
			v = 1.055*math.Pow(v, 1/2.4) - 0.055
		}
		o[i] = uint8(math.Round(v * 255))
	}
	return color.RGBA{o[0], o[1], o[2], 255}
}
