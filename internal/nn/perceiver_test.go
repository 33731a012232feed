package nn

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// testPerceiver returns a small Perceiver with non-trivial norm gains and biases,
// so that their gradients are exercised.
func testPerceiver(rng *rand.Rand, outputNorm bool) *Perceiver[float64] {
	p := NewPerceiver[float64](PerceiverConfig{Tokens: 3, C: 8, Heads: 2, Hidden: 12, OutputNorm: outputNorm,
		Names: PerceiverNames{Queries: "p.q", QueryLN: "p.lnq", ContextLN: "p.lnc", Cross: "p.x", MLPLN: "p.lnm", MLP: "p.mlp", OutLN: "p.lno"}}, rng)
	for _, q := range p.Params() {
		if len(q.Shape()) == 1 {
			for i := range q.w {
				q.w[i] += 0.1 * rng.NormFloat64()
			}
		}
	}
	return p
}

// TestPerceiverGradients checks every parameter, the context and the per-sample
// bias against central differences, with and without the output norm and the bias.
func TestPerceiverGradients(t *testing.T) {
	for i, tc := range []struct {
		name             string
		outputNorm, bias bool
	}{
		{"plain", false, false},
		{"output norm", true, false},
		{"bias", false, true},
		{"output norm and bias", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const B, L = 2, 5
			rng := rand.New(rand.NewPCG(uint64(i), 31))
			p := testPerceiver(rng, tc.outputNorm)
			x := randTensor(rng, B, L, 8)
			var bias *tensor.Dense
			if tc.bias {
				bias = randTensor(rng, B, 8)
			}
			r := randData(rng, B*3*8)
			loss := func() float64 { return dot(engine.Data[float64](p.Forward(x, bias)), r) }
			ZeroGrad[float64](p)
			loss()
			dy := engine.FromSlice(append([]float64(nil), r...), B, 3, 8)
			dx, dbias := p.Backward(dy)
			if !slices.Equal(engine.Data[float64](dy), r) {
				t.Error("Backward modified dy")
			}
			if (dbias != nil) != tc.bias {
				t.Fatalf("dbias %v with bias %v", dbias != nil, tc.bias)
			}
			ts := append(paramTargets(p), target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)})
			if tc.bias {
				ts = append(ts, target{"bias", engine.Data[float64](bias), append([]float64(nil), engine.Data[float64](dbias)...)})
			}
			fdCheck(t, loss, ts, 150)
		})
	}
}

// TestPerceiverNames checks that the parameters carry the caller's names, which
// are the tensor names of the checkpoints, and that OutLN exists only with
// OutputNorm.
func TestPerceiverNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	want := []string{"p.q", "p.lnq.weight", "p.lnq.bias", "p.lnc.weight", "p.lnc.bias",
		"p.x.q.weight", "p.x.q.bias", "p.x.kv.weight", "p.x.kv.bias", "p.x.proj.weight", "p.x.proj.bias",
		"p.lnm.weight", "p.lnm.bias", "p.mlp.up.weight", "p.mlp.up.bias", "p.mlp.down.weight", "p.mlp.down.bias"}
	for _, outputNorm := range []bool{false, true} {
		var got []string
		for _, q := range testPerceiver(rng, outputNorm).Params() {
			got = append(got, q.Name)
		}
		w := want
		if outputNorm {
			w = append(slices.Clone(want), "p.lno.weight", "p.lno.bias")
		}
		if !slices.Equal(got, w) {
			t.Errorf("output norm %v: names %v, want %v", outputNorm, got, w)
		}
	}
}
