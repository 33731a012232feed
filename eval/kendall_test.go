package eval

import (
	"math"
	"testing"
)

func TestKendallTau(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		// The reward of four rigs of one mesh against minus their deformation error.
		{"rewards against errors", []float64{0.9, 0.7, 0.8, 0.2}, []float64{-1.0, -3.0, -2.5, -6}, 1},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		{"one swap of four", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6},
		{"monotone, not linear", []float64{1, 2, 3}, []float64{1, 100, 101}, 1},
		// 5 concordant, 1 discordant pair of 6: (5-1)/6.
		{"two swapped ends", []float64{1, 2, 3, 4}, []float64{2, 1, 3, 4}, 4.0 / 6},
		// τ-b with a tie in x: pairs (0,1) tied in x; 5 untied in x, 6 in y;
		// concordant 5, discordant 0: 5/sqrt(30).
		{"tie in x", []float64{1, 1, 2, 3}, []float64{1, 2, 3, 4}, 5 / math.Sqrt(30)},
		// Ties on both sides in the same pair: 5 untied each side, all concordant.
		{"tie in both", []float64{1, 1, 2, 3}, []float64{5, 5, 6, 7}, 1},
		{"independent", []float64{1, 2, 3, 4}, []float64{2, 4, 1, 3}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kendallTau(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("τ = %v, want %v", got, tc.want)
			}
			// Symmetric in its arguments.
			if back, _ := kendallTau(tc.y, tc.x); math.Abs(back-got) > 1e-12 {
				t.Errorf("τ(y, x) = %v, τ(x, y) = %v", back, got)
			}
		})
	}
}

func TestKendallTauErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
	}{
		{"lengths", []float64{1, 2}, []float64{1}},
		{"one item", []float64{1}, []float64{1}},
		{"all tied", []float64{1, 1, 1}, []float64{1, 2, 3}},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 2}},
		{"Inf", []float64{1, 2}, []float64{math.Inf(1), 2}},
	} {
		if _, err := kendallTau(tc.x, tc.y); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
