package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// blockConfig sizes a pre-norm transformer block.
type blockConfig struct {
	C, Heads int
	Hidden   int  // MLP width; 0 means 4·C
	Causal   bool // causal self-attention (decoders) or full (encoders)
	CtxDim   int  // channels of the cross-attention context; 0 for no cross-attention
	Dropout  float64
}

// block is a pre-norm transformer block:
//
//	x = x + Attn(LN1(x))          // (B, T, C)
//	x = x + Cross(LNX(x), ctx)    // ctx (B, L, CtxDim), when CtxDim > 0
//	x = x + MLP(LN2(x))
//
// with dropout on each residual branch while training.
type block[F Float] struct {
	Cfg   blockConfig
	LN1   *LayerNorm[F]
	Attn  *selfAttention[F]
	LNX   *LayerNorm[F]      // nil without cross-attention
	Cross *CrossAttention[F] // nil without cross-attention
	LN2   *LayerNorm[F]
	MLP   *MLP[F]
	Drop  [3]*dropout[F] // after Attn, Cross, MLP

	eng engine.Engine
	act blockCache[F]
}

// blockCache is what a Block's Forward keeps for Backward and the buffers both
// reuse.
type blockCache[F Float] struct {
	x1, x2, x3 []F // residual stream after each branch
	dx         []F
	B, T, L    int
}

