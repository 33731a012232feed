package viewer

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/viewer/edit"
)

// pressOn presses the left button on joint j of the primary rig, as the mouse
// callback does, and reports whether the workbench took the press.
func pressOn(t *testing.T, a *app, j int) bool {
	t.Helper()
	vp := a.view.Camera.viewProj(float64(a.w) / float64(a.h))
	x, y, _, _ := project(vp, a.primary().jointPositions()[j], a.w, a.h)
	a.lastX, a.lastY = x, y
	return a.press(x, y)
}

// TestWorkbenchDrag drags the selected joint: it moves in the view plane by the
// mouse's motion at its depth, the whole drag is one undo step, and Alt keeps it
// on its bone's axis.
func TestWorkbenchDrag(t *testing.T) {
	a := testApp(t, false)
	a.w, a.h = 800, 600
	a.view.frameAll(a.w, a.h)
	p := a.primary()
	j := 3
	p.Selected = j
	start := p.Char.Skeleton.Position(j)
	if !pressOn(t, a, j) {
		t.Fatal("pressing the selected joint did not start a drag")
	}
	a.dragJoint(20, 0)
	a.dragJoint(20, -10)
	moved := p.Char.Skeleton.Position(j)
	right, up, _ := a.view.Camera.basis()
	d := moved.Sub(start)
	if d.Dot(right) <= 0 || d.Dot(up) <= 0 {
		t.Errorf("dragging right and up moved the joint by %v (right %v, up %v)", d, right, up)
	}
	if n := len(a.bench.rig.History()); n != 1 {
		t.Errorf("one drag made %d undo steps", n)
	}
	a.key(glfw.KeyZ, glfw.ModControl)
	if got := a.primary().Char.Skeleton.Position(j); got.Dist(start) > 1e-12 {
		t.Errorf("Ctrl+Z left the joint at %v, want %v", got, start)
	}
	// Alt: along the bone from the parent.
	a.bench.drag = jointDrag{}
	if !pressOn(t, a, j) {
		t.Fatal("second press did not start a drag")
	}
	a.mods = glfw.ModAlt
	a.dragJoint(30, 30)
	a.mods = 0
	sk := a.primary().Char.Skeleton
	axis := start.Sub(sk.Position(sk.Parents[j])).Normalize()
	off := sk.Position(j).Sub(start)
	if off.Len() == 0 || off.Sub(axis.Scale(off.Dot(axis))).Len() > 1e-9 {
		t.Errorf("Alt+drag moved %v, off the bone axis %v", off, axis)
	}
}

// TestWorkbenchKeys runs the keys: add a child, delete it, lock, re-skin,
// undo and redo, with the status line saying what happened.
func TestWorkbenchKeys(t *testing.T) {
	a := testApp(t, false)
	a.w, a.h = 800, 600
	a.view.frameAll(a.w, a.h)
	p := a.primary()
	n := p.Char.Skeleton.NumJoints()
	if !a.key(glfw.KeyX, 0) && !strings.Contains(a.benchStatus(), "select a joint first") {
		t.Errorf("X without a selection: status %q", a.benchStatus())
	}
	p.Selected = 2
	a.lastX, a.lastY = 500, 200
	a.key(glfw.KeyA, 0)
	if got := a.primary().Char.Skeleton.NumJoints(); got != n+1 || a.primary().Selected != n {
		t.Fatalf("A: %d joints, selected %d; want %d and the added joint", got, a.primary().Selected, n+1)
	}
	a.key(glfw.KeyJ, 0)
	if !a.bench.rig.Locked(n) || !strings.Contains(a.benchStatus(), "weights locked") {
		t.Errorf("J did not lock the weights: %q", a.benchStatus())
	}
	a.opts.Score = func(*character.Character) string { return "rescored" }
	a.key(glfw.KeyG, 0)
	if !strings.Contains(a.benchStatus(), "re-skinned with geodesic") {
		t.Errorf("G: status %q", a.benchStatus())
	}
	for a.bench.rescoring {
		(<-a.bench.done)(a)
	}
	if !strings.Contains(a.scores[1], "rescored") {
		t.Errorf("the rewards line was not updated after the re-skin: %q", a.scores)
	}
	a.key(glfw.KeyDelete, 0)
	if got := a.primary().Char.Skeleton.NumJoints(); got != n {
		t.Errorf("Delete: %d joints, want %d", got, n)
	}
	for range 4 {
		a.key(glfw.KeyZ, glfw.ModControl)
	}
	if got := a.primary().Char.Skeleton.NumJoints(); got != n || len(a.bench.rig.History()) != 0 {
		t.Errorf("after undoing everything: %d joints, history %v", got, a.bench.rig.History())
	}
	a.key(glfw.KeyY, glfw.ModControl)
	if got := a.primary().Char.Skeleton.NumJoints(); got != n+1 {
		t.Errorf("Ctrl+Y: %d joints, want the added joint back", got)
	}
}

