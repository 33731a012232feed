package skincodec

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
	"github.com/rigkit/rigkit/internal/nn"
)

// TestInferenceKernelsMatchNN checks the inference decoder's kernels against nn's
// layers, which the decoder was trained with.
func TestInferenceKernelsMatchNN(t *testing.T) {
	var xs []float32
	for x := -20.0; x <= 20; x += 1e-3 {
		xs = append(xs, float32(x))
	}
	ys := append([]float32(nil), xs...)
	fastmath.GELUInPlace(ys)
	ref := engine.Data[float32](nn.NewGELU[float32]().Forward(engine.FromSlice(append([]float32(nil), xs...), len(xs))))
	for i := range xs {
		if d := math.Abs(float64(ref[i] - ys[i])); d > 1e-6*(1+math.Abs(float64(xs[i]))) {
			t.Fatalf("GELUInPlace(%g) = %g, nn.GELU %g", xs[i], ys[i], ref[i])
		}
	}

	rng := rand.New(rand.NewSource(1))
	ln := nn.NewLayerNorm[float32]("ln", 8)
	for i := range ln.Weight.Data() {
		ln.Weight.Data()[i] = float32(rng.NormFloat64())
		ln.Bias.Data()[i] = float32(rng.NormFloat64())
	}
	x := make([]float32, 5*8)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
	}
	lref := engine.Data[float32](ln.Forward(engine.FromSlice(append([]float32(nil), x...), 5, 8)))
	ln.Rows(x, x)
	for i := range x {
		if d := math.Abs(float64(x[i] - lref[i])); d > 1e-5 {
			t.Fatalf("LayerNorm.Rows[%d] = %g, nn.LayerNorm %g", i, x[i], lref[i])
		}
	}
}