// newBlock returns a block named name (parameters name.ln1.weight, name.attn.…).
func newBlock[F Float](name string, cfg blockConfig, rng *rand.Rand) *block[F] {
	if cfg.Hidden == 0 {
		cfg.Hidden = 4 * cfg.C
	}
	b := &block[F]{
		Cfg:  cfg,
		LN1:  NewLayerNorm[F](join(name, "ln1"), cfg.C),
		Attn: newSelfAttention[F](join(name, "attn"), cfg.C, cfg.Heads, cfg.Causal, rng),
		LN2:  NewLayerNorm[F](join(name, "ln2"), cfg.C),
		MLP:  NewMLP[F](join(name, "mlp"), cfg.C, cfg.Hidden, rng),
		eng:  engine.Default(),
	}
	if cfg.CtxDim > 0 {
		b.LNX = NewLayerNorm[F](join(name, "lnx"), cfg.C)
		b.Cross = NewCrossAttention[F](join(name, "cross"), cfg.C, cfg.CtxDim, cfg.Heads, rng)
	}
	for i := range b.Drop {
		b.Drop[i] = newDropout[F](cfg.Dropout, rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
	}
	return b
}

// Params returns the block's parameters.
func (b *block[F]) Params() []*Param[F] {
	ps := append(b.LN1.Params(), b.Attn.Params()...)
	if b.Cross != nil {
		ps = append(ps, b.LNX.Params()...)
		ps = append(ps, b.Cross.Params()...)
	}
	ps = append(ps, b.LN2.Params()...)
	return append(ps, b.MLP.Params()...)
}

// SetTrain switches dropout on or off.
func (b *block[F]) SetTrain(train bool) {
	for _, d := range b.Drop {
		d.Train = train
	}
}

// Forward maps x (B, T, C) to (B, T, C), cross-attending to ctx (B, L, CtxDim)
// when the block has cross-attention (ctx is ignored otherwise and may be nil).
func (b *block[F]) Forward(x, ctx *tensor.Dense) *tensor.Dense {
	s := x.Shape()
	if len(s) != 3 || s[2] != b.Cfg.C {
		panic(fmt.Sprintf("nn: Block.Forward: input shape %v, want (B, T, %d)", []int(s), b.Cfg.C))
	}
	var c []F
	L := 0
	if b.Cross != nil {
		cs := ctx.Shape()
		if len(cs) != 3 || cs[0] != s[0] || cs[2] != b.Cfg.CtxDim {
			panic(fmt.Sprintf("nn: Block.Forward: context shape %v, want (%d, L, %d)", []int(cs), s[0], b.Cfg.CtxDim))
		}
		c, L = engine.Data[F](ctx), cs[1]
	}
	return engine.FromSlice(b.forward(engine.Data[F](x), s[0], s[1], c, L), s...)
}

// Backward takes dy (B, T, C) and returns dx (B, T, C) and, with cross-attention,
// dctx (B, L, CtxDim) (else nil).
func (b *block[F]) Backward(dy *tensor.Dense) (dx, dctx *tensor.Dense) {
	d, dc := b.backward(engine.Data[F](dy))
	dx = engine.FromSlice(d, b.act.B, b.act.T, b.Cfg.C)
	if dc != nil {
		dctx = engine.FromSlice(dc, b.act.B, b.act.L, b.Cfg.CtxDim)
	}
	return dx, dctx
}

// forward maps x (B, T, C) with context ctx (B, L, CtxDim) to (B, T, C).
func (b *block[F]) forward(x []F, B, T int, ctx []F, L int) []F {
	n := B * T
	b.act.B, b.act.T, b.act.L = B, T, L
	b.act.x1 = residual(b.eng, b.act.x1, x, b.Drop[0].forward(b.Attn.forward(b.LN1.forward(x, n), B, T)))
	h := b.act.x1
	if b.Cross != nil {
		b.act.x2 = residual(b.eng, b.act.x2, h, b.Drop[1].forward(b.Cross.forward(b.LNX.forward(h, n), ctx, B, T, L)))
		h = b.act.x2
	}
	b.act.x3 = residual(b.eng, b.act.x3, h, b.Drop[2].forward(b.MLP.forward(b.LN2.forward(h, n), n)))
	return b.act.x3
}

// backward takes dy (B, T, C) and returns dx (B, T, C) and, with cross-attention,
// dctx (B, L, CtxDim) in layer-owned buffers.
func (b *block[F]) backward(dy []F) (dx, dctx []F) {
	b.act.dx = grow(b.act.dx, len(dy))
	d := b.act.dx
	copy(d, dy)
	add(b.eng, d, b.LN2.backward(b.MLP.backward(b.Drop[2].backward(d))))
	if b.Cross != nil {
		var dh []F
		dh, dctx = b.Cross.backward(b.Drop[1].backward(d))
		add(b.eng, d, b.LNX.backward(dh))
	}
	add(b.eng, d, b.LN1.backward(b.Attn.backward(b.Drop[0].backward(d))))
	return d, dctx
}

// blockState is a block's decoding state.
type blockState[F Float] struct {
	kv     *kvCache[F]
	cross  *crossCache[F]
	panels *stepPanels[F] // the decoder's packed weights, shared by every block
}

// step runs the block on one new position per sequence, x (B, C), using and
// extending the caches; no dropout, nothing cached for backward.
// e runs the products: a decoding step of one sequence is a chain of products too
// small to split across workers (Decoder.eng).
func (b *block[F]) step(e engine.Engine, x []F, B int, st *blockState[F]) ([]F, error) {
	return b.cached(e, x, B,
		func(h []F) ([]F, error) { return b.Attn.step(e, h, st.kv, st.panels) },
		func(h []F) []F { return b.Cross.step(e, h, st.cross, st.panels) },
		st.panels)
}

// prefill runs the block on the first T positions of a single sequence, x (T, C),
// filling its empty caches as T steps would.
func (b *block[F]) prefill(x []F, T int, st *blockState[F]) ([]F, error) {
	return b.cached(b.eng, x, T,
		func(h []F) ([]F, error) { return b.Attn.prefill(h, T, st.kv) },
		func(h []F) []F { return b.Cross.prefill(h, T, st.cross) },
		nil)
}

// cached is the block over n rows of x whose attention reads and extends the
// caches through self and cross: pre-norm self-attention, cross-attention and MLP,
// each added to the residual stream, on e.
func (b *block[F]) cached(e engine.Engine, x []F, n int, self func(h []F) ([]F, error), cross func(h []F) []F, sp *stepPanels[F]) ([]F, error) {
	c := b.Cfg.C
	h := make([]F, n*c)
	b.LN1.apply(e, x, n, h, nil, nil)
	a, err := self(h)
	if err != nil {
		return nil, err
	}
	x1 := make([]F, n*c)
	for i := range x1 {
		x1[i] = x[i] + a[i]
	}
	if b.Cross != nil {
		b.LNX.apply(e, x1, n, h, nil, nil)
		a = cross(h)
		for i := range x1 {
			x1[i] += a[i]
		}
	}
	b.LN2.apply(e, x1, n, h, nil, nil)
	m := b.MLP.apply(e, h, n, sp)
	for i := range x1 {
		x1[i] += m[i]
	}
	return x1, nil
}