// TestWorkbenchBackgroundReskin runs a slow re-skin off the UI thread: the status
// line counts while it runs and the result applies when the loop polls.
func TestWorkbenchBackgroundReskin(t *testing.T) {
	a := testApp(t, false)
	release := make(chan struct{})
	a.opts.Skinners = map[string]edit.Skinner{"tokens": func(c *character.Character) (*character.Skin, error) {
		<-release
		return edit.Geodesic(c)
	}}
	before := a.primary().Char
	a.key(glfw.KeyK, 0)
	if !strings.Contains(a.benchStatus(), "re-skinning with tokens") {
		t.Fatalf("status while running: %q", a.benchStatus())
	}
	a.poll()
	if a.primary().Char != before {
		t.Fatal("the rig changed before the re-skin finished")
	}
	close(release)
	deadline := time.After(30 * time.Second)
	for a.bench.running != "" {
		select {
		case apply := <-a.bench.done:
			apply(a)
		case <-deadline:
			t.Fatal("the background re-skin never finished")
		}
	}
	if !strings.Contains(a.benchStatus(), "re-skinned with tokens") || a.primary().Char == before {
		t.Errorf("after the re-skin: status %q", a.benchStatus())
	}
}

// TestWorkbenchRename types a joint's name: F2 opens the entry with the old name,
// keys type (letters are not commands then), Enter renames, a taken name is refused
// and Esc cancels.
func TestWorkbenchRename(t *testing.T) {
	a := testApp(t, false)
	p := a.primary()
	p.Selected = 2
	typeText := func(s string) {
		for _, r := range s {
			a.key(glfw.Key(unicode.ToUpper(r)), 0) // the key event, then the character
			a.typed(r)
		}
	}
	for _, tc := range []struct {
		name  string
		input func()
		want  string // joint 2's name afterwards
		msg   string // in the status line
	}{
		{"rename", func() {
			a.key(glfw.KeyF2, 0)
			typeText("x")
			a.key(glfw.KeyBackspace, 0)
			typeText("_neck")
			a.key(glfw.KeyEnter, 0)
		},
			"spine2_neck", "rename spine2 to spine2_neck"},
		{"taken name", func() {
			a.key(glfw.KeyF2, 0)
			for range len("spine2_neck") {
				a.key(glfw.KeyBackspace, 0)
			}
			typeText("spine3")
			a.key(glfw.KeyEnter, 0)
		}, "spine2_neck", "already called"},
		{"cancel", func() { a.key(glfw.KeyF2, 0); typeText("q"); a.key(glfw.KeyEscape, 0) }, "spine2_neck", "already called"},
	} {
		tc.input()
		if got := a.primary().Char.Skeleton.Names[2]; got != tc.want {
			t.Errorf("%s: joint 2 is %q, want %q", tc.name, got, tc.want)
		}
		if !strings.Contains(a.benchStatus(), tc.msg) {
			t.Errorf("%s: status %q lacks %q", tc.name, a.benchStatus(), tc.msg)
		}
		if a.renameLine() != "" {
			t.Errorf("%s: the entry is still open", tc.name)
		}
	}
}
