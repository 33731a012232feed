package edit

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestMirror moves a left joint and mirrors the edit: the right partner lands on the
// mirror image across the detected plane, within 1e-6 of the height.
func TestMirror(t *testing.T) {
	in, _ := fixture(t, 2000)
	r := newRig(t, in)
	left, right := joint(t, r, "arm_l_lower"), joint(t, r, "arm_r_lower")
	if k, err := r.Pair(left); err != nil || k != right {
		t.Fatalf("Pair(arm_l_lower) = %d, %v; want %d", k, err, right)
	}
	if err := r.Move(left, vecmath.Vec3{0.02, -0.05, 0.01}); err != nil {
		t.Fatal(err)
	}
	if err := r.Mirror(left); err != nil {
		t.Fatal(err)
	}
	sym, err := r.Symmetry()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := in.Mesh.Bounds()
	height := hi[1] - lo[1]
	want := mirrorPoint(sym, r.Skeleton().Position(left))
	if d := r.Skeleton().Position(right).Dist(want); d > 1e-6*height {
		t.Errorf("arm_r_lower is %.3g of the height from the mirror position", d/height)
	}
	if want.Dist(r.Skeleton().Position(left)) < 0.05*height {
		t.Errorf("mirror image %v of the left arm is on its own side (plane %+v)", want, sym)
	}
	if err := r.Mirror(joint(t, r, "chest")); err == nil || !strings.Contains(err.Error(), "symmetry plane") {
		t.Errorf("mirroring the chest: %v, want a refusal naming the symmetry plane", err)
	}
}

// TestMirroredNames checks the side markers a partner's name may swap.
func TestMirroredNames(t *testing.T) {
	for _, tc := range []struct{ name, partner string }{
		{"mixamorig:LeftArm", "mixamorig:RightArm"},
		{"arm_l_upper", "arm_r_upper"},
		{"hand.R", "hand.L"},
		{"L_thigh", "R_thigh"},
		{"foot_r", "foot_l"},
	} {
		found := false
		for _, n := range mirroredNames(tc.name) {
			found = found || n == tc.partner
		}
		if !found {
			t.Errorf("mirroredNames(%q) = %v, want %q among them", tc.name, mirroredNames(tc.name), tc.partner)
		}
	}
}

// TestRefusals lists the edits that must fail, and what their errors say.
func TestRefusals(t *testing.T) {
	in, _ := fixture(t, 800)
	for _, tc := range []struct {
		name string
		edit func(r *Rig) error
		want string
	}{
		{"reparent under own child", func(r *Rig) error { return r.Reparent(joint(t, r, "chest"), joint(t, r, "neck")) }, "cycle"},
		{"reparent under itself", func(r *Rig) error { return r.Reparent(joint(t, r, "neck"), joint(t, r, "neck")) }, "cycle"},
		{"rename to a taken name", func(r *Rig) error { return r.Rename(joint(t, r, "neck"), "head") }, "already called"},
		{"rename to empty", func(r *Rig) error { return r.Rename(joint(t, r, "neck"), " ") }, "empty"},
		{"add with a taken name", func(r *Rig) error { _, err := r.AddChild(0, "chest", vecmath.Vec3{}); return err }, "already called"},
		{"delete a root with two children", func(r *Rig) error { return r.Delete(joint(t, r, "hips")) }, "root with 3 children"},
		{"move to infinity", func(r *Rig) error { return r.MoveTo(1, vecmath.Vec3{math.Inf(1), 0, 0}) }, "not finite"},
		{"move along a root", func(r *Rig) error { return r.MoveAlongBone(0, 0.1) }, "root"},
		{"joint out of range", func(r *Rig) error { return r.Move(9999, vecmath.Vec3{}) }, "out of range"},
		{"delete a weighted root leaf", func(r *Rig) error {
			if err := r.Delete(joint(t, r, "toe_l_end")); err != nil {
				t.Fatal(err)
			}
			if err := r.Reparent(joint(t, r, "toe_l"), -1); err != nil {
				t.Fatal(err)
			}
			r.undo = nil // the preparation is not the edit under test
			return r.Delete(joint(t, r, "toe_l"))
		}, "no joint can take its weights"},
		{"re-skin with nothing edited", func(r *Rig) error { return r.Reskin(Geodesic, ScopeEdited) }, "no bone was edited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, in)
			err := tc.edit(r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if len(r.History()) != 0 {
				t.Errorf("a refused edit was recorded: %v", r.History())
			}
		})
	}
}

