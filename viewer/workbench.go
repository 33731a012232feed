package viewer

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
	"github.com/rigkit/rigkit/viewer/edit"
)

// benchHelp is the on-screen help of the rigging workbench's keys.
var benchHelp = "drag selected joint: move (Alt: along its bone) | A add child at cursor | Del delete | X mirror | " +
	"Ctrl+P reparent (click the parent) | J lock weights | G re-skin geodesic (Shift: all) | K re-skin tokens | " +
	"F2 rename | Ctrl+Z/Ctrl+Y undo/redo | Ctrl+S save | O problems (, . select)"

// workbench is the primary rig under edit: the edit.Rig behind what is on screen,
// the joint drag in progress, the re-skin running in the background and the last
// message. Every change goes through package edit's functions.
type workbench struct {
	rig         *edit.Rig
	drag        jointDrag
	reparenting bool // the next click picks the selected joint's new parent
	message     string
	// running is the method of the background re-skin (empty: none) and started
	// when it began; done receives its outcome, applied on the UI thread.
	running string
	started time.Time
	done    chan func(a *app)
	panel   problemPanel
	// rescoring is set while the overlay's rewards line is recomputed.
	rescoring bool
	// naming is the name being typed by an open rename (F2), nil when none is.
	naming *[]rune
}

// jointDrag is a mouse drag of the selected joint: from where, by how much so far,
// and whether a move was committed (a drag is one undo step, replaced as it goes).
type jointDrag struct {
	active    bool
	joint     int
	start     vecmath.Vec3
	total     vecmath.Vec3
	committed bool
}

// startBench puts the primary rig under edit; a rig without a skeleton stays
// view-only.
func (a *app) startBench() {
	a.bench = nil
	p := a.primary()
	if p == nil || p.Char.Skeleton == nil {
		return
	}
	r, err := edit.New(p.Char)
	if err != nil {
		return
	}
	b := &workbench{rig: r, done: make(chan func(a *app), 2), panel: problemPanel{selected: -1}}
	a.bench = b
	go func() { // the mirror plane, ahead of the first X (anatomy.Fit takes a while)
		sym, err := edit.DetectSymmetry(p.Char)
		b.done <- func(*app) {
			if err == nil {
				b.rig.SetSymmetry(sym)
			}
		}
	}()
}

// refresh shows the edited rig: a new character (the renderer uploads it again),
// the pose kept while the joint count is, the selection kept in range.
func (a *app) refresh(msg string) {
	b, p := a.bench, a.primary()
	c := b.rig.Character()
	if len(p.Pose) != c.Skeleton.NumJoints() {
		p.Pose = nil
	}
	p.Char, p.World = c, nil
	if p.Pose == nil {
		p.Pose = character.RestPose(c.Skeleton.NumJoints())
	}
	if p.Selected >= c.Skeleton.NumJoints() {
		p.Selected = -1
	}
	b.message = msg
	p.Highlight = nil
	if b.panel.open {
		a.scoreInBackground() // the problems of the edited rig
	}
	a.needsFrame = true
}

// report shows an edit's outcome: its label, or its error.
func (a *app) report(label string, err error) {
	if err != nil {
		a.bench.message = "!" + oneLine(err)
		a.needsFrame = true
		return
	}
	a.refresh(label)
}

// benchKey handles the workbench's keys; it reports whether the key was one.
func (a *app) benchKey(k glfw.Key, mods glfw.ModifierKey) bool {
	b, p := a.bench, a.primary()
	if b == nil || p == nil {
		return false
	}
	if a.renameKey(k) {
		a.needsFrame = true
		return true
	}
	ctrl, shift := mods&glfw.ModControl != 0, mods&glfw.ModShift != 0
	switch {
	case ctrl && (k == glfw.KeyY || (k == glfw.KeyZ && shift)):
		a.report(b.rig.Redo())
	case ctrl && k == glfw.KeyZ:
		a.report(b.rig.Undo())
	case ctrl && k == glfw.KeyS:
		a.save()
	case ctrl && k == glfw.KeyP:
		b.reparenting = !b.reparenting && p.Selected >= 0
		b.message = "click the new parent (Ctrl+P again: cancel)"
		if !b.reparenting {
			b.message = ""
		}
	case k == glfw.KeyG:
		scope := edit.ScopeEdited
		if shift {
			scope = edit.ScopeAll
		}
		if err := b.rig.Reskin(edit.Geodesic, scope); err != nil {
			a.report("", err)
		} else {
			a.report("re-skinned with geodesic", nil)
			a.rescore()
		}
	case k == glfw.KeyK:
		a.reskinInBackground("tokens")
	case k == glfw.KeyO:
		a.togglePanel()
	case k == glfw.KeyComma || k == glfw.KeyPeriod:
		step := 1
		if k == glfw.KeyComma {
			step = -1
		}
		a.selectProblem(step)
	case ctrl:
		return false
	default:
		return a.jointKey(k)
	}
	a.needsFrame = true
	return true
}

