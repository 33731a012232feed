package animation

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/blendercheck"
	"github.com/rigkit/rigkit/vecmath"
)

// orient gives every joint the rotation of docs/naming.md: local +Y from the joint
// to its primary child (a leaf keeps its parent's), positions unchanged.
func orient(c *character.Character) *character.Character {
	o := c.Clone()
	sk := o.Skeleton
	children := sk.Children()
	rots := make([]quat, sk.NumJoints())
	for j := range sk.Names {
		if ch := primaryChild(sk, children, j); ch >= 0 && sk.Position(ch).Dist(sk.Position(j)) > 1e-9 {
			rots[j] = arc(vecmath.Vec3{0, 1, 0}, sk.Position(ch).Sub(sk.Position(j)))
		} else if p := sk.Parents[j]; p >= 0 {
			rots[j] = rots[p]
		} else {
			rots[j] = identity
		}
		sk.BindWorld[j] = vecmath.TRS(sk.Position(j), rots[j], vecmath.Vec3{1, 1, 1})
	}
	return o
}

// TestBlenderImportsAnimatedRig: Blender 3.4 imports a walking biped whose joints
// are oriented as docs/naming.md says with one armature, every single-child bone
// pointing at its child, and a walk action that turns bones; the same rig without
// joint orientations fails the bone check, so the check can fail.
func TestBlenderImportsAnimatedRig(t *testing.T) {
	c := orient(generate(t, "biped", 6))
	clip, _ := Lookup("walk", Humanoid)
	a, _, err := Apply(c, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Animations = []character.Animation{a}
	dir := t.TempDir()
	oriented, flat := filepath.Join(dir, "oriented.glb"), filepath.Join(dir, "unoriented.glb")
	if _, err := assets.Save(oriented, c); err != nil {
		t.Fatal(err)
	}
	u := generate(t, "biped", 6)
	ua, _, err := Apply(u, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u.Animations = []character.Animation{ua}
	if _, err := assets.Save(flat, u); err != nil {
		t.Fatal(err)
	}
	reps := blendercheck.ForTest(t, oriented, flat)
	r := reps[oriented]
	t.Logf("oriented: %d of %d single-child bones point at their child (worst %.2f°); actions %+v", r.Pointing, r.SingleChildBones, r.WorstAngle, r.Actions)
	if !r.OK || r.Armatures != 1 || r.SingleChildBones < 10 || len(r.Actions) != 1 {
		t.Fatalf("oriented walking biped in Blender: %+v", r)
	}
	if r.Actions[0].MovedBones < 10 || r.Actions[0].MaxTurn < 10 {
		t.Errorf("the walk action moves %d bones, turns at most %.1f°", r.Actions[0].MovedBones, r.Actions[0].MaxTurn)
	}
	f := reps[flat]
	t.Logf("unoriented: %d of %d point at their child", f.Pointing, f.SingleChildBones)
	if f.OK || f.Pointing == f.SingleChildBones {
		t.Errorf("the unoriented rig passes the bone check: %+v", f)
	}
}
