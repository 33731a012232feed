package fastmath

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestOwnKernels checks OwnScores and OwnValues (C in a cgo build) against the Go
// loops (equal up to the last bit of the Go loops' double rounding) and against
// plain float64 sums, across the blocks the values are summed in (n over 320
// and 640) and heads of 32 channels (the C fast path) and of 5.
func TestOwnKernels(t *testing.T) {
	t.Logf("kernels: %s", kernelBackend)
	rng := rand.New(rand.NewSource(9))
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	close := func(name string, got, want []float32, tol float64) {
		t.Helper()
		for i := range got {
			if d := math.Abs(float64(got[i]) - float64(want[i])); d > tol*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("%s: element %d is %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	for _, tc := range []struct{ rows, heads, hs, n int }{{1, 1, 32, 1}, {3, 4, 32, 300}, {2, 2, 32, 500}, {2, 3, 5, 700}, {1, 4, 32, 1300}} {
		name := fmt.Sprintf("%d rows, %d heads of %d, n %d", tc.rows, tc.heads, tc.hs, tc.n)
		c, S, ldp := tc.heads*tc.hs, tc.n+3, tc.n+7
		q, kt, v := fill(tc.rows*3*c), fill(tc.rows*c*S), fill(tc.rows*S*c)
		p, pGo := make([]float32, tc.rows*tc.heads*ldp), make([]float32, tc.rows*tc.heads*ldp)
		OwnScores(q, 3*c, kt, c*S, S, tc.rows, tc.heads, tc.hs, tc.n, 0.25, p, ldp)
		ownScoresGo(q, 3*c, kt, c*S, S, tc.rows, tc.heads, tc.hs, tc.n, 0.25, pGo, ldp)
		close(name+": scores against Go", p, pGo, 1e-6)
		y, yGo, y64 := fill(tc.rows*c), make([]float32, tc.rows*c), make([]float64, tc.rows*c)
		copy(yGo, y)
		for b := 0; b < tc.rows; b++ {
			for h := 0; h < tc.heads; h++ {
				for j := 0; j < tc.n; j++ {
					var s float64
					for ch := 0; ch < tc.hs; ch++ {
						s += float64(q[b*3*c+h*tc.hs+ch]) * float64(kt[b*c*S+(h*tc.hs+ch)*S+j])
					}
					close(name+": a score against float64", p[(b*tc.heads+h)*ldp+j:][:1], []float32{float32(0.25 * s)}, 1e-5)
				}
			}
		}
		for i := range y64 {
			y64[i] = float64(y[i])
		}
		OwnValues(p, ldp, v, S*c, c, tc.rows, tc.heads, tc.hs, tc.n, y, c)
		ownValuesGo(p, ldp, v, S*c, c, tc.rows, tc.heads, tc.hs, tc.n, yGo, c)
		close(name+": values against Go", y, yGo, 1e-6)
		for b := 0; b < tc.rows; b++ {
			for h := 0; h < tc.heads; h++ {
				for j := 0; j < tc.n; j++ {
					for d := 0; d < tc.hs; d++ {
						y64[b*c+h*tc.hs+d] += float64(p[(b*tc.heads+h)*ldp+j]) * float64(v[b*S*c+j*c+h*tc.hs+d])
					}
				}
			}
		}
		want := make([]float32, len(y64))
		for i, f := range y64 {
			want[i] = float32(f)
		}
		close(name+": values against float64", y, want, 1e-4)
	}
}

// TestOwnBlockLen checks the blocks the values' inner dimension is cut into:
// whole blocks of ownBlock while two or more remain, then two halves rounded up
// to ownAlign, covering n exactly.
func TestOwnBlockLen(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{1, []int{1}}, {320, []int{320}}, {321, []int{160, 161}}, {639, []int{320, 319}}, {640, []int{320, 320}}, {1000, []int{320, 320, 184, 176}}} {
		var got []int
		for t0 := 0; t0 < tc.n; {
			l := ownBlockLen(tc.n - t0)
			got = append(got, l)
			t0 += l
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("n %d: blocks %v, want %v", tc.n, got, tc.want)
		}
	}
}

func ExampleOwnScores() {
	// One sequence, one head of two channels, three own positions whose keys are
	// stored transposed: channel 0's row, then channel 1's.
	q := []float32{1, 2}
	kt := []float32{1, 0, 1, 0, 1, 1}
	p := make([]float32, 3)
	OwnScores(q, 2, kt, 6, 3, 1, 1, 2, 3, 0.5, p, 3)
	fmt.Println(p)
	// Output: [0.5 1 1.5]
}
