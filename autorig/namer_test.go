package autorig

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// TestRigNamer: a synthetic biped's rig with its joints called joint_k comes
// back with the humanoid template's names and no joint moved (the namer may
// add a weightless root), its skin still summing to one; the mesh is fitted once.
func TestRigNamer(t *testing.T) {
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 1500})
	if err != nil {
		t.Fatal(err)
	}
	rig := c.Clone()
	for j := range rig.Skeleton.Names {
		rig.Skeleton.Names[j] = fmt.Sprintf("joint_%d", j)
	}
	n := NewRigNamer(anatomy.Options{})
	named, err := n.Name(c, rig)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(named.Skeleton.Names, "Hips") || !slices.Contains(named.Skeleton.Names, "LeftForeArm") {
		t.Fatalf("names %v: want the humanoid template's", named.Skeleton.Names)
	}
	after := named.Skeleton.Positions()
	for j, p := range rig.Skeleton.Positions() {
		if !slices.ContainsFunc(after, func(q vecmath.Vec3) bool { return q.Dist(p) < 1e-9 }) {
			t.Errorf("joint %d at %v moved", j, p)
		}
	}
	if len(after) > len(rig.Skeleton.Names)+1 {
		t.Errorf("%d joints named from %d: at most one added", len(after), len(rig.Skeleton.Names))
	}
	if err := named.Skin.Validate(len(named.Mesh.Positions), named.Skeleton.NumJoints(), 1e-4); err != nil {
		t.Errorf("named skin: %v", err)
	}
	if _, err := n.Name(c, rig); err != nil || len(n.fits) != 1 {
		t.Errorf("second naming: %v, %d fits cached; want one", err, len(n.fits))
	}
}
