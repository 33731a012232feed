package rigmodel

import (
	"math"
	mrand "math/rand"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
	"gorgonia.org/tensor"
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

// examples returns n small training examples from the classical rig of the box
// quadruped, with made-up skin codes so the whole stream is exercised.
func tinyExamples(t testing.TB, n int) []*Example {
	c := testRig(t)
	var out []*Example
	for i := 0; i < n; i++ {
		rng := mrand.New(mrand.NewSource(int64(i)))
		a := Augment(c, AugmentOptions{Rotate: true}, rng)
		ex, err := MakeExample(a, tinyConfig.Points, fakeSkin{seed: i}, rng)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ex)
	}
	return out
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

func TestModelOverfitsTinyRigsAndKVCacheMatches(t *testing.T) {
	exs := tinyExamples(t, 2)
	m, err := NewModel(tinyConfig, 7)
	if err != nil {
		t.Fatal(err)
	}
	opt := nn.NewAdamW[float32](3e-3)
	opt.WeightDecay = 0
	first := Losses{}
	var last Losses
	for step := 0; step < 1000; step++ {
		nn.ZeroGrad[float32](m)
		ls, err := m.Step(exs, true, 1)
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = ls
		}
		last = ls
		nn.ClipGradNorm(m.Params(), 1)
		opt.Step(m.Params())
		if ls.Total() < 0.002 {
			break
		}
	}
	t.Logf("loss skeleton %.3f → %.4f, skin %.3f → %.4f", first.Skeleton, last.Skeleton, first.Skin, last.Skin)
	if last.Skeleton > 0.01 || last.Skin > 0.01 {
		t.Fatalf("did not overfit two rigs: skeleton %.3f, skin %.3f", last.Skeleton, last.Skin)
	}
	// Greedy KV-cached generation reproduces the memorized streams, and equals the
	// argmax of a full forward pass over its own output at every position.
	for _, ex := range exs {
		s, lat := greedyStream(t, m, ex, SampleOptions{MaxJoints: tinyConfig.MaxJoint, K: tinyConfig.K()})
		if !slices.Equal(s.Tokens, ex.Tokens) {
			t.Errorf("greedy stream differs from the memorized one:\n got %v\nwant %v", s.Tokens, ex.Tokens)
		}
		T := len(s.Tokens) - 1
		logits, err := m.Decoder.Forward(s.Tokens[:T], 1, T, lat)
		if err != nil {
			t.Fatal(err)
		}
		full := engine.Data[float32](logits)
		g := tokens.NewGrammar(tinyConfig.MaxJoint, tinyConfig.K()).Start()
		for i := 0; i < T; i++ {
			g.Next(s.Tokens[i])
			mask := g.Allowed()
			row := append([]float32(nil), full[i*tokens.VocabSize:(i+1)*tokens.VocabSize]...)
			mask.Apply(row, float32(math.Inf(-1)))
			best := 0
			for j, v := range row {
				if v > row[best] {
					best = j
				}
			}
			if best != s.Tokens[i+1] {
				t.Fatalf("position %d: cached greedy %s, full forward argmax %s", i+1, tokens.TokenString(s.Tokens[i+1]), tokens.TokenString(best))
			}
		}
	}
}

// greedyStream generates m's greedy stream for an example's condition (points and
// proposal) with the KV cache, and returns it with the encoded condition.
func greedyStream(t *testing.T, m *Model, ex *Example, opt SampleOptions) (*Sampled, *tensor.Dense) {
	t.Helper()
	lat, err := m.Encode(ex.Points, ex.Proposal)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := m.NewSession(lat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Generate(sess, nil, opt, mrand.New(mrand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	return s, lat
}
