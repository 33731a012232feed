package eval

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/rewards"
)

// rankCands builds candidates whose rewards are all r except coverage, and whose
// score and error are given.
func rankCands(scores, errs, coverage []float64) []RankCandidate {
	var out []RankCandidate
	for i := range scores {
		rw := map[string]float64{}
		for _, n := range rewards.RewardNames {
			rw[n] = 0.5
		}
		rw[rewards.Coverage] = coverage[i]
		out = append(out, RankCandidate{Method: string(rune('a' + i)), Score: scores[i], Deform: errs[i], Rewards: rw})
	}
	return out
}

func TestRankTaus(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		scores, errs, coverage []float64
		tau, coverageAlone     float64
		undefinedAlone         string // a reward tied on every candidate: τ alone undefined
	}{
		{"agree", []float64{0.9, 0.8, 0.1}, []float64{0, 1, 5}, []float64{0.9, 0.5, 0.1}, 1, 1, rewards.Sanity},
		{"reversed", []float64{0.1, 0.8, 0.9}, []float64{0, 1, 5}, []float64{0.1, 0.5, 0.9}, -1, -1, rewards.Locality},
		{"one swap", []float64{0.9, 0.7, 0.8, 0.1}, []float64{0, 1, 2, 5}, []float64{0.9, 0.8, 0.7, 0.1}, 4.0 / 6, 1, rewards.SkinReward},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tau, alone, without := rankTaus(rankCands(tc.scores, tc.errs, tc.coverage))
			if tau == nil || math.Abs(*tau-tc.tau) > 1e-12 {
				t.Fatalf("τ %v, want %v", tau, tc.tau)
			}
			if a := alone[rewards.Coverage]; a == nil || math.Abs(*a-tc.coverageAlone) > 1e-12 {
				t.Errorf("coverage alone %v, want %v", a, tc.coverageAlone)
			}
			if alone[tc.undefinedAlone] != nil {
				t.Errorf("%s alone: τ %v of a tied reward, want undefined", tc.undefinedAlone, *alone[tc.undefinedAlone])
			}
			// Without coverage every candidate scores alike: undefined.
			if without[rewards.Coverage] != nil {
				t.Errorf("score without coverage: τ %v, want undefined", *without[rewards.Coverage])
			}
			// Without another reward the score is coverage's order.
			if w := without[rewards.Sanity]; w == nil || math.Abs(*w-tc.coverageAlone) > 1e-12 {
				t.Errorf("score without sanity: τ %v, want %v", w, tc.coverageAlone)
			}
		})
	}
	// Failed candidates are left out; under three left, nothing is defined.
	c := rankCands([]float64{0.9, 0.8, 0.1}, []float64{0, 1, 5}, []float64{0.9, 0.5, 0.1})
	c[2].Error = "failed"
	if tau, _, _ := rankTaus(c); tau != nil {
		t.Errorf("two candidates: τ %v, want undefined", *tau)
	}
}
