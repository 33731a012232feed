package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// PerceiverConfig sizes a Perceiver and names its parameters.
type PerceiverConfig struct {
	Tokens int // T, the learned queries and so the output tokens
	C      int // channels of the queries, the context and the output
	Heads  int // cross-attention heads
	Hidden int // width of the residual MLP
	// OutputNorm ends the Perceiver with a LayerNorm on its tokens (Names.OutLN).
	OutputNorm bool
	Names      PerceiverNames
}

// PerceiverNames are the checkpoint names of a Perceiver's parts. The caller picks
// them, so that each model keeps the tensor names its checkpoints were written
// with; a LayerNorm, the CrossAttention and the MLP add their own suffixes
// (".weight", ".q.bias", ".up.weight", ...).
type PerceiverNames struct {
	Queries   string // the (T, C) learned queries
	QueryLN   string // LayerNorm on the queries
	ContextLN string // LayerNorm on the context
	Cross     string // the cross-attention
	MLPLN     string // LayerNorm before the MLP
	MLP       string // the residual MLP
	OutLN     string // the output LayerNorm; unused without OutputNorm
}

// Perceiver pools a set of L context vectors into T tokens: T learned queries,
// plus an optional per-sample bias, read the set through one cross-attention, and
// a residual MLP refines what they read:
//
//	q0 = Queries + bias[b]                      (B, T, C)
//	h  = q0 + Cross(QueryLN(q0), ContextLN(x))  x (B, L, C)
//	y  = h + MLP(MLPLN(h))
//	out = OutLN(y) with OutputNorm, else y      (B, T, C)
//
// It is the shape encoder of the TokenRig model (point features in, shape latents
// out) and the pooling of the skin tokenizer (a bone's points into its K tokens,
// with the bone as the bias; a mesh's points into its condition latents).
type Perceiver[F Float] struct {
	Cfg       PerceiverConfig
	Queries   *Param[F] // (T, C), N(0, 0.5²) at initialization
	QueryLN   *LayerNorm[F]
	ContextLN *LayerNorm[F]
	Cross     *CrossAttention[F]
	MLPLN     *LayerNorm[F]
	MLP       *MLP[F]
	OutLN     *LayerNorm[F] // nil without OutputNorm

	eng engine.Engine
	act perceiverCache[F]
}

// perceiverCache is what a Perceiver's Forward keeps for Backward and the buffers
// both reuse.
type perceiverCache[F Float] struct {
	q0, h, y []F // queries with bias, residual stream after Cross and after MLP
	dq, dc   []F // d queries, d bias
	bias     bool
	B, L     int
}

// NewPerceiver returns a randomly initialized Perceiver. It draws the attention's,
// then the MLP's, then the queries' weights from rng.
func NewPerceiver[F Float](cfg PerceiverConfig, rng *rand.Rand) *Perceiver[F] {
	n := cfg.Names
	p := &Perceiver[F]{
		Cfg:       cfg,
		Queries:   NewParam[F](n.Queries, cfg.Tokens, cfg.C),
		QueryLN:   NewLayerNorm[F](n.QueryLN, cfg.C),
		ContextLN: NewLayerNorm[F](n.ContextLN, cfg.C),
		Cross:     NewCrossAttention[F](n.Cross, cfg.C, cfg.C, cfg.Heads, rng),
		MLPLN:     NewLayerNorm[F](n.MLPLN, cfg.C),
		MLP:       NewMLP[F](n.MLP, cfg.C, cfg.Hidden, rng),
		eng:       engine.Default(),
	}
	if cfg.OutputNorm {
		p.OutLN = NewLayerNorm[F](n.OutLN, cfg.C)
	}
	fillNormal(p.Queries.w, 0.5, rng)
	return p
}

// Params returns the queries, QueryLN, ContextLN, Cross, MLPLN, MLP and OutLN
// parameters, in that order.
func (p *Perceiver[F]) Params() []*Param[F] {
	ps := []*Param[F]{p.Queries}
	ps = append(ps, p.QueryLN.Params()...)
	ps = append(ps, p.ContextLN.Params()...)
	ps = append(ps, p.Cross.Params()...)
	ps = append(ps, p.MLPLN.Params()...)
	ps = append(ps, p.MLP.Params()...)
	if p.OutLN != nil {
		ps = append(ps, p.OutLN.Params()...)
	}
	return ps
}

