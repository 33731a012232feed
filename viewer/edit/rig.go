// Package edit is the rigging workbench's model: a rigged character under edit,
// changed only through plain functions (move, mirror, add, delete, reparent, rename,
// lock, re-skin) that each record one undo step, so that the viewer's keys and mouse
// and a headless script (`rig view FILE --script EDITS.json`) run the same code.
//
// Frames: every position is in the character's world frame (the bind pose of
// character.Skeleton.BindWorld). The mesh, materials and source scene never change;
// an edit replaces the skeleton, the skin, the locks or the animations as a whole, so
// undo restores the exact values it saved.
package edit

import (
	"errors"
	"fmt"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
)

// Rig is a character under edit with its undo and redo history. It is not safe for
// concurrent use: the viewer edits on its UI thread and re-skins a snapshot (Job).
type Rig struct {
	base *character.Character // mesh, materials and source; never edited
	cur  state
	undo []step
	redo []step
	// gen counts the changes of cur, so that a re-skin finished in the background
	// can tell whether the rig it skinned is still the one on screen.
	gen uint64
	// sym is the mesh's mirror plane, detected on the first mirror edit.
	sym *anatomy.Symmetry
}

// state is everything an edit may replace. Its slices and pointers are never
// written after the state is made: edits build new ones.
type state struct {
	skeleton   *character.Skeleton
	skin       *character.Skin
	locked     []bool // per joint: re-skinning keeps its weights
	animations []character.Animation
	// dirty marks the joints whose bones changed since the last re-skin; a re-skin
	// of the edited region replaces the weights of the vertices they reach.
	dirty []bool
}

// step is one undoable edit: its label and the state before it.
type step struct {
	label  string
	before state
}

// ErrNothingToUndo and ErrNothingToRedo report an empty history.
var (
	ErrNothingToUndo = errors.New("nothing to undo")
	ErrNothingToRedo = errors.New("nothing to redo")
)

// New starts editing a rigged character. The character is not modified; edits
// apply to copies.
func New(c *character.Character) (*Rig, error) {
	if c == nil || c.Skeleton.NumJoints() == 0 {
		return nil, errors.New("edit: the character has no skeleton (rig it first: rig auto)")
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("edit %s: %w", c.Name, err)
	}
	n := c.Skeleton.NumJoints()
	base := *c
	base.Skeleton, base.Skin, base.Animations = nil, nil, nil
	return &Rig{base: &base, cur: state{
		skeleton:   c.Skeleton,
		skin:       c.Skin,
		locked:     make([]bool, n),
		animations: c.Animations,
		dirty:      make([]bool, n),
	}}, nil
}

// Character returns the edited character. It shares its slices with the rig's
// history: read it, do not modify it.
func (r *Rig) Character() *character.Character {
	c := *r.base
	c.Skeleton, c.Skin, c.Animations = r.cur.skeleton, r.cur.skin, r.cur.animations
	return &c
}

// Skeleton returns the edited skeleton (read only).
func (r *Rig) Skeleton() *character.Skeleton { return r.cur.skeleton }

// Generation counts the rig's changes (edits, undos and redos).
func (r *Rig) Generation() uint64 { return r.gen }

// Locked reports whether joint j's weights are locked.
func (r *Rig) Locked(j int) bool { return j >= 0 && j < len(r.cur.locked) && r.cur.locked[j] }

// History returns the labels of the edits that Undo would revert, oldest first.
func (r *Rig) History() []string {
	out := make([]string, len(r.undo))
	for i, s := range r.undo {
		out[i] = s.label
	}
	return out
}

// Joint returns the index of the joint called name.
func (r *Rig) Joint(name string) (int, error) {
	for j, n := range r.cur.skeleton.Names {
		if n == name {
			return j, nil
		}
	}
	return -1, fmt.Errorf("no joint called %q", name)
}

// Undo reverts the last edit and returns its label.
func (r *Rig) Undo() (string, error) {
	if len(r.undo) == 0 {
		return "", ErrNothingToUndo
	}
	return r.travel(&r.undo, &r.redo), nil
}

// Redo applies the last undone edit again and returns its label.
func (r *Rig) Redo() (string, error) {
	if len(r.redo) == 0 {
		return "", ErrNothingToRedo
	}
	return r.travel(&r.redo, &r.undo), nil
}

// travel pops the last step of from (not empty), restores its state and pushes
// the current state onto to under the same label, so that the other direction
// returns here.
func (r *Rig) travel(from, to *[]step) string {
	s := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, step{label: s.label, before: r.cur})
	r.cur = s.before
	r.gen++
	return s.label
}

// commit makes next the current state, recording the edit for undo; a fresh edit
// forgets what was undone.
func (r *Rig) commit(label string, next state) {
	r.undo = append(r.undo, step{label: label, before: r.cur})
	r.redo = nil
	r.cur = next
	r.gen++
}

// checkJoint names the problem with a joint index from a caller.
func (r *Rig) checkJoint(j int) error {
	if j < 0 || j >= r.cur.skeleton.NumJoints() {
		return fmt.Errorf("joint %d out of range (the rig has %d joints)", j, r.cur.skeleton.NumJoints())
	}
	return nil
}

// withFlag returns a copy of flags with flags[j] = on.
func withFlag(flags []bool, j int, on bool) []bool {
	out := append([]bool(nil), flags...)
	out[j] = on
	return out
}
