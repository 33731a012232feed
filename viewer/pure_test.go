package viewer

import (
	"fmt"
	"math"
	"testing"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
)

func TestProjectTargetIsCenter(t *testing.T) {
	for _, cam := range []Camera{
		defaultCamera(),
		{Target: vecmath.Vec3{1, 2, 3}, Yaw: -2, Pitch: -0.7, Distance: 10, FovY: 1},
		{Target: vecmath.Vec3{0, -5, 0}, Yaw: 3, Pitch: 1.5, Distance: 0.1, FovY: 0.3},
	} {
		x, y, _, ok := project(cam.viewProj(1.5), cam.Target, 300, 200)
		if !ok || math.Abs(x-150) > 1e-6 || math.Abs(y-100) > 1e-6 {
			t.Errorf("camera %+v: target projects to (%v, %v, %v), want the center", cam, x, y, ok)
		}
		// A point behind the eye is not visible.
		_, _, fwd := cam.basis()
		if _, _, _, ok := project(cam.viewProj(1.5), cam.eye().Sub(fwd), 300, 200); ok {
			t.Errorf("camera %+v: point behind the eye reported visible", cam)
		}
		// Up on screen is up in the world frame (y decreases).
		_, up, _ := cam.basis()
		_, y2, _, _ := project(cam.viewProj(1.5), cam.Target.Add(up.Scale(0.01*cam.Distance)), 300, 200)
		if !(y2 < y) {
			t.Errorf("camera %+v: moving up moved the pixel from y=%v to %v", cam, y, y2)
		}
	}
}

func TestFrameFitsBox(t *testing.T) {
	tests := []struct {
		lo, hi vecmath.Vec3
		aspect float64
	}{
		{vecmath.Vec3{-1, -1, -1}, vecmath.Vec3{1, 1, 1}, 16.0 / 9},
		{vecmath.Vec3{0, 0, 0}, vecmath.Vec3{0.2, 3, 0.1}, 1},
		{vecmath.Vec3{-50, 0, -2}, vecmath.Vec3{50, 1, 2}, 0.5},
	}
	for _, tc := range tests {
		cam := defaultCamera()
		cam.frame(tc.lo, tc.hi, tc.aspect)
		w, h := int(400*tc.aspect), 400
		vp := cam.viewProj(tc.aspect)
		far := 0.0
		for i := 0; i < 8; i++ {
			p := vecmath.Vec3{tc.lo[0], tc.lo[1], tc.lo[2]}
			for a := 0; a < 3; a++ {
				if i&(1<<a) != 0 {
					p[a] = tc.hi[a]
				}
			}
			x, y, z, ok := project(vp, p, w, h)
			if !ok || x < 0 || x > float64(w) || y < 0 || y > float64(h) || z < -1 || z > 1 {
				t.Errorf("box %v-%v aspect %v: corner %v at (%.1f, %.1f, %.3f) is off screen", tc.lo, tc.hi, tc.aspect, p, x, y, z)
			}
			far = math.Max(far, math.Max(math.Abs(x-float64(w)/2)/float64(w), math.Abs(y-float64(h)/2)/float64(h)))
		}
		if far < 0.2 {
			t.Errorf("box %v-%v: framed too loosely (max offset %.2f of the viewport)", tc.lo, tc.hi, far)
		}
	}
}

func TestOrbitPanZoom(t *testing.T) {
	c := defaultCamera()
	d0, t0 := c.Distance, c.Target
	c.zoom(2)
	if !(c.Distance < d0) {
		t.Errorf("zoom in: distance %v, was %v", c.Distance, d0)
	}
	c.orbit(0, 10)
	if c.Pitch > 1.56 {
		t.Errorf("orbit past the pole: pitch %v", c.Pitch)
	}
	c.pan(0.5, 0)
	if c.Target == t0 {
		t.Error("pan did not move the target")
	}
	r, _, _ := c.basis()
	if moved := c.Target.Sub(t0).Normalize(); math.Abs(moved.Dot(r)+1) > 1e-9 {
		t.Errorf("panning right by dx>0 should drag the scene right (target moves left): moved %v, right %v", moved, r)
	}
}

