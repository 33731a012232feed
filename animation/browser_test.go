package animation

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/browsercheck"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/assets"
)

// TestBrowserPlaysClips: in three.js (headless Chromium), the walk and run baked by
// this package move the skinned vertices, stay finite and stay within the
// character's size; a clip that holds the bind pose and one that throws the body
// far away are caught, so the check can fail.
func TestBrowserPlaysClips(t *testing.T) {
	c := generate(t, "biped", 6)
	for _, name := range []string{"walk", "run"} {
		clip, _ := Lookup(name, Humanoid)
		a, _, err := Apply(c, clip, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.Animations = append(c.Animations, a)
	}
	hips := joint(t, c, "Hips")
	rest := c.Skeleton.Position(hips)
	lo, hi := c.Mesh.Bounds()
	far := rest.Add(vecmath.Vec3{0, 0, 10 * hi.Sub(lo).Len()})
	c.Animations = append(c.Animations,
		character.Animation{Name: "still", Channels: []character.AnimationChannel{{Joint: hips, Path: "translation",
			Times: []float64{0, 1}, Values: []float64{rest[0], rest[1], rest[2], rest[0], rest[1], rest[2]}}}},
		character.Animation{Name: "explode", Channels: []character.AnimationChannel{{Joint: hips, Path: "translation",
			Times: []float64{0, 1}, Values: []float64{rest[0], rest[1], rest[2], far[0], far[1], far[2]}}}})
	path := filepath.Join(t.TempDir(), "clips.glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	r := browsercheck.ForTest(t, path)
	if r.Error != "" {
		t.Fatalf("three.js: %s", r.Error)
	}
	if r.Bones != c.Skeleton.NumJoints() || len(r.Clips) != 4 {
		t.Fatalf("three.js sees %d bones and %d clips, want %d and 4", r.Bones, len(r.Clips), c.Skeleton.NumJoints())
	}
	for _, cl := range r.Clips {
		t.Logf("%s: max displacement %.3f, max step %.3f (bbox diagonal %.3f)", cl.Name, cl.MaxDisplacement, cl.MaxStep, r.BBox.Diagonal)
		good := cl.Finite && cl.Moved && !cl.Exploded
		switch cl.Name {
		case "walk", "run":
			if !good || cl.MaxDisplacement < 0.05*r.BBox.Diagonal {
				t.Errorf("%s: finite %v, moved %v, exploded %v, max displacement %.3f", cl.Name, cl.Finite, cl.Moved, cl.Exploded, cl.MaxDisplacement)
			}
		case "still":
			if cl.Moved {
				t.Error("a clip holding the bind pose counts as moving")
			}
		case "explode":
			if !cl.Exploded {
				t.Error("a clip throwing the body 10 diagonals away does not count as exploding")
			}
		}
	}
	if r.OK || len(r.FailedClips) != 2 {
		t.Errorf("ok %v, failed clips %v: want the still and exploding clips to fail the file", r.OK, r.FailedClips)
	}
}
