package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
)

// TestReduceRows sums the rows of random matrices with several worker counts: the
// sums must match a plain float64 sum, add to what dst held, and be bitwise the
// same for every worker count.
func TestReduceRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, tc := range []struct{ n, width int }{{0, 4}, {1, 3}, {63, 5}, {64, 5}, {65, 7}, {1000, 96}, {4097, 17}} {
		x := make([]float32, tc.n*tc.width)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		want := make([]float64, tc.width)
		for i := 0; i < tc.n; i++ {
			for j := 0; j < tc.width; j++ {
				want[j] += float64(x[i*tc.width+j])
			}
		}
		var first []float32
		for _, workers := range []int{1, 3, 16} {
			dst := make([]float32, tc.width)
			for j := range dst {
				dst[j] = 1 // reduceRows adds to dst
			}
			var scratch []float32
			reduceRows(engine.NewCPU(workers), tc.n, dst, &scratch, func(lo, hi int, acc []float32) {
				for i := lo; i < hi; i++ {
					for j, v := range x[i*tc.width : (i+1)*tc.width] {
						acc[j] += v
					}
				}
			})
			for j, v := range dst {
				if math.Abs(float64(v)-1-want[j]) > 1e-4*math.Sqrt(float64(tc.n+1)) {
					t.Fatalf("n=%d width=%d workers=%d: column %d = %g, want %g", tc.n, tc.width, workers, j, v-1, want[j])
				}
			}
			if first == nil {
				first = dst
			} else if !slices.Equal(first, dst) {
				t.Fatalf("n=%d width=%d: %d workers give other bits than 1", tc.n, tc.width, workers)
			}
		}
	}
}