func TestPickJoint(t *testing.T) {
	cam := Camera{Yaw: 0, Pitch: 0, Distance: 5, FovY: 1}
	vp := cam.viewProj(1)
	joints := []vecmath.Vec3{{0, -1, 0}, {0, 0, 0}, {0, 1, 0}, {1, 0, 0}}
	parents := []int{-1, 0, 1, 1}
	px := func(j int) (float64, float64) { x, y, _, _ := project(vp, joints[j], 200, 200); return x, y }
	mid := func(a, b int) (float64, float64) {
		ax, ay := px(a)
		bx, by := px(b)
		return (ax + bx) / 2, (ay + by) / 2
	}
	tests := []struct {
		name string
		x, y float64
		want int
	}{
		{"on joint 2", 0, 0, 2},
		{"on bone 1-3 picks its parent", 0, 0, 1},
		{"far away", 5, 5, -1},
	}
	tests[0].x, tests[0].y = px(2)
	tests[1].x, tests[1].y = mid(1, 3)
	for _, tc := range tests {
		if got := pickJoint(vp, joints, parents, 200, 200, tc.x, tc.y, 6); got != tc.want {
			t.Errorf("%s: picked %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestColormaps(t *testing.T) {
	lo, hi := heat(0), heat(1)
	if !(lo[2] > lo[0]) || !(hi[0] > hi[2]) {
		t.Errorf("heat should run blue→red: Heat(0)=%v Heat(1)=%v", lo, hi)
	}
	if heat(-1) != lo || heat(2) != hi || heat(math.NaN()) != lo {
		t.Error("out-of-range weights are not clamped")
	}
	// The ramp is continuous: neighbouring weights get neighbouring colors.
	for i := 1; i <= 20; i++ {
		a, b := heat(float64(i-1)/20), heat(float64(i)/20)
		for k := 0; k < 3; k++ {
			if math.Abs(float64(a[k]-b[k])) > 0.25 {
				t.Errorf("Heat jumps between %d/20 and %d/20: %v → %v", i-1, i, a, b)
			}
		}
	}
	seen := map[[3]float32]int{}
	for n := 0; n <= 5; n++ {
		if m, dup := seen[influenceColor(n)]; dup {
			t.Errorf("influence counts %d and %d share a color", m, n)
		}
		seen[influenceColor(n)] = n
	}
}

func TestParseMode(t *testing.T) {
	for m := ModeShaded; m <= ModeInfluences; m++ {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("xray"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestRenderText(t *testing.T) {
	img := renderText([]string{"hello", "!error"})
	if img.Rect.Dy() != 2*lineHeight+6 {
		t.Errorf("height %d for two lines", img.Rect.Dy())
	}
	white, red := 0, 0
	for i := 0; i < len(img.Pix); i += 4 {
		r, g := img.Pix[i], img.Pix[i+1]
		if r > 200 && g > 200 {
			white++
		}
		if r > 200 && g < 120 {
			red++
		}
	}
	if white == 0 || red == 0 {
		t.Errorf("text not drawn: %d white and %d red pixels", white, red)
	}
	if e := renderText(nil); e.Rect.Empty() {
		t.Error("empty text gives an empty image")
	}
}

func TestRotateJointMovesChildAboutJoint(t *testing.T) {
	c := sampleCharacter(8, 500)
	sk := c.Skeleton
	j := 2
	child := 3
	axis := vecmath.Vec3{0, 0, 1}
	pose := rotateJoint(sk, character.RestPose(sk.NumJoints()), j, axis, math.Pi/2)
	w := sk.PosedWorld(pose)
	pj, pc := w[j].Translation(), w[child].Translation()
	before := sk.Position(child).Sub(sk.Position(j))
	after := pc.Sub(pj)
	want := vecmath.QuatAxisAngle(axis, math.Pi/2).Mat4().Dir(before)
	if after.Sub(want).Len() > 1e-9 {
		t.Errorf("child offset after a 90° turn about Z: %v, want %v", after, want)
	}
	// Other joints upstream stay put.
	if w[1].Translation().Sub(sk.Position(1)).Len() > 1e-12 {
		t.Error("parent joint moved")
	}
}

func TestAnimatedWorld(t *testing.T) {
	c := sampleCharacter(4, 200)
	sk := c.Skeleton
	// An empty animation reproduces the bind pose.
	w := animation.AnimatedWorld(sk, character.Animation{}, 0)
	for j := range w {
		for k := range w[j] {
			if math.Abs(w[j][k]-sk.BindWorld[j][k]) > 1e-9 {
				t.Fatalf("joint %d: bind pose not reproduced", j)
			}
		}
	}
	// A rotation channel on joint 1 turning 0 → 90° about Z: half way is 45°.
	q := vecmath.QuatAxisAngle(vecmath.Vec3{0, 0, 1}, math.Pi/2)
	a := character.Animation{Name: "bend", Channels: []character.AnimationChannel{{
		Joint: 1, Path: "rotation", Times: []float64{0, 2}, Values: []float64{0, 0, 0, 1, q[0], q[1], q[2], q[3]},
	}}}
	if d := animationDuration(a); d != 2 {
		t.Errorf("duration %v, want 2", d)
	}
	w = animation.AnimatedWorld(sk, a, 1)
	off := w[2].Translation().Sub(w[1].Translation())
	bind := sk.Position(2).Sub(sk.Position(1))
	ang := math.Acos(off.Normalize().Dot(bind.Normalize()))
	if math.Abs(ang-math.Pi/4) > 1e-6 {
		t.Errorf("half-way angle %.4f rad, want π/4", ang)
	}
}

func TestVertexColorsHeatmap(t *testing.T) {
	c := sampleCharacter(6, 300)
	j := 1
	col := vertexColors(c, ModeHeatmap, j)
	for v, infl := range c.Skin.Weights {
		w := 0.0
		for _, in := range infl {
			if in.Joint == j {
				w = in.Weight
			}
		}
		want := heat(w)
		got := [3]float32{col[3*v], col[3*v+1], col[3*v+2]}
		if got != want {
			t.Fatalf("vertex %d: color %v for weight %v, want %v", v, got, w, want)
		}
	}
}

func TestMatchJointAndMapPose(t *testing.T) {
	a := sampleCharacter(8, 200).Skeleton
	b := a.Clone()
	b.Names[3] = "renamed"
	if got := matchJoint(a, b, 3); got != 3 {
		t.Errorf("by position: got %d, want 3", got)
	}
	if got := matchJoint(a, b, 5); got != 5 {
		t.Errorf("by name: got %d, want 5", got)
	}
	pose := seededPose(a, 1)
	m := mapPose(a, b, pose)
	if m[2] != pose[2] || m[3] != (vecmath.Quat{0, 0, 0, 1}) {
		t.Errorf("mapped pose: %v / %v", m[2], m[3])
	}
}

func TestSilhouetteAndIoU(t *testing.T) {
	cam := Camera{Distance: 4, FovY: math.Pi / 2}
	// A square at the target covering [-1,1]² fills the middle half of the view in
	// each direction: at distance 4 with a 90° field, half-height is 4.
	sq := []vecmath.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}}
	mask := silhouette(cam.viewProj(1), sq, [][3]int{{0, 1, 2}, {0, 2, 3}}, 80, 80)
	n := 0
	for _, m := range mask {
		if m {
			n++
		}
	}
	if n != 20*20 {
		t.Errorf("square covers %d pixels, want 400", n)
	}
	if iou(mask, mask) != 1 || iou(mask, make([]bool, len(mask))) != 0 {
		t.Error("IoU of identical / disjoint masks")
	}
}

func TestStats(t *testing.T) {
	c := sampleCharacter(6, 300)
	s := Stats(c)
	want := fmt.Sprintf("%d verts, %d tris, 6 joints", len(c.Mesh.Positions), len(c.Mesh.Triangles))
	if !contains(s, want) {
		t.Errorf("Stats = %q, want it to contain %q", s, want)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestSampleCharacterValid(t *testing.T) {
	for _, tc := range []struct{ joints, tris int }{{2, 64}, {8, 2000}, {12, 100000}} {
		c := sampleCharacter(tc.joints, tc.tris)
		if err := c.Validate(); err != nil {
			t.Errorf("%d joints, %d tris: %v", tc.joints, tc.tris, err)
		}
		if n := len(c.Mesh.Triangles); n < tc.tris*8/10 || n > tc.tris*12/10+12 {
			t.Errorf("asked for %d triangles, got %d", tc.tris, n)
		}
	}
}

func TestHeatEnds(t *testing.T) {
	if got, want := fmt.Sprint(heat(0), heat(1)), "[0.1 0.15 0.75] [0.9 0.1 0.05]"; got != want {
		t.Errorf("heat(0), heat(1) = %s, want %s", got, want)
	}
}
