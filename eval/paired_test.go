package eval

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/metrics"
)

// skinRes is a scored result for the paired tests.
func skinRes(file, category, method string, deform float64) SkinResult {
	return SkinResult{File: file, Category: category, Method: method, Metrics: &metrics.SkinResult{DeformMean: deform}}
}

func TestPairSkin(t *testing.T) {
	all := func(string) bool { return true }
	results := []SkinResult{
		skinRes("a", "biped", "base", 3), skinRes("a", "biped", "m", 2),
		skinRes("b", "biped", "base", 5), skinRes("b", "biped", "m", 4),
		skinRes("c", "prop", "base", 9), skinRes("c", "prop", "m", 12),
		skinRes("d", "biped", "m", 100), // the baseline did not score d
		{File: "e", Category: "biped", Method: "m", Error: "failed"},
		skinRes("e", "biped", "base", 1),
	}
	tests := []struct {
		name                string
		keep                func(string) bool
		files, lower, upper int
		mean, low, high     float64
	}{
		{"constant difference has a point interval", isCharacter, 2, 2, 0, -1, -1, -1},
		{"mixed signs", all, 3, 2, 1, 1.0 / 3, -1, 3},
		{"props only", func(c string) bool { return !isCharacter(c) }, 1, 0, 1, 3, 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := pairSkin(results, pairedDeform, "m", "base", "s", tc.keep, 1)
			if !ok {
				t.Fatal("no files paired")
			}
			if p.Files != tc.files || p.Lower != tc.lower || p.Higher != tc.upper {
				t.Fatalf("files %d lower %d higher %d, want %d %d %d", p.Files, p.Lower, p.Higher, tc.files, tc.lower, tc.upper)
			}
			if math.Abs(p.MeanDiff-tc.mean) > 1e-12 {
				t.Fatalf("mean difference %v, want %v", p.MeanDiff, tc.mean)
			}
			if !(p.Low <= p.MeanDiff && p.MeanDiff <= p.High) || p.Low < tc.low-1e-12 || p.High > tc.high+1e-12 {
				t.Fatalf("interval [%v, %v] around %v, want within [%v, %v]", p.Low, p.High, p.MeanDiff, tc.low, tc.high)
			}
			if tc.files > 1 && tc.low != tc.high && !(p.Low < p.High) {
				t.Fatalf("interval [%v, %v] has no width over differing files", p.Low, p.High)
			}
		})
	}
	if _, ok := pairSkin(results, pairedDeform, "m", "nobody", "s", all, 1); ok {
		t.Error("paired against a method that scored nothing")
	}
	p1, _ := pairSkin(results, pairedDeform, "m", "base", "s", all, 7)
	p2, _ := pairSkin(results, pairedDeform, "m", "base", "s", all, 7)
	if p1 != p2 {
		t.Errorf("same seed, different intervals: %+v, %+v", p1, p2)
	}
}
