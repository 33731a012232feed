package viewer

import (
	"fmt"
	"image"
	"math"
	"math/rand"
	"path/filepath"
	"time"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/vecmath"
	"github.com/rigkit/rigkit/viewer/edit"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// RunOptions configures the interactive viewer.
type RunOptions struct {
	Path    string // the character to show
	Compare string // optional second rig of the same mesh, drawn beside it
	Width   int    // window size; 0 means 1280×720
	Height  int
	// Load reads a character; nil means assets.Load.
	Load func(path string) (*character.Character, error)
	// Score returns a one-line summary of a rig's rewards for the overlay (e.g.
	// from package rewards); nil shows only the mesh and skeleton counts.
	Score func(c *character.Character) string
	// Frames, when positive, closes the window after that many frames (smoke tests).
	Frames int
	// Capture, when set with Frames, receives the last frame as an image.
	Capture func(img *image.RGBA)
	// Out is where Ctrl+S saves the edited rig (empty: beside the input, as
	// edit.SiblingPath names it; never over the input).
	Out string
	// Skinners are the slow re-skin methods the K key runs in the background
	// ("tokens": `rig skin`'s learned method), by name.
	Skinners map[string]edit.Skinner
}

// helpLines is the on-screen help.
var helpLines = []string{
	"LMB orbit | Shift+LMB/MMB pan | wheel zoom | F frame | click bone: select | Tab/[ ] next/parent bone",
	"Ctrl+LMB or RMB drag / arrows: rotate bone | R reset | P random pose | Space play/pause anim | N / Shift+N next / previous anim",
	"W wireframe | H heatmap | I influences | T texture/shaded/heatmap | S skeleton | C compare layout | L reload | ? help | Esc quit",
}

// app is the interactive viewer's state. Its event methods are plain Go so they can
// be driven without a window.
type app struct {
	opts RunOptions
	view view
	messages
	bench *workbench // nil: the primary rig has no skeleton to edit

	w, h       int // framebuffer size
	help       bool
	rng        *rand.Rand
	frameMS    float64
	needsFrame bool
	playback
	pointer
}

// messages are the overlay's lines about the loaded files.
type messages struct {
	errors []string // load errors shown in red
	scores []string
}

// playback is the state of the glTF animation the viewer plays.
type playback struct {
	playing  bool
	anim     int
	animTime float64
}

// pointer is the mouse's state between events: buttons held, modifiers, where the
// last move and the last press were.
type pointer struct {
	down       [3]bool
	mods       glfw.ModifierKey
	lastX      float64
	lastY      float64
	pressX     float64
	pressY     float64
	dragged    bool
	taken      bool    // the workbench took the press (joint drag, reparent pick)
	fbPerPixel float64 // framebuffer pixels per window coordinate
}

func newApp(o RunOptions) *app {
	if o.Load == nil {
		o.Load = assets.Options{}.Loader()
	}
	a := &app{opts: o, help: true, rng: rand.New(rand.NewSource(time.Now().UnixNano())),
		w: 1280, h: 720, pointer: pointer{fbPerPixel: 1}, needsFrame: true}
	a.view.Camera = defaultCamera()
	a.load()
	return a
}

// load (re)reads the files; failures become overlay errors, not exits.
func (a *app) load() {
	a.errors = nil
	a.scores = nil
	a.view.Rigs = nil
	a.playing, a.animTime = false, 0
	paths := []string{a.opts.Path}
	if a.opts.Compare != "" {
		paths = append(paths, a.opts.Compare)
	}
	for _, p := range paths {
		c, err := a.opts.Load(p)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			a.errors = append(a.errors, fmt.Sprintf("!error: %s: %v", p, oneLine(err)))
			continue
		}
		if c.Name == "" {
			c.Name = filepath.Base(p)
		}
		r := newRig(c)
		r.Label = filepath.Base(p)
		a.view.Rigs = append(a.view.Rigs, r)
		a.scores = append(a.scores, Stats(c))
		if a.opts.Score != nil {
			a.scores = append(a.scores, "  "+a.opts.Score(c))
		}
	}
	if len(a.view.Rigs) < 2 {
		for _, r := range a.view.Rigs {
			r.Label = ""
		}
	}
	a.view.frameAll(a.w, a.h)
	a.startBench()
	a.needsFrame = true
}

