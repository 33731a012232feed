package rewards

import (
	"maps"
	"strings"
	"testing"
)

func TestWeightsFor(t *testing.T) {
	v3 := map[string]float64{Containment: 1, Coverage: 3, SkinReward: 1, Locality: 3, Deformation: 2, Sanity: 2}
	tests := []struct {
		name, spec string
		want       map[string]float64
		err        string
	}{
		{"empty is the current weights", "", Weights, ""},
		{"version 7 is the current weights", "v7", Weights, ""},
		{"version 6: version 7's", "v6", Weights, ""},
		{"version 5: version 6's without the critic", "v5", withoutCritic(Weights), ""},
		{"version 4: version 5's", "v4", withoutCritic(Weights), ""},
		{"version 3: the six geometric rewards", "v3", v3, ""},
		{"spaces around a version", " v3 ", v3, ""},
		{"explicit list", "coverage=3, symmetry=0.5", map[string]float64{Coverage: 3, Symmetry: 0.5}, ""},
		{"explicit zero kept", "coverage=1,limbs=0", map[string]float64{Coverage: 1, Limbs: 0}, ""},
		{"unknown version", "v9", nil, "not a version"},
		{"unknown reward", "coverage=1,motion=2", nil, "unknown reward"},
		{"reward twice", "coverage=1,coverage=2", nil, "given twice"},
		{"negative weight", "coverage=-1", nil, "finite weight"},
		{"NaN weight", "coverage=NaN", nil, "finite weight"},
		{"infinite weight", "coverage=+Inf", nil, "finite weight"},
		{"not a number", "coverage=x", nil, "finite weight"},
		{"item without =", "coverage=1,limbs", nil, "not name=w"},
		{"all zero", "coverage=0,limbs=0", nil, "every weight is 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WeightsFor(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("WeightsFor(%q) = %v, %v; want an error with %q", tc.spec, got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("WeightsFor(%q): %v", tc.spec, err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("WeightsFor(%q) = %v, want %v", tc.spec, got, tc.want)
			}
		})
	}
}

func withoutCritic(w map[string]float64) map[string]float64 {
	out := maps.Clone(w)
	delete(out, criticReward)
	return out
}

// TestWeightsForIsACopy checks that a caller changing the weights it got changes
// neither Weights nor the version table.
func TestWeightsForIsACopy(t *testing.T) {
	for _, spec := range append([]string{""}, RewardVersions()...) {
		w, err := WeightsFor(spec)
		if err != nil {
			t.Fatal(err)
		}
		w[Coverage] = 99
		again, _ := WeightsFor(spec)
		if again[Coverage] == 99 || Weights[Coverage] == 99 {
			t.Fatalf("WeightsFor(%q) shares its map", spec)
		}
	}
}

// TestVersionsCombineDifferently checks that a rig with imperfect semantic
// rewards scores differently under versions 3 and 4, and that version 4 is the
// score Combine gives.
func TestVersionsCombineDifferently(t *testing.T) {
	r := map[string]float64{Containment: 0.9, Coverage: 0.8, SkinReward: 1, Locality: 0.9, Deformation: 0.7, Sanity: 0.9, Symmetry: 0.3, Limbs: 0.5}
	v3, _ := WeightsFor("v3")
	v4, _ := WeightsFor("v4")
	s3, s4 := CombineWith(r, v3), CombineWith(r, v4)
	if s4 != Combine(r) {
		t.Errorf("version 4 combines to %v, Combine to %v", s4, Combine(r))
	}
	if !(s3 > s4) {
		t.Errorf("low symmetry and limbs: version 3 %v should score above version 4 %v", s3, s4)
	}
}
