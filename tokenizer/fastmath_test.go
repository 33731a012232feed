package tokenizer

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/rigmodel/engine"
	"github.com/rigkit/rigkit/rigmodel/nn"
)

func TestTanh32(t *testing.T) {
	worst, at := 0.0, 0.0
	for x := -12.0; x <= 12; x += 1e-4 {
		xf := float32(x)
		err := math.Abs(float64(tanh32(xf)) - math.Tanh(float64(xf)))
		if err > worst {
			worst, at = err, x
		}
		if tanh32(-xf) != -tanh32(xf) {
			t.Fatalf("tanh32 is not odd at %g", x)
		}
	}
	t.Logf("tanh32: worst absolute error %.3g at %.4f", worst, at)
	if worst > 6.5e-7 {
		t.Fatalf("tanh32: absolute error %.3g at %g, want ≤ 6.5e-7", worst, at)
	}
	for _, x := range []float32{1e4, float32(math.Inf(1))} {
		if y := tanh32(x); math.Abs(float64(y)-1) > 6.5e-7 || tanh32(-x) != -y {
			t.Fatalf("tanh32(±%g) = ±%g, want ±1", x, y)
		}
	}
}

func TestGELUInPlace(t *testing.T) {
	var xs []float32
	for x := -20.0; x <= 20; x += 1e-3 {
		xs = append(xs, float32(x))
	}
	ys := append([]float32(nil), xs...)
	geluInPlace(ys)
	worst := 0.0
	for i, x := range xs {
		v := float64(x)
		want := 0.5 * v * (1 + math.Tanh(geluK*(v+0.044715*v*v*v)))
		// The tanh error scales with |x|/2; float32 rounding with |x|.
		err := math.Abs(float64(ys[i])-want) / (1 + math.Abs(v))
		worst = max(worst, err)
	}
	t.Logf("geluInPlace: worst error %.3g·(1+|x|)", worst)
	if worst > 6e-7 {
		t.Fatalf("geluInPlace: error %.3g·(1+|x|), want ≤ 6e-7", worst)
	}
	// Against nn's float32 GELU, which the decoder was trained with.
	ref := engine.Data[float32](nn.NewGELU[float32]().Forward(engine.FromSlice(append([]float32(nil), xs...), len(xs))))
	for i := range xs {
		if d := math.Abs(float64(ref[i] - ys[i])); d > 1e-6*(1+math.Abs(float64(xs[i]))) {
			t.Fatalf("geluInPlace(%g) = %g, nn.GELU %g", xs[i], ys[i], ref[i])
		}
	}
}

func TestExp32(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 88; x += 1e-3 {
		xf := float32(x)
		want := math.Exp(float64(xf))
		worst = max(worst, math.Abs(float64(exp32(xf))-want)/want)
	}
	t.Logf("exp32: worst relative error %.3g", worst)
	if worst > 3e-7 {
		t.Fatalf("exp32: relative error %.3g, want ≤ 3e-7", worst)
	}
	if y := exp32(-1000); y < 0 || y > 1e-37 {
		t.Fatalf("exp32(-1000) = %g", y)
	}
	if y := exp32(1000); math.IsInf(float64(y), 0) || y < 1e38 {
		t.Fatalf("exp32(1000) = %g", y)
	}
}

func TestSoftmaxAndLayerNorm(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	row := make([]float32, 21)
	for i := range row {
		row[i] = float32(rng.NormFloat64() * 5)
	}
	want := make([]float64, len(row))
	var m, s float64 = math.Inf(-1), 0
	for _, v := range row {
		m = max(m, float64(v))
	}
	for i, v := range row {
		want[i] = math.Exp(float64(v) - m)
		s += want[i]
	}
	softmaxInPlace(row)
	for i := range row {
		if d := math.Abs(float64(row[i]) - want[i]/s); d > 1e-6 {
			t.Fatalf("softmax[%d] = %g, want %g", i, row[i], want[i]/s)
		}
	}
	ln := nn.NewLayerNorm[float32]("ln", 8)
	for i := range ln.Weight.Data() {
		ln.Weight.Data()[i] = float32(rng.NormFloat64())
		ln.Bias.Data()[i] = float32(rng.NormFloat64())
	}
	x := make([]float32, 5*8)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
	}
	ref := engine.Data[float32](ln.Forward(engine.FromSlice(append([]float32(nil), x...), 5, 8)))
	layerNormRows(x, x, ln.Weight.Data(), ln.Bias.Data(), ln.Eps)
	for i := range x {
		if d := math.Abs(float64(x[i] - ref[i])); d > 1e-5 {
			t.Fatalf("layerNormRows[%d] = %g, nn.LayerNorm %g", i, x[i], ref[i])
		}
	}
}

// BenchmarkGELU compares the inference GELU with nn's on one decoder layer's worth
// of activations (4,096 points × 128 channels).
func BenchmarkGELU(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	x := make([]float32, 4096*128)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 2)
	}
	buf := make([]float32, len(x))
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			geluInPlace(buf)
		}
	})
	b.Run("nn", func(b *testing.B) {
		g := nn.NewGELU[float32]()
		for i := 0; i < b.N; i++ {
			g.Forward(engine.FromSlice(x, len(x)))
		}
	})
}
