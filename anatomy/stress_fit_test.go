package anatomy_test

import (
	"fmt"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/anatomy/stress"
)

// TestStressedBipeds: synthetic bipeds with their legs pressed together and their
// arms lowered against the hips, or fused into one surface (in a robe, or in a
// skirt with no legs under it: seed 1's hips sat at its hem), are still detected as
// humanoids, with their names near the artist's joints, no chain across the plane
// and no suspicion; the same bodies fitted as kind Other are suspect.
func TestStressedBipeds(t *testing.T) {
	for _, tc := range []struct {
		seed    int64
		variant stress.Variant
	}{
		{1, "legs+armsdown"},
		{2, "legs+apose"},
		{3, "legs"},
		{3, "fused+legs+armsdown"},
		{1, "robe"},
		{2, "robe"},
		{3, "fused+robe"},
		{1, "fused+skirt"},
		{2, "fused+skirt"},
	} {
		t.Run(fmt.Sprintf("%s_%d", tc.variant, tc.seed), func(t *testing.T) {
			c, err := stress.Apply(gen(t, "biped", tc.seed), tc.variant)
			if err != nil {
				t.Fatal(err)
			}
			H := height(&c.Mesh, 1)
			sk, rep := fit(t, c, anatomy.Options{Up: "y"})
			if rep.Kind != anatomy.Humanoid || rep.Status != "ok" {
				t.Fatalf("detected %s (%.2f), status %s %v, want a humanoid, ok", rep.Kind, rep.Confidence, rep.Status, rep.Suspect)
			}
			hits, total, missed := anatomy.NameAccuracy(sk, c.Skeleton, 0.1*H)
			if total == 0 || float64(hits) < 0.85*float64(total) {
				t.Errorf("names %d/%d, missed %v", hits, total, missed)
			}
			if ch := anatomy.Check(sk, rep.Symmetry, H); len(ch.Crossing) > 0 || ch.Roots != 1 {
				t.Errorf("checks %+v", ch)
			}
			_, other := fit(t, c, anatomy.Options{Up: "y", Kind: anatomy.Other})
			if other.Status != "suspect" {
				t.Errorf("fitted as kind other: status %s, want suspect", other.Status)
			}
		})
	}
}

// TestStressedQuadrupeds: synthetic quadrupeds with their legs pressed together,
// or fused into one surface with them, are still detected as quadrupeds. Pressed
// legs end in one end point of the proposal, which alone would read as a fish
// (on nothing, longer than tall); their slices still stand on four feet.
func TestStressedQuadrupeds(t *testing.T) {
	for _, tc := range []struct {
		seed    int64
		variant stress.Variant
	}{
		{1, "legs"},
		{2, "legs"},
		{3, "legs"},
		{2, "fused+legs"},
	} {
		t.Run(fmt.Sprintf("%d_%s", tc.seed, tc.variant), func(t *testing.T) {
			c, err := stress.Apply(gen(t, "quadruped", tc.seed), tc.variant)
			if err != nil {
				t.Fatal(err)
			}
			if _, rep := fit(t, c, anatomy.Options{Up: "y"}); rep.Kind != anatomy.Quadruped {
				t.Errorf("detected %s (%.2f), status %s %v, want a quadruped", rep.Kind, rep.Confidence, rep.Status, rep.Suspect)
			}
		})
	}
}
