package autorig

import (
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
	"github.com/rigkit/rigkit/rigmodel"
)

// TestClassicalRiggerAnatomy: with Anatomy set the classical rig has the named,
// oriented skeleton and reports the detection, and its geodesic weights are the
// ones the same joints get without orientations (the weights depend on where the
// joints are, not how they are turned).
func TestClassicalRiggerAnatomy(t *testing.T) {
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 1500})
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton, c.Skin, c.Animations = nil, nil, nil
	out, info, err := ClassicalRigger{Skin: rigmodel.GeodesicSkin, SkinName: "geodesic", Anatomy: &anatomy.Options{}}.Rig(c)
	if err != nil {
		t.Fatal(err)
	}
	if info.Anatomy == nil || info.Anatomy.Kind != anatomy.Humanoid || out.Skeleton.Names[0] != anatomy.Hips {
		t.Fatalf("anatomy %+v, root %s", info.Anatomy, out.Skeleton.Names[0])
	}
	if err := rigmodel.CheckRig(out); err != nil {
		t.Fatal(err)
	}
	plain := out.Clone()
	for j := range plain.Skeleton.BindWorld {
		plain.Skeleton.BindWorld[j] = assets.Translate4(plain.Skeleton.Position(j))
	}
	turned := 0
	for j := range plain.Skeleton.BindWorld {
		if plain.Skeleton.BindWorld[j] != out.Skeleton.BindWorld[j] {
			turned++
		}
	}
	if turned < out.Skeleton.NumJoints()/2 {
		t.Fatalf("only %d of %d joints are turned", turned, out.Skeleton.NumJoints())
	}
	skin, err := rigmodel.GeodesicSkin(plain)
	if err != nil {
		t.Fatal(err)
	}
	for v := range skin.Weights {
		a, b := skin.Weights[v], out.Skin.Weights[v]
		if len(a) != len(b) {
			t.Fatalf("vertex %d: %v vs %v", v, a, b)
		}
		for i := range a {
			if a[i].Joint != b[i].Joint || a[i].Weight != b[i].Weight {
				t.Fatalf("vertex %d: %v vs %v", v, a, b)
			}
		}
	}
}