func oneLine(err error) string {
	s := err.Error()
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// primary returns the rig whose pose and selection the controls edit.
func (a *app) primary() *rig {
	if len(a.view.Rigs) == 0 {
		return nil
	}
	return a.view.Rigs[0]
}

// sync carries the primary rig's pose and selection to the compared rig.
func (a *app) sync() {
	p := a.primary()
	if p == nil || len(a.view.Rigs) < 2 {
		return
	}
	for _, r := range a.view.Rigs[1:] {
		if p.Char.Skeleton != nil && r.Char.Skeleton != nil {
			r.Pose = mapPose(p.Char.Skeleton, r.Char.Skeleton, p.Pose)
			r.Selected = matchJoint(p.Char.Skeleton, r.Char.Skeleton, p.Selected)
		}
	}
}

// overlay returns the text lines for the current state.
func (a *app) overlay() []string {
	var lines []string
	if a.help {
		lines = append(lines, helpLines...)
		if a.bench != nil {
			lines = append(lines, benchHelp)
		}
	}
	lines = append(lines, a.scores...)
	status := fmt.Sprintf("mode: %s", a.view.Mode)
	if p := a.primary(); p != nil {
		if sk := p.Char.Skeleton; sk != nil && p.Selected >= 0 && p.Selected < sk.NumJoints() {
			status += fmt.Sprintf(" | bone: %s (#%d)", sk.Names[p.Selected], p.Selected)
		} else {
			status += " | bone: none (click one)"
		}
		if n := len(p.Char.Animations); n > 0 {
			an := p.Char.Animations[a.anim%n]
			state := "paused"
			if a.playing {
				state = "playing"
			}
			status += fmt.Sprintf(" | anim %d/%d %q %.2f/%.2fs %s", a.anim%n+1, n, an.Name, a.animTime, animationDuration(an), state)
		}
		if len(a.view.Rigs) > 1 {
			if a.view.layout == sideBySide {
				status += " | compare: side by side"
			} else {
				status += fmt.Sprintf(" | compare: showing %s", a.view.Rigs[a.view.Show].Label)
			}
		}
	}
	if a.frameMS > 0 {
		status += fmt.Sprintf(" | %.1f ms/frame", a.frameMS)
	}
	lines = append(lines, status)
	if s := a.benchStatus(); s != "" {
		lines = append(lines, s)
	}
	if s := a.renameLine(); s != "" {
		lines = append(lines, s)
	}
	lines = append(lines, a.panelLines()...)
	return append(lines, a.errors...)
}

// key handles a key press.
func (a *app) key(k glfw.Key, mods glfw.ModifierKey) (quit bool) {
	a.needsFrame = true
	if a.benchKey(k, mods) {
		return false
	}
	p := a.primary()
	step := 5 * math.Pi / 180
	switch k {
	case glfw.KeyEscape, glfw.KeyQ:
		return true
	case glfw.KeyF:
		a.view.frameAll(a.w, a.h)
	case glfw.KeyW:
		a.view.Mode = toggle(a.view.Mode, ModeWireframe)
	case glfw.KeyH:
		a.view.Mode = toggle(a.view.Mode, ModeHeatmap)
	case glfw.KeyI:
		a.view.Mode = toggle(a.view.Mode, ModeInfluences)
	case glfw.KeyT:
		a.view.Mode = nextLook(a.view.Mode)
	case glfw.KeyS:
		a.view.HideSkeleton = !a.view.HideSkeleton
	case glfw.KeySlash, glfw.KeyF1:
		a.help = !a.help
	case glfw.KeyL:
		a.load()
	case glfw.KeyC:
		if n := len(a.view.Rigs); n > 1 {
			// side by side → first only → second only → side by side
			switch {
			case a.view.layout == sideBySide:
				a.view.layout, a.view.Show = single, 0
			case a.view.Show+1 < n:
				a.view.Show++
			default:
				a.view.layout, a.view.Show = sideBySide, 0
			}
		}
	}
	if p == nil || p.Char.Skeleton == nil {
		return false
	}
	sk := p.Char.Skeleton
	right, up, fwd := a.view.Camera.basis()
	switch k {
	case glfw.KeyR:
		p.Pose = character.RestPose(sk.NumJoints())
		a.stopAnim()
	case glfw.KeyP:
		p.Pose = randomPose(sk, a.rng)
		a.stopAnim()
	case glfw.KeyTab:
		if mods&glfw.ModShift != 0 {
			p.Selected = (p.Selected - 1 + sk.NumJoints()) % sk.NumJoints()
		} else {
			p.Selected = (p.Selected + 1) % sk.NumJoints()
		}
	case glfw.KeyLeftBracket:
		if p.Selected >= 0 && sk.Parents[p.Selected] >= 0 {
			p.Selected = sk.Parents[p.Selected]
		}
	case glfw.KeyRightBracket:
		for j, par := range sk.Parents {
			if par == p.Selected && p.Selected >= 0 {
				p.Selected = j
				break
			}
		}
	case glfw.KeySpace:
		if len(p.Char.Animations) > 0 {
			a.playing = !a.playing
		}
	case glfw.KeyN:
		if n := len(p.Char.Animations); n > 0 {
			step := 1
			if mods&glfw.ModShift != 0 {
				step = n - 1
			}
			a.anim = (a.anim + step) % n
			a.animTime = 0
			a.showAnimFrame()
		}
	case glfw.KeyLeft, glfw.KeyRight, glfw.KeyUp, glfw.KeyDown:
		axis, ang := up, step
		switch k {
		case glfw.KeyLeft:
			ang = -step
		case glfw.KeyUp:
			axis, ang = right, -step
		case glfw.KeyDown:
			axis = right
		}
		if mods&glfw.ModShift != 0 && (k == glfw.KeyLeft || k == glfw.KeyRight) {
			axis = fwd
		}
		a.rotateSelected(axis, ang)
	}
	a.sync()
	return false
}

// nextLook steps T's cycle: textured, shaded, heatmap (from any other mode:
// textured).
func nextLook(cur Mode) Mode {
	switch cur {
	case ModeTextured:
		return ModeShaded
	case ModeShaded:
		return ModeHeatmap
	}
	return ModeTextured
}

func toggle(cur, m Mode) Mode {
	if cur == m {
		return ModeShaded
	}
	return m
}

func (a *app) stopAnim() {
	a.playing = false
	for _, r := range a.view.Rigs {
		r.World = nil
	}
}

// rotateSelected turns the selected joint about a world axis.
func (a *app) rotateSelected(axis vecmath.Vec3, angle float64) {
	p := a.primary()
	if p == nil || p.Selected < 0 || p.Char.Skeleton == nil {
		return
	}
	a.stopAnim()
	p.Pose = rotateJoint(p.Char.Skeleton, p.Pose, p.Selected, axis, angle)
	a.sync()
}

// rigAt returns the index of the rig whose viewport holds framebuffer pixel x (from
// the left) and that viewport's rectangle.
func (a *app) rigAt(x float64) (int, [4]int) {
	rigs, rects := a.view.viewports(a.w, a.h)
	for i, rc := range rects {
		if x >= float64(rc[0]) && x < float64(rc[0]+rc[2]) {
			for k, r := range a.view.Rigs {
				if r == rigs[i] {
					return k, rc
				}
			}
		}
	}
	return -1, [4]int{}
}

// click selects the bone nearest the framebuffer pixel (x, y), y from the top.
func (a *app) click(x, y float64) {
	k, rc := a.rigAt(x)
	if k < 0 {
		return
	}
	r := a.view.Rigs[k]
	if r.Char.Skeleton == nil {
		return
	}
	vp := a.view.Camera.viewProj(float64(rc[2]) / float64(max(rc[3], 1)))
	j := pickJoint(vp, r.jointPositions(), r.Char.Skeleton.Parents, rc[2], rc[3], x-float64(rc[0]), y, 12*a.fbPerPixel)
	if k > 0 { // picked on the compared rig: select the matching joint of the primary
		j = matchJoint(r.Char.Skeleton, a.primary().Char.Skeleton, j)
	}
	a.primary().Selected = j
	a.sync()
	a.needsFrame = true
}

// drag handles mouse motion by dx, dy framebuffer pixels with the given buttons.
func (a *app) drag(dx, dy float64) {
	h := float64(max(a.h, 1))
	ctrl := a.mods&(glfw.ModControl|glfw.ModAlt) != 0
	shift := a.mods&glfw.ModShift != 0
	switch {
	case a.down[glfw.MouseButtonRight] || (a.down[glfw.MouseButtonLeft] && ctrl):
		right, up, _ := a.view.Camera.basis()
		a.rotateSelected(up, dx/h*math.Pi)
		a.rotateSelected(right, dy/h*math.Pi)
	case a.down[glfw.MouseButtonMiddle] || (a.down[glfw.MouseButtonLeft] && shift):
		a.view.Camera.pan(dx/h, dy/h)
	case a.down[glfw.MouseButtonLeft]:
		a.view.Camera.orbit(dx/h*math.Pi, dy/h*math.Pi)
	}
	a.needsFrame = true
}

// showAnimFrame poses every rig at the current animation's current time.
func (a *app) showAnimFrame() {
	for _, r := range a.view.Rigs {
		if n := len(r.Char.Animations); n > 0 && r.Char.Skeleton != nil {
			r.World = animation.AnimatedWorld(r.Char.Skeleton, r.Char.Animations[a.anim%n], a.animTime)
		}
	}
	a.needsFrame = true
}

// advance moves a playing animation on by dt seconds.
func (a *app) advance(dt float64) {
	p := a.primary()
	if !a.playing || p == nil || len(p.Char.Animations) == 0 {
		return
	}
	an := p.Char.Animations[a.anim%len(p.Char.Animations)]
	d := animationDuration(an)
	a.animTime += dt
	if d > 0 {
		a.animTime = math.Mod(a.animTime, d)
	} else {
		a.animTime = 0
	}
	a.showAnimFrame()
}

// Run opens the interactive viewer window and returns when it is closed. Files that
// fail to load are reported in the window. It returns an error wrapping
// ErrNoDisplay when no window can be opened.
func Run(o RunOptions) error {
	a := newApp(o)
	if o.Width > 0 && o.Height > 0 {
		a.w, a.h = o.Width, o.Height
	}
	return onGL(func() error {
		title := "rig view " + filepath.Base(o.Path)
		if o.Compare != "" {
			title += " vs " + filepath.Base(o.Compare)
		}
		win, err := newWindow(a.w, a.h, title, true)
		if err != nil {
			return err
		}
		defer win.Destroy()
		r, err := newRenderer()
		if err != nil {
			return err
		}
		defer r.release()
		glfw.SwapInterval(1)
		a.resize(win)
		a.view.frameAll(a.w, a.h)
		win.SetFramebufferSizeCallback(func(_ *glfw.Window, w, h int) { a.resize(win) })
		a.bindInput(win)
		last := time.Now()
		frames := 0
		for !win.ShouldClose() {
			if o.Frames > 0 {
				if frames >= o.Frames {
					break
				}
				a.needsFrame = true
			}
			now := time.Now()
			a.poll()
			if a.bench != nil && a.bench.running != "" {
				a.needsFrame = true // the progress line counts up
			}
			a.advance(now.Sub(last).Seconds())
			last = now
			if a.needsFrame {
				a.needsFrame = false
				a.view.Overlay = a.overlay()
				t0 := time.Now()
				gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
				r.draw(&a.view, a.w, a.h)
				gl.Finish()
				a.frameMS = 0.8*a.frameMS + 0.2*float64(time.Since(t0).Microseconds())/1000
				if o.Capture != nil && frames+1 == o.Frames {
					o.Capture(readFramebuffer(a.w, a.h))
				}
				win.SwapBuffers()
				frames++
			}
			if a.playing || o.Frames > 0 {
				glfw.PollEvents()
			} else {
				glfw.WaitEventsTimeout(0.25)
			}
		}
		return nil
	})
}

// bindInput routes the window's keys, mouse buttons, cursor motion and scroll to
// the app: a click without a drag picks, a drag orbits or pans, scroll zooms.
func (a *app) bindInput(win *glfw.Window) {
	win.SetKeyCallback(func(_ *glfw.Window, k glfw.Key, _ int, act glfw.Action, mods glfw.ModifierKey) {
		if act == glfw.Release {
			return
		}
		a.mods = mods
		if a.key(k, mods) {
			win.SetShouldClose(true)
		}
	})
	win.SetMouseButtonCallback(func(_ *glfw.Window, b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) {
		if b > glfw.MouseButtonMiddle {
			return
		}
		x, y := win.GetCursorPos()
		x, y = x*a.fbPerPixel, y*a.fbPerPixel
		a.mods = mods
		plain := mods&(glfw.ModControl|glfw.ModShift|glfw.ModAlt) == 0
		if act == glfw.Press {
			a.down[b] = true
			a.pressX, a.pressY, a.lastX, a.lastY, a.dragged = x, y, x, y, false
			a.taken = b == glfw.MouseButtonLeft && mods&(glfw.ModControl|glfw.ModShift) == 0 && a.press(x, y)
			return
		}
		a.down[b] = false
		if a.taken {
			a.taken = false
			if a.bench != nil {
				a.bench.drag = jointDrag{}
			}
			return
		}
		if b == glfw.MouseButtonLeft && !a.dragged && plain {
			a.click(x, y)
		}
	})
	win.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) {
		x, y = x*a.fbPerPixel, y*a.fbPerPixel
		if !(a.down[0] || a.down[1] || a.down[2]) {
			a.lastX, a.lastY = x, y // where A adds a joint
			return
		}
		if math.Hypot(x-a.pressX, y-a.pressY) > 3*a.fbPerPixel {
			a.dragged = true
		}
		switch {
		case a.dragged && a.taken && a.bench != nil && a.bench.drag.active:
			a.dragJoint(x-a.lastX, y-a.lastY)
		case a.dragged && !a.taken:
			a.drag(x-a.lastX, y-a.lastY)
		}
		a.lastX, a.lastY = x, y
	})
	win.SetCharCallback(func(_ *glfw.Window, r rune) { a.typed(r) })
	win.SetScrollCallback(func(_ *glfw.Window, _, dy float64) {
		a.view.Camera.zoom(dy)
		a.needsFrame = true
	})
}

func (a *app) resize(win *glfw.Window) {
	fw, fh := win.GetFramebufferSize()
	ww, _ := win.GetSize()
	a.w, a.h = max(fw, 1), max(fh, 1)
	if ww > 0 {
		a.fbPerPixel = float64(fw) / float64(ww)
	}
	a.needsFrame = true
}
