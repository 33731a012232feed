package skincodec

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

func randomBatch(rng *rand.Rand, cfg CVAEConfig, B, Bc, Nq int) *batch[float64] {
	fill := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * 0.5
		}
		return x
	}
	bt := &batch[float64]{B: B, Bc: Bc, Nq: Nq,
		enc: fill(B * encPoints * cfg.encDim()), bone: fill(B * boneFeatures),
		mesh: fill(Bc * meshPoints * meshFeatures), qry: fill(B * Nq * cfg.queryDim()),
		target: make([]float64, B*Nq), lossW: make([]float64, B*Nq)}
	for b := 0; b < B; b++ {
		bt.meshOf = append(bt.meshOf, b%Bc)
	}
	for i := range bt.target {
		if rng.Intn(2) == 0 {
			bt.target[i] = rng.Float64()
		}
		bt.lossW[i] = 1 + rng.Float64()
	}
	return bt
}

// TestCVAEGradients checks every parameter's gradient against central finite
// differences in float64, with FSQ bypassed (its rounding has no true gradient).
func TestCVAEGradients(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  CVAEConfig
	}{
		{"rigid prior", CVAEConfig{D: 8, Heads: 2, Hidden: 12, K: tokens.DefaultK, Latents: 3, Blocks: 2, Levels: tokens.SkinLevels[:], Prior: 2}},
		{"geodesic prior", CVAEConfig{D: 8, Heads: 2, Hidden: 12, K: tokens.DefaultK, Latents: 3, Blocks: 1, Levels: tokens.SkinLevels[:], Geodesic: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCVAEGradients(t, tc.cfg) })
	}
}

func checkCVAEGradients(t *testing.T, cfg CVAEConfig) {
	m, err := newCVAE[float64](cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	m.noQuant = true
	rng := rand.New(rand.NewSource(8))
	bt := randomBatch(rng, cfg, 3, 2, 5)
	nn.ZeroGrad[float64](m)
	m.step(bt, true)
	const h = 1e-6
	checked := 0
	for _, p := range m.Params() {
		w, g := p.Data(), p.GradData()
		for trial := 0; trial < 3; trial++ {
			i := rng.Intn(len(w))
			orig := w[i]
			w[i] = orig + h
			lp := m.step(bt, false).Loss
			w[i] = orig - h
			lm := m.step(bt, false).Loss
			w[i] = orig
			num := (lp - lm) / (2 * h)
			if diff := math.Abs(num - g[i]); diff > 1e-5+1e-3*math.Abs(num) {
				t.Errorf("%s[%d]: analytic %.8g, numeric %.8g", p.Name, i, g[i], num)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no parameters")
	}
}

// TestCVAEQuantizedCodes checks that the encoder's quantized codes are valid FSQ
// code vectors and that the step with FSQ gives finite gradients.
func TestCVAEQuantizedCodes(t *testing.T) {
	m, err := newCVAE[float32](DefaultCVAEConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(9))
	b64 := randomBatch(rng, m.cfg, 2, 1, 7)
	conv := func(x []float64) []float32 {
		out := make([]float32, len(x))
		for i, v := range x {
			out[i] = float32(v)
		}
		return out
	}
	bt := &batch[float32]{B: 2, Bc: 1, Nq: 7, enc: conv(b64.enc), bone: conv(b64.bone), mesh: conv(b64.mesh),
		meshOf: b64.meshOf, qry: conv(b64.qry), target: conv(b64.target), lossW: conv(b64.lossW)}
	st := m.step(bt, true)
	if math.IsNaN(st.Loss) || st.Loss <= 0 {
		t.Fatalf("loss %v", st.Loss)
	}
	for _, p := range m.Params() {
		for _, g := range p.GradData() {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
				t.Fatalf("%s has a non-finite gradient", p.Name)
			}
		}
	}
}

// BenchmarkTrainStep times one training step (batch building, forward, backward) of
// the default configuration on the real data (4 characters × 8 bones × 128 queries).
func BenchmarkTrainStep(b *testing.B) {
	dir := filepath.Join("..", "..", "shared", "data")
	files, err := dataset.Discover([]string{dir})
	if err != nil || len(files) == 0 {
		b.Skipf("no shared data at %s", dir)
	}
	cfg := DefaultCVAEConfig()
	set, _ := loadTrainChars(files[:min(40, len(files))], 1, cfg.Geodesic > 0, func(string, ...any) {})
	m, err := newCVAE[float32](cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bt := makeBatch(rng, set, 4, 8, 128, true)
		m.step(bt, true)
	}
}
