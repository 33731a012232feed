package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
)

// TestPanelRowsMatchGemm checks that the decoder's output projection
// (fastmath.PanelRows) gives the logits the engine's GEMM gives, bit for bit, for
// the shipped model's head (128 → 1,261) and a tail panel, one row (a step of one
// sequence) to eight (a batch of streams). OpenBLAS's blocked kernel sums each
// output over k in order from zero, as PanelRows does; its small-matrix kernels
// (products under about 10⁵ multiply-adds) and other inner sizes sum otherwise,
// so only the decoder's shapes are compared. The test holds on the OpenBLAS of
// this repository's machines (the Cooperlake kernels); a BLAS that sums in
// another order fails it, and the decoder's logits then differ from a full
// forward pass's in the last bits.
func TestPanelRowsMatchGemm(t *testing.T) {
	if name := engine.NewCPU(1).Name(); name != "cpu-openblas" {
		t.Skipf("%s sums in its own order", name)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ m, n, k int }{{1, 1261, 128}, {2, 1261, 128}, {8, 1261, 128}, {3, 777, 96}} {
		w := make([]float32, tc.n*tc.k)
		x := make([]float32, tc.m*tc.k)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.1)
		}
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		want := make([]float32, tc.m*tc.n)
		engine.NewCPU(1).Sgemm(false, true, tc.m, tc.n, tc.k, 1, x, tc.k, w, tc.k, 0, want, tc.n)
		got := make([]float32, tc.m*tc.n)
		fastmath.PanelRows(x, tc.m, tc.k, fastmath.PackPanels(w, tc.n, tc.k), tc.n, got)
		diff := 0
		for i := range want {
			if want[i] != got[i] {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%d×%d by %d: %d of %d outputs differ from the GEMM's", tc.m, tc.k, tc.n, diff, len(want))
		}
	}
}

// BenchmarkDecoderHead is a decoding step's output projection, one row of 128 by
// the shipped 1,261-token head, as a one-row GEMM on one worker and as
// fastmath.PanelRows on the packed head.
//
//	go test ./internal/nn/ -run XXX -bench BenchmarkDecoderHead -count 3
func BenchmarkDecoderHead(b *testing.B) {
	n, k := 1261, 128
	rng := rand.New(rand.NewPCG(1, 2))
	w, x, y := make([]float32, n*k), make([]float32, k), make([]float32, n)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.1)
	}
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	panels := fastmath.PackPanels(w, n, k)
	e := engine.NewCPU(1)
	b.Run("gemm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e.Sgemm(false, true, 1, n, k, 1, x, k, w, k, 0, y, n)
		}
	})
	b.Run("panels", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fastmath.PanelRows(x, 1, k, panels, n, y)
		}
	})
}
