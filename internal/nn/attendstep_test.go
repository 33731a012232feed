package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
)

// TestAttendStepMatchesGemmAttention checks a decoding step's attention through
// the transposed keys (fastmath.AttendQuery) against the GEMM attention
// (attnForward) on the same cache: probabilities and outputs agree to float32
// rounding for caches of 1 to 300 positions, one and three sequences.
func TestAttendStepMatchesGemmAttention(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := newSelfAttention[float32]("attn", 64, 4, true, rng)
	for _, tc := range []struct{ B, T int }{{1, 1}, {1, 17}, {1, 64}, {1, 65}, {3, 300}} {
		cache := a.newKVCache(tc.B, 320)
		c, hs := a.C, a.C/a.Heads
		row := make([]float32, 2*c)
		for b := 0; b < tc.B; b++ {
			for p := 0; p < tc.T; p++ {
				for i := range row {
					row[i] = float32(rng.NormFloat64())
				}
				cache.put(b, p, row[:c], row[c:])
			}
		}
		cache.Len = tc.T
		q := make([]float32, tc.B*c)
		for i := range q {
			q[i] = float32(rng.NormFloat64())
		}
		s := attnShape{B: tc.B, H: a.Heads, Tq: 1, Tk: tc.T, hs: hs, scale: 1 / math.Sqrt(float64(hs)),
			q: view{0, c, c}, k: view{0, cache.MaxT * c, c}, v: view{0, cache.MaxT * c, c}, y: view{0, c, c}}
		wantY, wantP := make([]float32, tc.B*c), make([]float32, tc.B*a.Heads*tc.T)
		attnForward(engine.NewCPU(1), &s, q, cache.K, cache.V, wantY, wantP)
		gotY, gotP := make([]float32, tc.B*c), make([]float32, tc.B*a.Heads*tc.T)
		a.attendStep(engine.NewCPU(1), &s, q, c, cache, gotY, gotP)
		for _, cmp := range []struct {
			name      string
			want, got []float32
		}{{"probabilities", wantP, gotP}, {"outputs", wantY, gotY}} {
			for i := range cmp.want {
				if d := math.Abs(float64(cmp.want[i] - cmp.got[i])); d > 1e-5*(1+math.Abs(float64(cmp.want[i]))) {
					t.Fatalf("B=%d T=%d: %s[%d] = %g, GEMM attention %g", tc.B, tc.T, cmp.name, i, cmp.got[i], cmp.want[i])
				}
			}
		}
	}
}

// TestCrossStepMatchesGemmAttention checks a step's cross-attention through the
// transposed context keys against the GEMM attention over the same cache, for one
// and three sequences.
func TestCrossStepMatchesGemmAttention(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := NewCrossAttention[float32]("cross", 64, 48, 4, rng)
	for _, B := range []int{1, 3} {
		L := 40
		ctx := make([]float32, B*L*a.CtxDim)
		x := make([]float32, B*a.C)
		for i := range ctx {
			ctx[i] = float32(rng.NormFloat64())
		}
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		cache, err := a.newCrossCache(ctx, B, L)
		if err != nil {
			t.Fatal(err)
		}
		got := append([]float32(nil), a.step(engine.NewCPU(1), x, cache)...)
		cache.Kt = nil
		want := a.step(engine.NewCPU(1), x, cache)
		for i := range want {
			if d := math.Abs(float64(want[i] - got[i])); d > 1e-5*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("B=%d: output %d = %g, GEMM attention %g", B, i, got[i], want[i])
			}
		}
	}
}
