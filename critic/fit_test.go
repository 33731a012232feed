package critic

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/dataset"
)

// TestFit: on candidates whose first feature grows with the distance to
// the artist's skeleton and whose others are noise, the fitted critic weighs
// the first feature negatively, orders nearly every held-out pair and leaves
// the features it was told not to fit at 0.
func TestFit(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := len(FeatureNames)
	var chars []Character
	for i := 0; i < 60; i++ {
		c := Character{File: "f", Half: dataset.TuneHalf}
		if i%2 == 1 {
			c.Half = dataset.ReportHalf
		}
		for k := 0; k < 6; k++ {
			cd := 0.04 * float64(k)
			f := make([]float64, n)
			for j := range f {
				f[j] = rng.NormFloat64()
			}
			f[0] = 10*cd + 0.05*rng.NormFloat64()
			c.Cands = append(c.Cands, Candidate{Name: "k", CD: cd, F: f})
		}
		chars = append(chars, c)
	}
	tests := []struct {
		name     string
		features []string
		err      string
	}{
		{"all features", nil, ""},
		{"first and one more", []string{FeatureNames[0], FeatureNames[3]}, ""},
		{"unknown feature", []string{"nope"}, "unknown feature"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Fit(chars, FitOptions{Features: tc.features, FullAt: 1})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := rep.Model.Weights
			if !(w[0] < 0) || rep.Accuracy[dataset.ReportHalf] < 0.95 {
				t.Fatalf("weight of the informative feature %.3f, held-out pair accuracy %.3f: want < 0 and ≥ 0.95", w[0], rep.Accuracy[dataset.ReportHalf])
			}
			if tc.features != nil && (w[1] != 0 || w[2] != 0) {
				t.Fatalf("weights %v: features left out must weigh 0", w)
			}
			if rep.Model.FullAt != 1 || rep.Model.Training.Pairs == 0 {
				t.Fatalf("full_at %g, pairs %d", rep.Model.FullAt, rep.Model.Training.Pairs)
			}
			if _, err := Parse(mustMarshal(t, rep.Model)); err != nil {
				t.Fatalf("fitted critic does not parse: %v", err)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
