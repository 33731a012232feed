package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// target is one tensor whose analytic gradient g is checked against central
// differences of the loss with respect to x.
type target struct {
	name string
	x, g []float64
}

func randData(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

func randTensor(rng *rand.Rand, shape ...int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return engine.FromSlice(randData(rng, n), shape...)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func paramTargets(m Module[float64]) []target {
	var ts []target
	for _, p := range m.Params() {
		ts = append(ts, target{p.Name, p.w, append([]float64(nil), p.g...)})
	}
	return ts
}

// fdCheck compares gradients with central differences, on at most maxPer entries
// per tensor, by the norm-wise relative error ‖g - fd‖ / (‖g‖ + ‖fd‖).
func fdCheck(t *testing.T, loss func() float64, targets []target, maxPer int) {
	t.Helper()
	const eps = 1e-5
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tg := range targets {
		step := 1
		if len(tg.x) > maxPer {
			step = (len(tg.x) + maxPer - 1) / maxPer
		}
		var d2, n2, a2 float64
		for i := rng.IntN(step); i < len(tg.x); i += step {
			orig := tg.x[i]
			tg.x[i] = orig + eps
			lp := loss()
			tg.x[i] = orig - eps
			lm := loss()
			tg.x[i] = orig
			fd := (lp - lm) / (2 * eps)
			d2 += (fd - tg.g[i]) * (fd - tg.g[i])
			n2 += fd * fd
			a2 += tg.g[i] * tg.g[i]
		}
		diff := math.Sqrt(d2)
		rel := diff / math.Max(math.Sqrt(n2)+math.Sqrt(a2), 1e-300)
		if rel > 1e-6 && diff > 1e-9 {
			t.Errorf("%s: relative gradient error %.3g (‖diff‖ %.3g, ‖fd‖ %.3g)", tg.name, rel, diff, math.Sqrt(n2))
		}
		if n2 == 0 && a2 == 0 {
			t.Logf("%s: gradient is identically zero on the checked entries", tg.name)
		}
	}
}

// layerCase builds a layer and returns the scalar loss Σ out⊙R and a function that
// runs forward and backward once and returns the gradients to check.
type layerCase struct {
	name  string
	build func(rng *rand.Rand) (loss func() float64, grads func() []target)
}

var layerCases = []layerCase{
	{"Linear", func(rng *rand.Rand) (func() float64, func() []target) {
		l := NewLinear[float64]("lin", 5, 6, true, rng)
		x := randTensor(rng, 3, 4, 5)
		r := randData(rng, 3*4*6)
		loss := func() float64 { return dot(engine.Data[float64](l.Forward(x)), r) }
		return loss, func() []target {
			ZeroGrad[float64](l)
			loss()
			dx := l.Backward(engine.FromSlice(r, 3, 4, 6))
			return append(paramTargets(l), target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)})
		}
	}},
	{"LayerNorm", func(rng *rand.Rand) (func() float64, func() []target) {
		l := NewLayerNorm[float64]("ln", 7)
		fillNormal(l.Weight.w, 1, rng)
		fillNormal(l.Bias.w, 1, rng)
		x := randTensor(rng, 5, 7)
		r := randData(rng, 5*7)
		loss := func() float64 { return dot(engine.Data[float64](l.Forward(x)), r) }
		return loss, func() []target {
			ZeroGrad[float64](l)
			loss()
			dx := l.Backward(engine.FromSlice(r, 5, 7))
			return append(paramTargets(l), target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)})
		}
	}},
	{"GELU", func(rng *rand.Rand) (func() float64, func() []target) {
		g := NewGELU[float64]()
		x := randTensor(rng, 4, 9)
		r := randData(rng, 36)
		loss := func() float64 { return dot(engine.Data[float64](g.Forward(x)), r) }
		return loss, func() []target {
			loss()
			dx := g.Backward(engine.FromSlice(r, 4, 9))
			return []target{{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)}}
		}
	}},
	{"MLP", func(rng *rand.Rand) (func() float64, func() []target) {
		m := NewMLP[float64]("mlp", 6, 10, rng)
		x := randTensor(rng, 2, 3, 6)
		r := randData(rng, 36)
		loss := func() float64 { return dot(engine.Data[float64](m.Forward(x)), r) }
		return loss, func() []target {
			ZeroGrad[float64](m)
			loss()
			dx := m.Backward(engine.FromSlice(r, 2, 3, 6))
			return append(paramTargets(m), target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)})
		}
	}},
	{"Embedding", func(rng *rand.Rand) (func() float64, func() []target) {
		e := newEmbedding[float64]("emb", 7, 4, rng)
		ids := []int{0, 3, 3, 6, 1}
		r := randData(rng, 5*4)
		loss := func() float64 { y, _ := e.Forward(ids); return dot(engine.Data[float64](y), r) }
		return loss, func() []target {
			ZeroGrad[float64](e)
			loss()
			e.Backward(engine.FromSlice(r, 5, 4))
			return paramTargets(e)
		}
	}},
	{"SelfAttention causal T>block", func(rng *rand.Rand) (func() float64, func() []target) {
		return attnCase(rng, true, 2, 67)
	}},
	{"SelfAttention full", func(rng *rand.Rand) (func() float64, func() []target) {
		return attnCase(rng, false, 2, 5)
	}},
	{"CrossAttention", func(rng *rand.Rand) (func() float64, func() []target) {
		a := NewCrossAttention[float64]("xattn", 8, 3, 2, rng)
		x, ctx := randTensor(rng, 2, 5, 8), randTensor(rng, 2, 4, 3)
		r := randData(rng, 2*5*8)
		loss := func() float64 { return dot(engine.Data[float64](a.Forward(x, ctx)), r) }
		return loss, func() []target {
			ZeroGrad[float64](a)
			loss()
			dx, dctx := a.Backward(engine.FromSlice(r, 2, 5, 8))
			return append(paramTargets(a),
				target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)},
				target{"ctx", engine.Data[float64](ctx), append([]float64(nil), engine.Data[float64](dctx)...)})
		}
	}},
	{"SoftmaxCrossEntropy masked", func(rng *rand.Rand) (func() float64, func() []target) {
		ce := NewSoftmaxCrossEntropy[float64]()
		logits := randTensor(rng, 2, 3, 5)
		targets := []int{0, 4, -1, 2, 2, 1}
		mask := []float64{1, 1, 0, 0.5, 1, 1}
		loss := func() float64 {
			l, err := ce.Forward(logits, targets, mask)
			if err != nil {
				panic(err)
			}
			return l
		}
		return loss, func() []target {
			loss()
			d := ce.Backward()
			return []target{{"logits", engine.Data[float64](logits), append([]float64(nil), engine.Data[float64](d)...)}}
		}
	}},
	{"Block with cross-attention", func(rng *rand.Rand) (func() float64, func() []target) {
		b := newBlock[float64]("blk", blockConfig{C: 8, Heads: 2, Causal: true, CtxDim: 3}, rng)
		x, ctx := randTensor(rng, 2, 4, 8), randTensor(rng, 2, 3, 3)
		r := randData(rng, 2*4*8)
		loss := func() float64 { return dot(engine.Data[float64](b.Forward(x, ctx)), r) }
		return loss, func() []target {
			ZeroGrad[float64](b)
			loss()
			dx, dctx := b.Backward(engine.FromSlice(r, 2, 4, 8))
			return append(paramTargets(b),
				target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)},
				target{"ctx", engine.Data[float64](ctx), append([]float64(nil), engine.Data[float64](dctx)...)})
		}
	}},
}

