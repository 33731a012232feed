package edit

import (
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/vecmath"
)

// This file holds the edits that keep the joint order: moving, adding at the end,
// renaming and locking.

// MoveTo puts joint j at world position p. Only the joint moves: its children stay
// where they are and its bind rotation is kept, so the bones into and out of it
// change (they are marked for re-skinning).
func (r *Rig) MoveTo(j int, p vecmath.Vec3) error {
	if err := r.checkJoint(j); err != nil {
		return fmt.Errorf("move: %w", err)
	}
	if !p.IsFinite() {
		return fmt.Errorf("move %s: position %v is not finite", r.cur.skeleton.Names[j], p)
	}
	next := r.cur
	next.skeleton = r.cur.skeleton.Clone()
	next.skeleton.BindWorld[j] = withTranslation(next.skeleton.BindWorld[j], p)
	next.dirty = r.boneDirty(j)
	r.commit(fmt.Sprintf("move %s", r.cur.skeleton.Names[j]), next)
	return nil
}

// Move moves joint j by a world-space delta: a drag in the view plane, converted by
// the camera.
func (r *Rig) Move(j int, delta vecmath.Vec3) error {
	if err := r.checkJoint(j); err != nil {
		return fmt.Errorf("move: %w", err)
	}
	return r.MoveTo(j, r.cur.skeleton.Position(j).Add(delta))
}

// BoneAxis returns the unit direction of the bone into joint j, from its parent: the
// axis a constrained drag moves along. A root, or a joint on its parent, has none.
func (r *Rig) BoneAxis(j int) (vecmath.Vec3, error) {
	if err := r.checkJoint(j); err != nil {
		return vecmath.Vec3{}, err
	}
	sk := r.cur.skeleton
	p := sk.Parents[j]
	if p < 0 {
		return vecmath.Vec3{}, fmt.Errorf("joint %s is a root: it has no bone to move along", sk.Names[j])
	}
	d := sk.Position(j).Sub(sk.Position(p))
	if d.Len() < 1e-12 {
		return vecmath.Vec3{}, fmt.Errorf("joint %s sits on its parent %s: its bone has no direction", sk.Names[j], sk.Names[p])
	}
	return d.Scale(1 / d.Len()), nil
}

// MoveAlongBone moves joint j by dist along its bone's axis (positive: away from the
// parent), the axis-constrained drag.
func (r *Rig) MoveAlongBone(j int, dist float64) error {
	axis, err := r.BoneAxis(j)
	if err != nil {
		return fmt.Errorf("move along bone: %w", err)
	}
	return r.MoveTo(j, r.cur.skeleton.Position(j).Add(axis.Scale(dist)))
}

// AddChild adds a joint called name (empty: a free name made from the parent's) as a
// child of parent at world position at, with the parent's bind rotation. It has no
// weights until the next re-skin. It returns the new joint's index.
func (r *Rig) AddChild(parent int, name string, at vecmath.Vec3) (int, error) {
	if err := r.checkJoint(parent); err != nil {
		return -1, fmt.Errorf("add: parent: %w", err)
	}
	if !at.IsFinite() {
		return -1, fmt.Errorf("add: position %v is not finite", at)
	}
	sk := r.cur.skeleton
	if name == "" {
		name = r.freeName(sk.Names[parent] + "_child")
	}
	if err := r.checkName(name, -1); err != nil {
		return -1, fmt.Errorf("add: %w", err)
	}
	next := r.cur
	next.skeleton = sk.Clone()
	next.skeleton.Names = append(next.skeleton.Names, name)
	next.skeleton.Parents = append(next.skeleton.Parents, parent)
	next.skeleton.BindWorld = append(next.skeleton.BindWorld, withTranslation(sk.BindWorld[parent], at))
	next.locked = append(append([]bool(nil), r.cur.locked...), false)
	next.dirty = append(r.boneDirty(parent), true)
	r.commit(fmt.Sprintf("add %s under %s", name, sk.Names[parent]), next)
	return sk.NumJoints(), nil
}

// Rename gives joint j a name no other joint has.
func (r *Rig) Rename(j int, name string) error {
	if err := r.checkJoint(j); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	old := r.cur.skeleton.Names[j]
	if name == old {
		return nil
	}
	if err := r.checkName(name, j); err != nil {
		return fmt.Errorf("rename %s: %w", old, err)
	}
	next := r.cur
	next.skeleton = r.cur.skeleton.Clone()
	next.skeleton.Names[j] = name
	r.commit(fmt.Sprintf("rename %s to %s", old, name), next)
	return nil
}

// Lock locks (on) or unlocks joint j's weights: a re-skin keeps a locked joint's
// weight on every vertex and shares the rest among the other joints.
func (r *Rig) Lock(j int, on bool) error {
	if err := r.checkJoint(j); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if r.cur.locked[j] == on {
		return nil
	}
	next := r.cur
	next.locked = withFlag(r.cur.locked, j, on)
	verb := "unlock"
	if on {
		verb = "lock"
	}
	r.commit(fmt.Sprintf("%s %s", verb, r.cur.skeleton.Names[j]), next)
	return nil
}

// checkName refuses an empty name, one with control characters, or one that a joint
// other than except already has.
func (r *Rig) checkName(name string, except int) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("joint name %q is empty", name)
	}
	if strings.ContainsFunc(name, func(c rune) bool { return c < ' ' || c == 0x7f }) {
		return fmt.Errorf("joint name %q has control characters", name)
	}
	for k, n := range r.cur.skeleton.Names {
		if n == name && k != except {
			return fmt.Errorf("joint %d is already called %q", k, name)
		}
	}
	return nil
}

// freeName returns prefix followed by the first number no joint uses.
func (r *Rig) freeName(prefix string) string {
	for i := 1; ; i++ {
		name := fmt.Sprintf("%s%d", prefix, i)
		if _, err := r.Joint(name); err != nil {
			return name
		}
	}
}

// boneDirty returns the dirty flags with joint j's bones marked: its own (to its
// children, or its point) and its parent's bone to it.
func (r *Rig) boneDirty(j int) []bool {
	d := withFlag(r.cur.dirty, j, true)
	if p := r.cur.skeleton.Parents[j]; p >= 0 {
		d[p] = true
	}
	return d
}

// withTranslation returns m with its translation replaced by p.
func withTranslation(m vecmath.Mat4, p vecmath.Vec3) vecmath.Mat4 {
	m[12], m[13], m[14] = p[0], p[1], p[2]
	return m
}