// jointKey handles the keys that edit the selected joint.
func (a *app) jointKey(k glfw.Key) bool {
	b, p := a.bench, a.primary()
	j := p.Selected
	var err error
	switch k {
	case glfw.KeyX, glfw.KeyDelete, glfw.KeyBackspace, glfw.KeyJ, glfw.KeyA:
	default:
		return false
	}
	if j < 0 {
		a.report("", errors.New("select a joint first (click it)"))
		return true
	}
	label := ""
	switch k {
	case glfw.KeyX:
		err = b.rig.Mirror(j)
	case glfw.KeyDelete, glfw.KeyBackspace:
		err = b.rig.Delete(j)
		p.Selected = -1
	case glfw.KeyJ:
		err = b.rig.Lock(j, !b.rig.Locked(j))
	case glfw.KeyA:
		var added int
		added, err = b.rig.AddChild(j, "", a.cursorPoint(j))
		if err == nil {
			p.Selected = added
		}
	}
	if h := b.rig.History(); err == nil && len(h) > 0 {
		label = h[len(h)-1]
	}
	a.report(label, err)
	return true
}

// cursorPoint is the world point under the cursor on the plane through joint j
// that faces the camera: where "add child at the cursor" puts the joint.
func (a *app) cursorPoint(j int) vecmath.Vec3 {
	p := a.primary()
	at := p.Char.Skeleton.Position(j)
	_, rc := a.rigAt(a.lastX)
	vp := a.view.Camera.viewProj(float64(rc[2]) / float64(max(rc[3], 1)))
	x, y, _, ok := project(vp, at, rc[2], rc[3])
	if !ok {
		return at
	}
	return at.Add(a.pixelDelta(at, a.lastX-float64(rc[0])-x, a.lastY-y, rc[3]))
}

// pixelDelta converts a drag of (dx, dy) framebuffer pixels in a viewport h pixels
// high into a world delta in the view plane at point at's depth.
func (a *app) pixelDelta(at vecmath.Vec3, dx, dy float64, h int) vecmath.Vec3 {
	cam := a.view.Camera
	right, up, fwd := cam.basis()
	depth := math.Max(at.Sub(cam.eye()).Dot(fwd), 1e-6)
	perPixel := 2 * depth * math.Tan(cam.FovY/2) / float64(max(h, 1))
	return right.Scale(dx * perPixel).Add(up.Scale(-dy * perPixel))
}

// press starts a joint drag when the left button goes down on the selected joint,
// or finishes a reparent when one was asked for. It reports whether it took the
// press (no orbit then).
func (a *app) press(x, y float64) bool {
	b, p := a.bench, a.primary()
	if b == nil || p == nil || p.Selected < 0 {
		return false
	}
	k, rc := a.rigAt(x)
	if k != 0 {
		return false
	}
	vp := a.view.Camera.viewProj(float64(rc[2]) / float64(max(rc[3], 1)))
	j := pickJoint(vp, p.jointPositions(), p.Char.Skeleton.Parents, rc[2], rc[3], x-float64(rc[0]), y, 12*a.fbPerPixel)
	if b.reparenting {
		b.reparenting = false
		if j >= 0 {
			a.report(fmt.Sprintf("reparented %s under %s", p.Char.Skeleton.Names[p.Selected], p.Char.Skeleton.Names[j]),
				b.rig.Reparent(p.Selected, j))
		}
		return true
	}
	if j != p.Selected {
		return false
	}
	b.drag = jointDrag{active: true, joint: j, start: p.Char.Skeleton.Position(j)}
	return true
}