func attnCase(rng *rand.Rand, causal bool, B, T int) (func() float64, func() []target) {
	const C = 8
	a := newSelfAttention[float64]("attn", C, 2, causal, rng)
	x := randTensor(rng, B, T, C)
	r := randData(rng, B*T*C)
	loss := func() float64 { return dot(engine.Data[float64](a.Forward(x)), r) }
	return loss, func() []target {
		ZeroGrad[float64](a)
		loss()
		dx := a.Backward(engine.FromSlice(r, B, T, C))
		return append(paramTargets(a), target{"x", engine.Data[float64](x), append([]float64(nil), engine.Data[float64](dx)...)})
	}
}

func TestLayerGradients(t *testing.T) {
	for i, tc := range layerCases {
		t.Run(tc.name, func(t *testing.T) {
			loss, grads := tc.build(rand.New(rand.NewPCG(uint64(i), 17)))
			fdCheck(t, loss, grads(), 150)
		})
	}
}

func TestFSQGradientIsStraightThroughTanh(t *testing.T) {
	q, err := NewFSQ[float64]([]int{8, 5, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	z := randTensor(rng, 6, 4)
	r := randData(rng, 24)
	// The straight-through gradient is the gradient of the unrounded, scaled bound.
	loss := func() float64 {
		var s float64
		for i, v := range engine.Data[float64](z) {
			d := i % 4
			s += r[i] * q.bound(v, d) / float64(q.halfWidth[d])
		}
		return s
	}
	q.Forward(z)
	dz := q.Backward(engine.FromSlice(r, 6, 4))
	fdCheck(t, loss, []target{{"z", engine.Data[float64](z), append([]float64(nil), engine.Data[float64](dz)...)}}, 100)
}

// TestTransformerGradients checks every parameter and the latents of a 2-layer
// transformer with cross-attention under masked cross-entropy.
func TestTransformerGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	cfg := Config{Vocab: 11, DModel: 8, Layers: 2, Heads: 2, MaxSeq: 6, Hidden: 12, CrossAttention: true, LatentDim: 5}
	m, err := NewTransformer[float64](cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	// Non-trivial norm gains and biases, so their gradients are exercised.
	for _, p := range m.Params() {
		if len(p.Shape()) == 1 {
			for i := range p.w {
				p.w[i] += 0.1 * rng.NormFloat64()
			}
		}
	}
	const B, T = 2, 5
	tokens := make([]int, B*T)
	targets := make([]int, B*T)
	mask := make([]float64, B*T)
	for i := range tokens {
		tokens[i], targets[i] = rng.IntN(cfg.Vocab), rng.IntN(cfg.Vocab)
		mask[i] = float64(i % 3 % 2) // some positions masked out
	}
	lat := randTensor(rng, B, 3, cfg.LatentDim)
	ce := NewSoftmaxCrossEntropy[float64]()
	loss := func() float64 {
		logits, err := m.Forward(tokens, B, T, lat)
		if err != nil {
			t.Fatal(err)
		}
		l, err := ce.Forward(logits, targets, mask)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ZeroGrad[float64](m)
	loss()
	dlat, err := m.Backward(ce.Backward())
	if err != nil {
		t.Fatal(err)
	}
	targetsToCheck := append(paramTargets(m), target{"latents", engine.Data[float64](lat), append([]float64(nil), engine.Data[float64](dlat)...)})
	fdCheck(t, loss, targetsToCheck, 200)
}
