package rigmodel

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

// tinyConfig is a model small enough for tests.
var tinyConfig = Config{DModel: 16, Layers: 2, Heads: 2, Latents: 4, Points: 24, Fourier: 2,
	MaxSeq: 264, Vocab: tokens.VocabSize, MaxJoint: 32}

func TestShapeEncoderGradient(t *testing.T) {
	cfg := Config{DModel: 8, Heads: 2, Latents: 3, Points: 5, Fourier: 1}
	rng := rand.New(rand.NewPCG(1, 2))
	e := NewShapeEncoder[float64](cfg, rng)
	const B = 2
	pts := make([]float32, B*cfg.Points*6)
	for i := range pts {
		pts[i] = float32(rng.Float64()*2 - 1)
	}
	r := make([]float64, B*cfg.Latents*cfg.DModel)
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	loss := func() float64 {
		out := engine.Data[float64](e.Forward(pts, B))
		s := 0.0
		for i, v := range out {
			s += r[i] * v
		}
		return s
	}
	loss()
	nn.ZeroGrad[float64](e)
	e.Backward(engine.FromSlice(append([]float64(nil), r...), B, cfg.Latents, cfg.DModel))
	checkGradients(t, e.Params(), loss)
}

// checkGradients compares each parameter's accumulated gradient (of loss, at the
// current weights) with central differences at a few entries per tensor.
func checkGradients(t *testing.T, params []*nn.Param[float64], loss func() float64) {
	t.Helper()
	worst := 0.0
	for _, p := range params {
		w, g := p.Data(), p.GradData()
		for i := 0; i < len(w); i += 1 + len(w)/7 {
			old := w[i]
			const h = 1e-6
			w[i] = old + h
			lp := loss()
			w[i] = old - h
			lm := loss()
			w[i] = old
			num := (lp - lm) / (2 * h)
			// Relative error, with an absolute floor for gradients that are zero by
			// symmetry (a key bias shifts every score of a row equally).
			rel := math.Abs(num-g[i]) / math.Max(1e-4, math.Abs(num)+math.Abs(g[i]))
			if rel > worst {
				worst = rel
			}
			if rel > 1e-5 {
				t.Errorf("%s[%d]: analytic %.8g, numeric %.8g", p.Name, i, g[i], num)
			}
		}
	}
	t.Logf("worst relative error %.2g", worst)
}

// fakeSkin makes deterministic skin codes, k per joint (0: the tiny model's K), from
// each joint's token-order index and a seed.
type fakeSkin struct{ seed, k int }

func (f fakeSkin) K() int {
	if f.k > 0 {
		return f.k
	}
	return tinyConfig.K()
}

func (f fakeSkin) EncodeSkin(c *character.Character, order tokens.Order) ([][]int, error) {
	codes := make([][]int, len(order))
	for j := range codes {
		for k := 0; k < f.K(); k++ {
			codes[j] = append(codes[j], (j*7+k*31+f.seed)%tokens.SkinCodebookSize)
		}
	}
	return codes, nil
}

// saveCheckpoint writes m and st to a checkpoint file at path.
func saveCheckpoint(t *testing.T, path string, m *Model, st *TrainState) error {
	t.Helper()
	var buf bytes.Buffer
	if err := SaveCheckpoint(&buf, m, st); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
