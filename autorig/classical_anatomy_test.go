package autorig

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
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
	out, info, err := ClassicalRigger{Skin: sampler.GeodesicSkin, SkinName: "geodesic", Anatomy: &anatomy.Options{}}.Rig(c)
	if err != nil {
		t.Fatal(err)
	}
	if info.Anatomy == nil || info.Anatomy.Kind != anatomy.Humanoid || out.Skeleton.Names[0] != anatomy.Hips {
		t.Fatalf("anatomy %+v, root %s", info.Anatomy, out.Skeleton.Names[0])
	}
	if err := sampler.CheckRig(out); err != nil {
		t.Fatal(err)
	}
	plain := out.Clone()
	for j := range plain.Skeleton.BindWorld {
		plain.Skeleton.BindWorld[j] = vecmath.Translate4(plain.Skeleton.Position(j))
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
	skin, err := sampler.GeodesicSkin(plain)
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

// TestModelRiggerNamesItsSkeleton: with Anatomy set, the model's skeleton (here an
// untrained model's, so any checkpoint's) comes out with one root, no generated
// joint_NNN names, the naming in the report, and the same skin as without Anatomy,
// bound (geodesic) or decoded from skin tokens: every vertex follows the same joint
// positions with the same weights.
func TestModelRiggerNamesItsSkeleton(t *testing.T) {
	m, err := rigmodel.NewModel(tinyConfig, 11)
	if err != nil {
		t.Fatal(err)
	}
	c, err := synth.Generate("biped", 2, synth.Options{TargetVertices: 1500})
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton, c.Skin, c.Animations = nil, nil, nil
	for _, tokens := range []bool{false, true} {
		t.Run(fmt.Sprintf("skin tokens %v", tokens), func(t *testing.T) {
			rig := func(opt *anatomy.Options) (*character.Character, *RigInfo) {
				r := &ModelRigger{Draw: sampler.Draw{Samples: 1}, Anatomy: opt}
				r.Model, r.Seed = m, 1
				if tokens {
					r.Skin, r.SkinMode = rigidDecoder{}, sampler.SkinFromTokens
				}
				out, info, err := r.Rig(c)
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]string{false: "tokenrig-skeleton+geodesic", true: "tokenrig"}[tokens]; info.Method != want {
					t.Fatalf("method %s (%s), want %s", info.Method, info.Fallback, want)
				}
				return out, info
			}
			plain, _ := rig(nil)
			named, info := rig(&anatomy.Options{})
			checkNamedRig(t, plain, named, info)
		})
	}
}

// checkNamedRig compares a model rig named from the template with the same rig
// unnamed.
func checkNamedRig(t *testing.T, plain, named *character.Character, info *RigInfo) {
	t.Helper()
	if err := sampler.CheckRig(named); err != nil {
		t.Fatal(err)
	}
	sk := named.Skeleton
	if info.Anatomy == nil || info.Naming == nil || info.Naming.Of != plain.Skeleton.NumJoints() || info.Naming.Root != sk.Names[0] {
		t.Fatalf("anatomy %+v, naming %+v", info.Anatomy, info.Naming)
	}
	for j, n := range sk.Names {
		if strings.HasPrefix(n, "joint_") || (j > 0 && sk.Parents[j] < 0) {
			t.Errorf("joint %d %q, parent %d", j, n, sk.Parents[j])
		}
	}
	added := 0
	if info.Naming.Inserted {
		added = 1
	}
	if sk.NumJoints() != plain.Skeleton.NumJoints()+added {
		t.Fatalf("%d joints, %d without anatomy", sk.NumJoints(), plain.Skeleton.NumJoints())
	}
	for v := range named.Skin.Weights {
		a, b := plain.Skin.Weights[v], named.Skin.Weights[v]
		if len(a) != len(b) {
			t.Fatalf("vertex %d: %v vs %v", v, a, b)
		}
		for i := range a {
			pa, pb := plain.Skeleton.Position(a[i].Joint), sk.Position(b[i].Joint)
			if a[i].Weight != b[i].Weight || pa.Dist(pb) > 1e-9 {
				t.Fatalf("vertex %d: %v at %v vs %v at %v", v, a[i], pa, b[i], pb)
			}
		}
	}
}
