package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// PointEncoderConfig sizes a PointEncoder.
type PointEncoderConfig struct {
	InDim   int // features per input point, e.g. 6 for position + normal
	DModel  int // channels C of the latents
	Latents int // number of learned latent queries N
	Heads   int
	Layers  int // self-attention blocks after the cross-attention
	Hidden  int // MLP width; 0 means 4·DModel
}

// PointEncoder is a Perceiver-style set encoder: N learned latent queries
// cross-attend to a projected point set, then refine each other with
// (non-causal) self-attention blocks.
//
//	h = In(points)                                // (B, P, C)
//	z = Queries                                   // (B, N, C), broadcast over B
//	z = z + Cross(LNQ(z), LNKV(h))
//	z = z + MLP(LNM(z))
//	z = Block_i(z)
//	latents = LNF(z)                              // (B, N, C)
type PointEncoder[F Float] struct {
	Cfg     PointEncoderConfig
	In      *Linear[F]
	Queries *Param[F] // (N, C)
	LNQ     *LayerNorm[F]
	LNKV    *LayerNorm[F]
	Cross   *CrossAttention[F]
	LNM     *LayerNorm[F]
	MLP     *MLP[F]
	Blocks  []*Block[F]
	LNF     *LayerNorm[F]

	eng            engine.Engine
	B, P           int
	z0, z1, z2, dz []F
	dh             []F
}

// NewPointEncoder returns a randomly initialized encoder named name.
func NewPointEncoder[F Float](name string, cfg PointEncoderConfig, rng *rand.Rand) (*PointEncoder[F], error) {
	if cfg.InDim < 1 || cfg.DModel < 1 || cfg.Latents < 1 || cfg.Heads < 1 || cfg.Layers < 0 || cfg.DModel%cfg.Heads != 0 {
		return nil, fmt.Errorf("nn: point encoder config %+v: sizes must be positive and DModel divisible by Heads", cfg)
	}
	c := cfg.DModel
	hidden := cfg.Hidden
	if hidden == 0 {
		hidden = 4 * c
	}
	e := &PointEncoder[F]{
		Cfg:     cfg,
		In:      NewLinear[F](join(name, "in"), cfg.InDim, c, true, rng),
		Queries: NewParam[F](join(name, "queries"), cfg.Latents, c),
		LNQ:     NewLayerNorm[F](join(name, "lnq"), c),
		LNKV:    NewLayerNorm[F](join(name, "lnkv"), c),
		Cross:   NewCrossAttention[F](join(name, "cross"), c, c, cfg.Heads, rng),
		LNM:     NewLayerNorm[F](join(name, "lnm"), c),
		MLP:     NewMLP[F](join(name, "mlp"), c, hidden, rng),
		LNF:     NewLayerNorm[F](join(name, "ln_f"), c),
		eng:     engine.Default(),
	}
	fillNormal(e.Queries.w, 0.02, rng)
	for i := 0; i < cfg.Layers; i++ {
		e.Blocks = append(e.Blocks, NewBlock[F](join(name, fmt.Sprintf("blocks.%d", i)),
			BlockConfig{C: c, Heads: cfg.Heads, Hidden: hidden}, rng))
	}
	return e, nil
}

// Params returns all parameters in a fixed order.
func (e *PointEncoder[F]) Params() []*Param[F] {
	ps := append(e.In.Params(), e.Queries)
	ps = append(ps, e.LNQ.Params()...)
	ps = append(ps, e.LNKV.Params()...)
	ps = append(ps, e.Cross.Params()...)
	ps = append(ps, e.LNM.Params()...)
	ps = append(ps, e.MLP.Params()...)
	for _, b := range e.Blocks {
		ps = append(ps, b.Params()...)
	}
	return append(ps, e.LNF.Params()...)
}

// Forward encodes points (B, P, InDim) to latents (B, N, C), owned by the encoder
// until the next Forward.
func (e *PointEncoder[F]) Forward(points *tensor.Dense) (*tensor.Dense, error) {
	s := points.Shape()
	if len(s) != 3 || s[2] != e.Cfg.InDim || s[0] < 1 || s[1] < 1 {
		return nil, fmt.Errorf("nn: point encoder: points of shape %v, want (B, P, %d)", []int(s), e.Cfg.InDim)
	}
	B, P, N, c := s[0], s[1], e.Cfg.Latents, e.Cfg.DModel
	e.B, e.P = B, P
	h := e.LNKV.forward(e.In.forward(engine.Data[F](points), B*P), B*P) // (B, P, C)
	e.z0 = grow(e.z0, B*N*c)
	for b := 0; b < B; b++ {
		copy(e.z0[b*N*c:], e.Queries.w)
	}
	e.z1 = grow(e.z1, B*N*c)
	a := e.Cross.forward(e.LNQ.forward(e.z0, B*N), h, B, N, P)
	for i := range e.z1 {
		e.z1[i] = e.z0[i] + a[i]
	}
	e.z2 = grow(e.z2, B*N*c)
	m := e.MLP.forward(e.LNM.forward(e.z1, B*N), B*N)
	for i := range e.z2 {
		e.z2[i] = e.z1[i] + m[i]
	}
	z := e.z2
	for _, b := range e.Blocks {
		z = b.forward(z, B, N, nil, 0)
	}
	return engine.FromSlice(e.LNF.forward(z, B*N), B, N, c), nil
}

// Backward takes dlatents (B, N, C), accumulates parameter gradients and returns
// d loss / d points (B, P, InDim).
func (e *PointEncoder[F]) Backward(dlatents *tensor.Dense) (*tensor.Dense, error) {
	B, N, c := e.B, e.Cfg.Latents, e.Cfg.DModel
	s := dlatents.Shape()
	if len(s) != 3 || s[0] != B || s[1] != N || s[2] != c {
		return nil, fmt.Errorf("nn: point encoder: dlatents of shape %v, want (%d, %d, %d)", []int(s), B, N, c)
	}
	d := e.LNF.backward(engine.Data[F](dlatents))
	for i := len(e.Blocks) - 1; i >= 0; i-- {
		d, _ = e.Blocks[i].backward(d)
	}
	e.dz = grow(e.dz, len(d))
	copy(e.dz, d)
	add(e.eng, e.dz, e.LNM.backward(e.MLP.backward(e.dz)))
	dq, dh := e.Cross.backward(e.dz)
	add(e.eng, e.dz, e.LNQ.backward(dq))
	g := e.Queries.g
	for b := 0; b < B; b++ {
		for i, v := range e.dz[b*N*c : (b+1)*N*c] {
			g[i] += v
		}
	}
	dp := e.In.backward(e.LNKV.backward(dh))
	return engine.FromSlice(dp, B, e.P, e.Cfg.InDim), nil
}