// TestDelete removes a mid-chain joint: its child goes to its parent, its weights
// too, and every vertex keeps a total weight of 1.
func TestDelete(t *testing.T) {
	in, _ := fixture(t, 800)
	r := newRig(t, in)
	lower := joint(t, r, "arm_l_lower")
	upper := in.Skeleton.Parents[lower]
	before := jointWeight(in, lower) + jointWeight(in, upper)
	if before == 0 {
		t.Fatal("the fixture's lower arm has no weight")
	}
	if err := r.Delete(lower); err != nil {
		t.Fatal(err)
	}
	c := r.Character()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Joint("arm_l_lower"); err == nil {
		t.Error("arm_l_lower is still there")
	}
	hand, up := joint(t, r, "hand_l"), joint(t, r, "arm_l_upper")
	if c.Skeleton.Parents[hand] != up {
		t.Errorf("hand_l's parent is %s, want arm_l_upper", c.Skeleton.Names[c.Skeleton.Parents[hand]])
	}
	if after := jointWeight(c, up); abs(after-before) > 1e-9 {
		t.Errorf("arm_l_upper carries %.6f, want the %.6f of both bones", after, before)
	}
	// A root without children or weights (a pole target) goes without an heir.
	added, err := r.AddChild(up, "pole", vecmath.Vec3{0, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reparent(added, -1); err != nil {
		t.Fatal(err)
	}
	n := r.Skeleton().NumJoints()
	if err := r.Delete(joint(t, r, "pole")); err != nil || r.Skeleton().NumJoints() != n-1 {
		t.Errorf("deleting a weightless root leaf: %v (%d joints, want %d)", err, r.Skeleton().NumJoints(), n-1)
	}
}

// TestLockedReskin locks a joint and re-skins everything: the locked joint's
// weight stays on every vertex while the others change.
func TestLockedReskin(t *testing.T) {
	in, _ := fixture(t, 800)
	r := newRig(t, in)
	head := joint(t, r, "head")
	if err := r.Lock(head, true); err != nil {
		t.Fatal(err)
	}
	if err := r.Reskin(Geodesic, ScopeAll); err != nil {
		t.Fatal(err)
	}
	c := r.Character()
	if err := c.Skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for v := range c.Skin.Weights {
		if w0, w1 := weightOn(in.Skin.Weights[v], head), weightOn(c.Skin.Weights[v], head); abs(w0-w1) > 1e-12 {
			t.Fatalf("vertex %d: locked head weight %.6f became %.6f", v, w0, w1)
		}
		if !sameWeights(byName(in, v), byName(c, v), 1e-6) {
			changed++
		}
	}
	if changed == 0 {
		t.Error("re-skinning all changed nothing")
	}
}

// TestUndoRestoresBytes is the property test: after any 20 random edits, undoing
// them all gives a byte-identical file, and redoing them all the edited file again.
func TestUndoRestoresBytes(t *testing.T) {
	in, _ := fixture(t, 800)
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := newRig(t, in)
			start := encode(t, r)
			rng := rand.New(rand.NewSource(seed))
			for len(r.History()) < 20 {
				randomEdit(rng, r) // refused edits are not recorded and are retried
			}
			edited := encode(t, r)
			for range 20 {
				if _, err := r.Undo(); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(encode(t, r), start) {
				t.Fatalf("undoing %v does not restore the file", r.History())
			}
			for range 20 {
				if _, err := r.Redo(); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(encode(t, r), edited) {
				t.Fatalf("redoing %v does not give the edited file", r.History())
			}
		})
	}
}

// randomEdit tries one random edit on r.
func randomEdit(rng *rand.Rand, r *Rig) {
	n := r.Skeleton().NumJoints()
	j, k := rng.Intn(n), rng.Intn(n)-1
	d := vecmath.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.02)
	switch rng.Intn(10) {
	case 0:
		_ = r.Move(j, d)
	case 1:
		_ = r.MoveAlongBone(j, d[0])
	case 2:
		_ = r.Mirror(j)
	case 3:
		_, _ = r.AddChild(j, "", r.Skeleton().Position(j).Add(d))
	case 4:
		_ = r.Delete(j)
	case 5:
		_ = r.Reparent(j, k)
	case 6:
		_ = r.Rename(j, fmt.Sprintf("renamed_%d", rng.Intn(1000)))
	case 7:
		_ = r.Lock(j, !r.Locked(j))
	case 8:
		_ = r.Reskin(Geodesic, ScopeEdited)
	default:
		_ = r.Reskin(Geodesic, ScopeAll)
	}
}

// encode writes the rig as the saved GLB would be.
func encode(t *testing.T, r *Rig) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := assets.Encode(&b, r.Character()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jointWeight(c *character.Character, j int) float64 {
	s := 0.0
	for _, infl := range c.Skin.Weights {
		s += weightOn(infl, j)
	}
	return s
}

func weightOn(infl []character.Influence, j int) float64 {
	for _, in := range infl {
		if in.Joint == j {
			return in.Weight
		}
	}
	return 0
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestAnimationsFollowJoints: a channel keeps driving the same joint through a
// reparent that reorders the joints, and goes with its joint when it is deleted.
func TestAnimationsFollowJoints(t *testing.T) {
	in, _ := fixture(t, 800)
	c := in.Clone()
	an := character.Animation{Name: "wave"}
	for j := range c.Skeleton.Names {
		an.Channels = append(an.Channels, character.AnimationChannel{Joint: j, Path: "rotation", Times: []float64{0}, Values: []float64{0, 0, 0, 1}})
	}
	c.Animations = []character.Animation{an}
	r := newRig(t, c)
	driven := func() map[string]int {
		m := map[string]int{}
		for _, ch := range r.Character().Animations[0].Channels {
			m[r.Skeleton().Names[ch.Joint]]++
		}
		return m
	}
	if err := r.Reparent(joint(t, r, "neck"), joint(t, r, "toe_r_end")); err != nil {
		t.Fatal(err)
	}
	if err := r.Character().Validate(); err != nil {
		t.Fatalf("after the reparent: %v", err)
	}
	if d := driven(); len(d) != len(c.Skeleton.Names) || d["neck"] != 1 || d["head"] != 1 {
		t.Errorf("after the reparent the channels drive %v", d)
	}
	if err := r.Delete(joint(t, r, "head")); err != nil {
		t.Fatal(err)
	}
	if d := driven(); len(d) != len(c.Skeleton.Names)-1 || d["head"] != 0 || d["neck"] != 1 {
		t.Errorf("after deleting head the channels drive %v", d)
	}
}
