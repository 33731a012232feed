package animation_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/blendercheck"
	"github.com/rigkit/rigkit/internal/browsercheck"
	"github.com/rigkit/rigkit/internal/fixtures"
	"github.com/rigkit/rigkit/vecmath"
)

// lieDown is the negative control of the viewer checks: the root turned 90° about
// the character's left axis, laying it on its back.
func lieDown(c *character.Character) character.Animation {
	_, b, _ := vecmath.DecomposeTRS(c.Skeleton.BindWorld[0])
	s := math.Sqrt(0.5)
	a := [4]float64{s, 0, 0, s}
	r := [4]float64{ // a·b
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
	return character.Animation{Name: "lie-down", Channels: []character.AnimationChannel{{Joint: 0, Path: "rotation",
		Times: []float64{0, 1}, Values: []float64{r[0], r[1], r[2], r[3], r[0], r[1], r[2], r[3]}}}}
}

// retargetedScenes writes two GLBs holding every motion fixture's walk retargeted
// (one clip per fixture) plus the lie-down control: the Mixamo-armature fixture's
// own scene (rotated, scaled Armature, kept by the scene writer) and a T-pose
// biped written as a new scene.
func retargetedScenes(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	var sources []*character.Character
	var armaturePath string
	for _, f := range fixtures.Motions() {
		p, err := f.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == "walk-mixamo-armature" {
			armaturePath = p
		}
		src, err := assets.LoadMotion(p, assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		src.Name = f.Name
		sources = append(sources, src)
	}
	armature, _, err := assets.Load(armaturePath, assets.Options{KeepScene: true})
	if err != nil {
		t.Fatal(err)
	}
	armature.Animations = nil
	tpose := worldTargets(t)["T pose"]
	out := map[string]string{}
	for name, target := range map[string]*character.Character{"armature": armature, "tpose": tpose} {
		for _, src := range sources {
			a, _, err := animation.Retarget(target, src, 0, animation.Options{Name: src.Name})
			if err != nil {
				t.Fatalf("%s onto %s: %v", src.Name, name, err)
			}
			target.Animations = append(target.Animations, a)
		}
		target.Animations = append(target.Animations, lieDown(target))
		path := filepath.Join(dir, name+".glb")
		if _, err := assets.Save(path, target); err != nil {
			t.Fatal(err)
		}
		out[name] = path
	}
	return out
}

// TestRetargetedClipsInThreeJS: three.js (headless Chromium) plays every motion
// fixture's retargeted walk, on a rotated and scaled armature scene and on a T-pose
// biped, and sees each keep the character upright and sized at 8 times; the
// lie-down control fails the same check, so it can fail.
func TestRetargetedClipsInThreeJS(t *testing.T) {
	for name, path := range retargetedScenes(t) {
		r := browsercheck.ForTest(t, path)
		if r.Error != "" {
			t.Fatalf("%s: three.js: %s", name, r.Error)
		}
		if len(r.Clips) != len(fixtures.Motions())+1 {
			t.Fatalf("%s: three.js sees %d clips, want %d", name, len(r.Clips), len(fixtures.Motions())+1)
		}
		for _, c := range r.Clips {
			t.Logf("%s %s: height %.2f–%.2f× rest, growth %.2f×, soles up to %.2f, head down to %.2f, moved %v",
				name, c.Name, c.MinHeight, c.MaxHeight, c.Growth, c.LowRise, c.HighDrop, c.Moved)
			if c.Name == "lie-down" {
				if c.Upright {
					t.Errorf("%s: the lie-down control passes as upright", name)
				}
				continue
			}
			if !c.Upright || !c.Moved || !c.Finite {
				t.Errorf("%s %s: upright %v, moved %v, finite %v", name, c.Name, c.Upright, c.Moved, c.Finite)
			}
		}
	}
}

// TestRetargetedClipsInBlender: Blender imports the same two files and sees every
// retargeted walk keep the skinned mesh upright and sized along its Z up axis;
// the lie-down control fails.
func TestRetargetedClipsInBlender(t *testing.T) {
	paths := retargetedScenes(t)

	reps := blendercheck.ForTest(t, paths["armature"], paths["tpose"])
	for name, path := range paths {
		r := reps[path]
		if r.Error != "" || len(r.Actions) != len(fixtures.Motions())+1 {
			t.Fatalf("%s in Blender: %+v", name, r)
		}
		for _, a := range r.Actions {
			t.Logf("%s %s: height %.2f–%.2f× rest, growth %.2f×", name, a.Name, a.MinHeight, a.MaxHeight, a.Growth)
			// Blender names an action after the clip and the armature.
			if want := !strings.HasPrefix(a.Name, "lie-down"); a.Upright != want {
				t.Errorf("%s %s: upright %v, want %v", name, a.Name, a.Upright, want)
			}
		}
	}
}
