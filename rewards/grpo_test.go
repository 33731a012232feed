package rewards

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

func TestGroupAdvantagesTable(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		std    bool
		want   []float64
	}{
		{"empty", nil, false, []float64{}},
		{"single", []float64{0.7}, true, []float64{0}},
		{"all equal", []float64{0.5, 0.5, 0.5}, true, []float64{0, 0, 0}},
		{"centred", []float64{1, 2, 3}, false, []float64{-1, 0, 1}},
		{"std scaled", []float64{1, 3}, true, []float64{-1, 1}},
		{"NaN counts as 0", []float64{math.NaN(), 2}, false, []float64{-1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := GroupAdvantages(tc.scores, tc.std)
			if len(got) != len(tc.want) {
				t.Fatalf("len %d, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-6 {
					t.Errorf("advantages %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// Property: advantages sum to zero, keep the order of the scores, and std-scaled ones
// have unit population variance.
func TestGroupAdvantagesProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 500; trial++ {
		n := 2 + rng.Intn(30)
		s := make([]float64, n)
		for i := range s {
			s[i] = rng.Float64() * math.Pow(10, float64(rng.Intn(5)-2))
		}
		for _, std := range []bool{false, true} {
			a := GroupAdvantages(s, std)
			sum, sq := 0.0, 0.0
			for i := range a {
				sum += a[i]
				sq += a[i] * a[i]
				for j := range a {
					if s[i] > s[j] && !(a[i] > a[j]) {
						t.Fatalf("order broken: scores %v advantages %v", s, a)
					}
				}
			}
			if math.Abs(sum) > 1e-9 {
				t.Fatalf("advantages sum to %g", sum)
			}
			if std && math.Abs(sq/float64(n)-1) > 1e-4 {
				t.Fatalf("std-scaled variance %g, want 1", sq/float64(n))
			}
		}
	}
}

func ExampleGroupAdvantages() {
	fmt.Printf("%.2f\n", GroupAdvantages([]float64{0.2, 0.4, 0.9}, false))
	fmt.Printf("%.2f\n", GroupAdvantages([]float64{0.5, 0.5}, true))
	// Output:
	// [-0.30 -0.10 0.40]
	// [0.00 0.00]
}
