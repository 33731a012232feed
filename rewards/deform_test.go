package rewards

import (
	"math"
	"testing"
)

// TestTearFactor pins the shape of the tear factor: free while at most tearFree of
// the seams tear (an artist's hard seams), rising continuously and monotonically
// to the full exp(−t/tearScale) at t = 1 (nearest-bone weights tear every seam) and
// following it beyond.
func TestTearFactor(t *testing.T) {
	full := func(t float64) float64 { return math.Exp(-t / tearScale) }
	for _, tc := range []struct {
		torn, want float64
	}{
		{0, 1},
		{0.5, 1},
		{tearFree, 1},
		{(1 + tearFree) / 2, math.Exp(-0.5 / tearScale)},
		{1, full(1)},
		{1.5, full(1.5)},
		{3, full(3)},
	} {
		if got := tearFactor(tc.torn); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("tearFactor(%g) = %g, want %g", tc.torn, got, tc.want)
		}
	}
	prev := 1.0
	for x := 0.0; x <= 3; x += 0.01 {
		f := tearFactor(x)
		if f > prev+1e-15 {
			t.Fatalf("tearFactor rises at %g: %g after %g", x, f, prev)
		}
		if x > 0.99 && x < 1.01 && math.Abs(f-full(x)) > 0.02 {
			t.Fatalf("tearFactor(%g) = %g jumps away from the full cost %g", x, f, full(x))
		}
		prev = f
	}
}