// dragJoint moves the dragged joint by a mouse motion (replacing the drag's own
// move, so that the whole drag is one undo step). Alt constrains it to the bone.
func (a *app) dragJoint(dx, dy float64) {
	b := a.bench
	d := &b.drag
	_, rc := a.rigAt(a.lastX)
	d.total = d.total.Add(a.pixelDelta(d.start.Add(d.total), dx, dy, rc[3]))
	move := d.total
	if a.mods&glfw.ModAlt != 0 {
		if axis, err := b.rig.BoneAxis(d.joint); err == nil {
			move = axis.Scale(move.Dot(axis))
		}
	}
	if d.committed {
		if _, err := b.rig.Undo(); err != nil {
			d.committed = false
		}
	}
	err := b.rig.MoveTo(d.joint, d.start.Add(move))
	d.committed = err == nil
	a.report(fmt.Sprintf("move %s", a.primary().Char.Skeleton.Names[d.joint]), err)
}

// save writes the edited rig beside the input (or to RunOptions.Out), never over it.
func (a *app) save() {
	out := a.opts.Out
	if out == "" {
		out = edit.SiblingPath(a.opts.Path)
	}
	_, err := a.bench.rig.Save(out, edit.SaveOptions{Input: a.opts.Path, Score: true})
	a.report("saved "+out+" and "+edit.ReportPath(out), err)
}

// reskinInBackground re-skins a snapshot with a slow method off the UI thread; the
// status line shows its progress and the result applies when it is done (unless
// the rig changed meanwhile).
func (a *app) reskinInBackground(method string) {
	b := a.bench
	skin, ok := a.opts.Skinners[method]
	if !ok {
		a.report("", fmt.Errorf("re-skin method %q is not available in this build (no model with skin tokens)", method))
		return
	}
	if b.running != "" {
		a.report("", fmt.Errorf("a %s re-skin is running", b.running))
		return
	}
	job, err := b.rig.Start(edit.ScopeAll)
	if err != nil {
		a.report("", err)
		return
	}
	b.running, b.started = method, time.Now()
	go func() {
		err := job.Run(skin)
		b.done <- func(a *app) {
			b.running = ""
			if err == nil {
				err = b.rig.Finish(job)
			}
			a.report("re-skinned with "+method, err)
			if err == nil {
				a.rescore()
			}
		}
	}()
}

// poll applies a finished background re-skin; called by the frame loop, which
// wakes at least every 0.25 s while one runs (its progress line counts up).
func (a *app) poll() {
	if a.bench == nil {
		return
	}
	select {
	case apply := <-a.bench.done:
		apply(a)
	default:
	}
}

// benchStatus is the workbench's status line.
func (a *app) benchStatus() string {
	b := a.bench
	if b == nil {
		return ""
	}
	s := fmt.Sprintf("edits: %d", len(b.rig.History()))
	if p := a.primary(); p != nil && p.Selected >= 0 && b.rig.Locked(p.Selected) {
		s += " | weights locked"
	}
	if b.running != "" {
		s += fmt.Sprintf(" | re-skinning with %s... %.1f s", b.running, time.Since(b.started).Seconds())
	}
	if msg, bad := strings.CutPrefix(b.message, "!"); bad {
		return "!" + s + " | " + msg
	} else if msg != "" {
		s += " | " + msg
	}
	return s
}

// rescore updates the overlay's counts and rewards line of the edited rig off the
// UI thread (after a re-skin: the weights the score reads have changed).
func (a *app) rescore() {
	b := a.bench
	if a.opts.Score == nil || b.rescoring || len(a.scores) < 2 {
		return
	}
	b.rescoring = true
	c := b.rig.Character()
	go func() {
		line := "  " + a.opts.Score(c)
		b.done <- func(a *app) {
			b.rescoring = false
			if len(a.scores) >= 2 {
				a.scores[0], a.scores[1] = Stats(c), line
			}
			a.needsFrame = true
		}
	}()
}
