package viewer

import (
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// testApp builds the interactive state around sample characters, without a window.
func testApp(t *testing.T, compare bool) *app {
	t.Helper()
	o := RunOptions{Path: "a", Load: func(p string) (*character.Character, error) {
		switch p {
		case "a":
			return sampleCharacter(8, 800), nil
		case "b":
			c := sampleCharacter(8, 800)
			c.Name = "b"
			return c, nil
		}
		return nil, errors.New("no such file")
	}, Score: func(c *character.Character) string { return "score 0.5" }}
	if compare {
		o.Compare = "b"
	}
	a := newApp(o)
	if len(a.view.Rigs) != 1+btoi(compare) {
		t.Fatalf("%d rigs loaded, errors %q", len(a.view.Rigs), a.errors)
	}
	return a
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestAppKeys(t *testing.T) {
	a := testApp(t, true)
	p := a.primary()
	rest := append(character.Pose(nil), p.Pose...)
	tests := []struct {
		key   glfw.Key
		check func() bool
		what  string
	}{
		{glfw.KeyW, func() bool { return a.view.Mode == ModeWireframe }, "W: wireframe"},
		{glfw.KeyW, func() bool { return a.view.Mode == ModeShaded }, "W again: shaded"},
		{glfw.KeyH, func() bool { return a.view.Mode == ModeHeatmap }, "H: heatmap"},
		{glfw.KeyI, func() bool { return a.view.Mode == ModeInfluences }, "I: influences"},
		{glfw.KeyTab, func() bool { return p.Selected == 0 && a.view.Rigs[1].Selected == 0 }, "Tab: first joint, mirrored"},
		{glfw.KeyRightBracket, func() bool { return p.Selected == 1 }, "]: child"},
		{glfw.KeyLeftBracket, func() bool { return p.Selected == 0 }, "[: parent"},
		{glfw.KeyP, func() bool { return !samePose(p.Pose, rest) && samePose(a.view.Rigs[1].Pose, p.Pose) }, "P: random pose, mirrored"},
		{glfw.KeyR, func() bool { return samePose(p.Pose, rest) }, "R: reset"},
		{glfw.KeyRight, func() bool { return !samePose(p.Pose, rest) }, "→: rotate the selected bone"},
		{glfw.KeyC, func() bool { return a.view.layout == single && a.view.Show == 0 }, "C: first only"},
		{glfw.KeyC, func() bool { return a.view.layout == single && a.view.Show == 1 }, "C: second only"},
		{glfw.KeyC, func() bool { return a.view.layout == sideBySide }, "C: side by side"},
		{glfw.KeyS, func() bool { return a.view.HideSkeleton }, "S: hide skeleton"},
	}
	for _, tc := range tests {
		if quit := a.key(tc.key, 0); quit || !tc.check() {
			t.Errorf("%s: state wrong (mode %v, selected %d, layout %v/%d)", tc.what, a.view.Mode, p.Selected, a.view.layout, a.view.Show)
		}
	}
	if !a.key(glfw.KeyEscape, 0) {
		t.Error("Esc does not quit")
	}
	found := false
	for _, l := range a.overlay() {
		found = found || contains(l, "score 0.5")
	}
	if !found {
		t.Error("the rig's score is not in the overlay")
	}
}

func samePose(a, b character.Pose) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAppClickAndDrag(t *testing.T) {
	a := testApp(t, false)
	a.w, a.h = 800, 600
	a.view.frameAll(a.w, a.h)
	p := a.primary()
	vp := a.view.Camera.viewProj(float64(a.w) / float64(a.h))
	j := 3
	x, y, _, _ := project(vp, p.jointPositions()[j], a.w, a.h)
	a.click(x, y)
	if p.Selected != j {
		t.Fatalf("click on joint %d selected %d", j, p.Selected)
	}
	a.click(1, 1)
	if p.Selected != -1 {
		t.Errorf("click on empty space selected %d", p.Selected)
	}
	// Ctrl+drag rotates the selected bone; a plain drag orbits.
	p.Selected = j
	before := append(character.Pose(nil), p.Pose...)
	a.down[glfw.MouseButtonLeft], a.mods = true, glfw.ModControl
	a.drag(40, 0)
	if samePose(before, p.Pose) {
		t.Error("ctrl+drag did not pose the bone")
	}
	yaw := a.view.Camera.Yaw
	a.mods = 0
	a.drag(40, 0)
	if a.view.Camera.Yaw == yaw {
		t.Error("drag did not orbit")
	}
}

func TestAppAnimation(t *testing.T) {
	a := testApp(t, false)
	p := a.primary()
	q := vecmath.QuatAxisAngle(vecmath.Vec3{0, 0, 1}, 1)
	p.Char.Animations = []character.Animation{{Name: "wave", Channels: []character.AnimationChannel{{
		Joint: 2, Path: "rotation", Times: []float64{0, 1}, Values: []float64{0, 0, 0, 1, q[0], q[1], q[2], q[3]},
	}}}}
	a.key(glfw.KeySpace, 0)
	if !a.playing {
		t.Fatal("space did not start the animation")
	}
	a.advance(0.5)
	if len(p.World) != p.Char.Skeleton.NumJoints() {
		t.Fatal("playing animation sets no joint transforms")
	}
	if p.World[3].Translation() == p.Char.Skeleton.Position(3) {
		t.Error("animation did not move joint 3")
	}
	a.key(glfw.KeySpace, 0)
	if a.playing {
		t.Fatal("space did not pause the animation")
	}
	a.key(glfw.KeyR, 0)
	if a.playing || p.World != nil {
		t.Error("reset did not stop the animation")
	}
}

// TestAppStepsClips: N and Shift+N step through the clips and show each one's
// first frame, even while paused.
func TestAppStepsClips(t *testing.T) {
	a := testApp(t, false)
	p := a.primary()
	clip := func(name string, axis vecmath.Vec3) character.Animation {
		q := vecmath.QuatAxisAngle(axis, 1)
		return character.Animation{Name: name, Channels: []character.AnimationChannel{{
			Joint: 2, Path: "rotation", Times: []float64{0, 1}, Values: []float64{q[0], q[1], q[2], q[3], 0, 0, 0, 1},
		}}}
	}
	p.Char.Animations = []character.Animation{clip("a", vecmath.Vec3{0, 0, 1}), clip("b", vecmath.Vec3{1, 0, 0}), clip("c", vecmath.Vec3{0, 1, 0})}
	var seen []vecmath.Vec3
	for _, want := range []int{1, 2, 0} {
		a.key(glfw.KeyN, 0)
		if a.anim != want || a.playing {
			t.Fatalf("N: clip %d (playing %v), want %d, paused", a.anim, a.playing, want)
		}
		if len(p.World) != p.Char.Skeleton.NumJoints() {
			t.Fatal("N shows no frame of the clip")
		}
		seen = append(seen, p.World[3].Translation())
	}
	if seen[0] == seen[1] || seen[1] == seen[2] {
		t.Errorf("clips b, c, a put joint 3 at %v: the frame does not follow the clip", seen)
	}
	a.key(glfw.KeyN, glfw.ModShift)
	if a.anim != 2 {
		t.Errorf("Shift+N from clip 0: clip %d, want 2", a.anim)
	}
}

func TestRunWindowSmoke(t *testing.T) {
	openOffscreen(t) // skip without GL
	var frame *image.RGBA
	err := Run(RunOptions{Path: "a", Compare: "missing.glb", Frames: 3, Width: 640, Height: 360,
		Capture: func(img *image.RGBA) { frame = img },
		Load: func(p string) (*character.Character, error) {
			if p == "a" {
				return sampleCharacter(8, 800), nil
			}
			return nil, errors.New("no such file")
		}})
	if err != nil {
		t.Fatal(err)
	}
	if frame == nil {
		t.Fatal("no frame captured")
	}
	if dir := os.Getenv("RIGKIT_VIEWER_DUMP"); dir != "" {
		if f, err := os.Create(filepath.Join(dir, "window.png")); err == nil {
			_ = png.Encode(f, frame)
			f.Close()
		}
	}
	// The load error of the compared file is drawn in red text; the mesh is drawn too.
	red, clay := 0, 0
	for i := 0; i < len(frame.Pix); i += 4 {
		r, g, b := int(frame.Pix[i]), int(frame.Pix[i+1]), int(frame.Pix[i+2])
		if r > 200 && g < 120 && b < 120 {
			red++
		}
		if r > 90 && g > 80 && b > 60 && r-b > 15 && r-b < 60 {
			clay++
		}
	}
	if red < 20 || clay < 500 {
		t.Errorf("window frame: %d red (error text) and %d clay (mesh) pixels", red, clay)
	}
}