// Forward pools x (B, L, C) into (B, T, C). bias, (B, C) or nil, is added to every
// query of its batch item.
func (p *Perceiver[F]) Forward(x, bias *tensor.Dense) *tensor.Dense {
	s, c := x.Shape(), p.Cfg.C
	if len(s) != 3 || s[2] != c {
		panic(fmt.Sprintf("nn: Perceiver.Forward: input shape %v, want (B, L, %d)", []int(s), c))
	}
	var b []F
	if bias != nil {
		if bs := bias.Shape(); len(bs) != 2 || bs[0] != s[0] || bs[1] != c {
			panic(fmt.Sprintf("nn: Perceiver.Forward: bias shape %v, want (%d, %d)", []int(bs), s[0], c))
		}
		b = engine.Data[F](bias)
	}
	return engine.FromSlice(p.forward(engine.Data[F](x), s[0], s[1], b), s[0], p.Cfg.Tokens, c)
}

// Backward takes dy (B, T, C) and returns dx (B, L, C) and, when Forward had a
// bias, dbias (B, C) (else nil). dy is not modified.
func (p *Perceiver[F]) Backward(dy *tensor.Dense) (dx, dbias *tensor.Dense) {
	d, db := p.backward(engine.Data[F](dy))
	dx = engine.FromSlice(d, p.act.B, p.act.L, p.Cfg.C)
	if p.act.bias {
		dbias = engine.FromSlice(db, p.act.B, p.Cfg.C)
	}
	return dx, dbias
}

// forward pools x (B, L, C) with bias (B, C) or nil into (B, T, C).
func (p *Perceiver[F]) forward(x []F, B, L int, bias []F) []F {
	T, c := p.Cfg.Tokens, p.Cfg.C
	n := B * T
	p.act.B, p.act.L, p.act.bias = B, L, bias != nil
	p.act.q0 = grow(p.act.q0, n*c)
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			row := p.act.q0[(b*T+t)*c : (b*T+t+1)*c]
			copy(row, p.Queries.w[t*c:(t+1)*c])
			if bias != nil {
				for i := range row {
					row[i] += bias[b*c+i]
				}
			}
		}
	}
	ctx := p.ContextLN.forward(x, B*L)
	a := p.Cross.forward(p.QueryLN.forward(p.act.q0, n), ctx, B, T, L)
	p.act.h = residual(p.eng, p.act.h, p.act.q0, a)
	p.act.y = residual(p.eng, p.act.y, p.act.h, p.MLP.forward(p.MLPLN.forward(p.act.h, n), n))
	if p.OutLN != nil {
		return p.OutLN.forward(p.act.y, n)
	}
	return p.act.y
}

// backward takes dy (B, T, C) and returns dx (B, L, C) and dbias (B, C), both
// layer-owned, accumulating the parameter gradients.
func (p *Perceiver[F]) backward(dy []F) (dx, dbias []F) {
	B, T, c := p.act.B, p.Cfg.Tokens, p.Cfg.C
	if p.OutLN != nil {
		dy = p.OutLN.backward(dy)
	}
	d := grow(p.act.dq, len(dy))
	p.act.dq = d
	copy(d, dy)
	add(p.eng, d, p.MLPLN.backward(p.MLP.backward(d)))
	dh, dctx := p.Cross.backward(d)
	add(p.eng, d, p.QueryLN.backward(dh)) // d is now d q0
	p.act.dc = grow(p.act.dc, B*c)
	clear(p.act.dc)
	g := p.Queries.g
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			row := d[(b*T+t)*c : (b*T+t+1)*c]
			for i, v := range row {
				g[t*c+i] += v
				p.act.dc[b*c+i] += v
			}
		}
	}
	return p.ContextLN.backward(dctx), p.act.dc
}
