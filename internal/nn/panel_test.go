package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
)

// TestPanelRowsMatchGemm checks that the decoder's output projection
// (fastmath.PanelRows) gives the logits the engine's GEMM gives for the shipped
// model's head (128 → 1,261) and a tail panel, one row (a step of one sequence)
// to eight (a batch of streams). OpenBLAS's blocked kernel on Intel cores
// (Cooperlake, the kernel of the machines the shipped model was measured on)
// sums each output over k in order from zero, as PanelRows does, and the two
// agree bit for bit; its Zen kernels and its small-matrix kernels (products
// under about 10⁵ multiply-adds) sum in another order, and the logits then
// agree to rounding: within panelTolerance of the output's scale. The test
// logs which of the two it saw.
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
		diff, worst := 0, 0.0
		for i := range want {
			if want[i] != got[i] {
				diff++
				worst = max(worst, math.Abs(float64(want[i]-got[i])))
			}
		}
		// The scale of an output: √k inputs of unit size times weights of 0.1.
		scale := 0.1 * math.Sqrt(float64(tc.k))
		if worst > panelTolerance*scale {
			t.Errorf("%d×%d by %d: %d of %d outputs differ from the GEMM's, by up to %.3g (scale %.3g)", tc.m, tc.k, tc.n, diff, len(want), worst, scale)
		} else if diff > 0 {
			t.Logf("%d×%d by %d: this BLAS sums in another order: %d of %d outputs differ in the last bits (up to %.3g)", tc.m, tc.k, tc.n, diff, len(want), worst)
		}
	}
}

// panelTolerance bounds the difference between two float32 summation orders
// of a 128-term dot product, relative to its scale: a few units in the last
// place of float32 (2⁻²⁴ ≈ 6·10⁻⁸) times the terms' count.
const panelTolerance = 1e-5

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

// BenchmarkStepLinear is a decoding step's linear layer at the shipped model's
// widths (self-attention's 128 → 384 and the MLP's 512 → 128) for one stream, a
// vote of four and the eight streams of a skin, and 32 rows, as the engine's GEMM
// on one worker and as fastmath.PanelRows on weights packed once
// (stepPanels, panelMaxRows).
//
//	go test ./internal/nn/ -run XXX -bench BenchmarkStepLinear -count 3
func BenchmarkStepLinear(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := engine.NewCPU(1)
	for _, m := range []int{1, 4, 8, 32} {
		for _, kn := range [][2]int{{128, 384}, {512, 128}} {
			k, n := kn[0], kn[1]
			w, x, y := make([]float32, n*k), make([]float32, m*k), make([]float32, m*n)
			for i := range w {
				w[i] = float32(rng.NormFloat64() * 0.1)
			}
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			panels := fastmath.PackPanels(w, n, k)
			b.Run(fmt.Sprintf("rows=%d/%dx%d/gemm", m, k, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					e.Sgemm(false, true, m, n, k, 1, x, k, w, k, 0, y, n)
				}
			})
			b.Run(fmt.Sprintf("rows=%d/%dx%d/panels", m, k, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					fastmath.PanelRows(x, m, k, panels, n, y)
				}
			})
		}
	}
}

// TestDecoderStepsOnPanels checks that a float32 decoder on the CPU engine steps
// its layers on packed weights (stepPanels), a fork sharing them, and that its
// logits agree with GEMM steps (the same decoder with the panels taken away) to
// rounding, for one sequence and for forks of three and five.
func TestDecoderStepsOnPanels(t *testing.T) {
	m, cfg := testModel[float32](t, true)
	rng := rand.New(rand.NewPCG(6, 7))
	lat32 := make([]float32, 4*cfg.LatentDim)
	for i := range lat32 {
		lat32[i] = float32(rng.NormFloat64())
	}
	lat := engine.FromSlice(lat32, 1, 4, cfg.LatentDim)
	for _, n := range []int{1, 3, 5} {
		panels, err := m.NewDecoder(1, lat)
		if err != nil {
			t.Fatal(err)
		}
		gemm, err := m.NewDecoder(1, lat)
		if err != nil {
			t.Fatal(err)
		}
		if panels.states[0].panels == nil {
			t.Fatal("a float32 decoder on the CPU engine has no packed weights")
		}
		for i := range gemm.states {
			gemm.states[i].panels = nil
		}
		for p := 0; p < 6; p++ {
			tok := []int{rng.IntN(cfg.Vocab)}
			if _, err := panels.Step(tok); err != nil {
				t.Fatal(err)
			}
			if _, err := gemm.Step(tok); err != nil {
				t.Fatal(err)
			}
		}
		if n > 1 {
			if panels, err = panels.Fork(n); err != nil {
				t.Fatal(err)
			}
			if gemm, err = gemm.Fork(n); err != nil {
				t.Fatal(err)
			}
			if panels.states[0].panels == nil || gemm.states[0].panels != nil {
				t.Fatal("a fork does not keep its parent's packed weights")
			}
		}
		for p := 0; p < 6; p++ {
			toks := make([]int, n)
			for i := range toks {
				toks[i] = rng.IntN(cfg.Vocab)
			}
			a, err := panels.Step(toks)
			if err != nil {
				t.Fatal(err)
			}
			b, err := gemm.Step(toks)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range engine.Data[float32](a) {
				if y := engine.Data[float32](b)[i]; math.Abs(float64(x-y)) > 1e-4*(1+math.Abs(float64(y))) {
					t.Fatalf("%d sequences, step %d, logit %d: %v on panels, %v by GEMM", n, p, i, x, y)
				}
			}
		}
	}
}
