package anatomy_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/synth"
)

var fingerSeeds = flag.Int("finger-seeds", 6, "TestSyntheticFingers: synthetic bipeds 1..N to fit (docs/anatomy.md reports 20)")

// TestSyntheticFingers fits synthetic bipeds at 15,000 vertices, where the
// generator's fingers are separate: fingers are placed only on bipeds made with
// fingers, no more than were made, on at least half of those, named within 0.1 of the height of the
// generator's thumb and index, mirrored, and the skeletons stay anatomical.
func TestSyntheticFingers(t *testing.T) {
	var rep anatomy.HumanoidReport
	withFingers, placed := 0, 0
	for seed := int64(1); seed <= int64(*fingerSeeds); seed++ {
		c, err := synth.Generate("biped", seed, synth.Options{TargetVertices: 15000})
		if err != nil {
			t.Fatal(err)
		}
		sk, r := fit(t, c, anatomy.Options{})
		f := anatomy.MeasureHumanoid(fmt.Sprint("synth/biped_", seed), "synthetic", sk, r, c.Skeleton, height(&c.Mesh, 1))
		rep.Add(f)
		if made, placed := chains(c.Skeleton.Names, "finger_l_", "_end"), chains(sk.Names, "LeftHand", "4"); placed > made {
			t.Errorf("seed %d: %d finger chains placed on a hand made with %d", seed, placed, made)
		}
		if f.FingersPlaced > 0 && f.ArtistFingers == 0 {
			t.Errorf("seed %d: %d finger joints placed on a hand made without fingers", seed, f.FingersPlaced)
		}
		if f.Checks.Roots != 1 || len(f.Checks.LimbOnLimb) > 0 || (f.Symmetry.Symmetric && f.Checks.MirrorError > 0.02) {
			t.Errorf("seed %d: %d roots, limbs on limbs %v, mirror error %.3f", seed, f.Checks.Roots, f.Checks.LimbOnLimb, f.Checks.MirrorError)
		}
		withFingers += b2i(f.ArtistFingers > 0)
		placed += b2i(f.FingersPlaced > 0)
	}
	md := rep.Markdown()
	t.Log("\n" + md[:strings.Index(md, "Per file")])
	var hits, total int
	for _, f := range rep.Fits {
		hits, total = hits+f.FingerHits, total+f.FingerTotal
	}
	if 2*placed < withFingers || float64(hits) < 0.9*float64(total) {
		t.Errorf("fingers placed on %d of %d bipeds made with them, %d/%d finger names", placed, withFingers, hits, total)
	}
}

// chains counts the names with the prefix and suffix: one a finger chain.
func chains(names []string, prefix, suffix string) int {
	n := 0
	for _, s := range names {
		n += b2i(strings.HasPrefix(s, prefix) && strings.HasSuffix(s, suffix))
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
