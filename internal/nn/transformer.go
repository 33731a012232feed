package nn

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
	"gorgonia.org/tensor"
)

// Config sizes a decoder-only Transformer language model.
type Config struct {
	Vocab   int // number of token ids
	DModel  int // channels C
	Layers  int // number of blocks
	Heads   int // attention heads per block; DModel must divide evenly
	MaxSeq  int // longest sequence (positions embedded)
	Hidden  int // MLP width; 0 means 4·DModel
	Dropout float64
	// CrossAttention adds cross-attention to a latent set (B, L, LatentDim) in
	// every block, e.g. shape latents from rigmodel's ShapeEncoder.
	CrossAttention bool
	LatentDim      int
}

func (c Config) validate() error {
	switch {
	case c.Vocab < 1 || c.DModel < 1 || c.Layers < 0 || c.Heads < 1 || c.MaxSeq < 1:
		return fmt.Errorf("nn: transformer config %+v: sizes must be positive", c)
	case c.DModel%c.Heads != 0:
		return fmt.Errorf("nn: transformer config: d_model %d is not divisible by %d heads", c.DModel, c.Heads)
	case c.CrossAttention && c.LatentDim < 1:
		return errors.New("nn: transformer config: cross-attention needs LatentDim > 0")
	case c.Dropout < 0 || c.Dropout >= 1:
		return fmt.Errorf("nn: transformer config: dropout %v outside [0, 1)", c.Dropout)
	}
	return nil
}

// Transformer is a GPT-style decoder: token and position embeddings, Layers causal
// pre-norm blocks (optionally cross-attending to latents), a final LayerNorm and a
// linear head to logits.
//
//	x = Tok[tokens] + Pos[t]             // (B, T, C)
//	x = Block_i(x, latents)              // latents (B, L, LatentDim)
//	logits = Head(LNF(x))                // (B, T, Vocab)
type Transformer[F Float] struct {
	Cfg    Config
	Tok    *embedding[F] // (Vocab, C)
	Pos    *embedding[F] // (MaxSeq, C)
	Blocks []*block[F]
	LNF    *LayerNorm[F]
	Head   *Linear[F] // C → Vocab, no bias

	eng engine.Engine
	act transformerCache[F]
}

// transformerCache is what a Transformer's Forward keeps for Backward and the
// buffers both reuse.
type transformerCache[F Float] struct {
	B, T, L   int
	x0        []F
	posIDs    []int
	posT      int
	dlatents  []F
	hasLatent bool
}

// NewTransformer returns a randomly initialized model.
func NewTransformer[F Float](cfg Config, rng *rand.Rand) (*Transformer[F], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ctx := 0
	if cfg.CrossAttention {
		ctx = cfg.LatentDim
	}
	m := &Transformer[F]{
		Cfg:  cfg,
		Tok:  newEmbedding[F]("tok_emb", cfg.Vocab, cfg.DModel, rng),
		Pos:  newEmbedding[F]("pos_emb", cfg.MaxSeq, cfg.DModel, rng),
		LNF:  NewLayerNorm[F]("ln_f", cfg.DModel),
		Head: NewLinear[F]("head", cfg.DModel, cfg.Vocab, false, rng),
		eng:  engine.Default(),
	}
	for i := 0; i < cfg.Layers; i++ {
		m.Blocks = append(m.Blocks, newBlock[F](fmt.Sprintf("blocks.%d", i), blockConfig{
			C: cfg.DModel, Heads: cfg.Heads, Hidden: cfg.Hidden, Causal: true, CtxDim: ctx, Dropout: cfg.Dropout,
		}, rng))
	}
	return m, nil
}

// Params returns all parameters in a fixed order.
func (m *Transformer[F]) Params() []*Param[F] {
	ps := append(m.Tok.Params(), m.Pos.Params()...)
	for _, b := range m.Blocks {
		ps = append(ps, b.Params()...)
	}
	ps = append(ps, m.LNF.Params()...)
	return append(ps, m.Head.Params()...)
}

// SetTrain switches dropout on (training) or off (evaluation, sampling).
func (m *Transformer[F]) SetTrain(train bool) {
	for _, b := range m.Blocks {
		b.SetTrain(train)
	}
}

func (m *Transformer[F]) checkLatents(latents *tensor.Dense, batch int) (lat []F, L int, err error) {
	if !m.Cfg.CrossAttention {
		if latents != nil {
			return nil, 0, errors.New("nn: transformer: latents given but the model has no cross-attention")
		}
		return nil, 0, nil
	}
	if latents == nil {
		return nil, 0, errors.New("nn: transformer: the model cross-attends but no latents were given")
	}
	s := latents.Shape()
	if len(s) != 3 || s[0] != batch || s[2] != m.Cfg.LatentDim {
		return nil, 0, fmt.Errorf("nn: transformer: latents of shape %v, want (%d, L, %d)", []int(s), batch, m.Cfg.LatentDim)
	}
	return engine.Data[F](latents), s[1], nil
}

// Forward runs tokens (batch·seqLen ids, row-major (B, T)) with optional latents
// (B, L, LatentDim) and returns logits (B, T, Vocab), owned by the model until the
// next Forward. Position t of the output depends only on tokens 0..t.
func (m *Transformer[F]) Forward(tokens []int, batch, seqLen int, latents *tensor.Dense) (*tensor.Dense, error) {
	if batch < 1 || seqLen < 1 || len(tokens) != batch*seqLen {
		return nil, fmt.Errorf("nn: transformer: %d tokens for batch %d × length %d", len(tokens), batch, seqLen)
	}
	if seqLen > m.Cfg.MaxSeq {
		return nil, fmt.Errorf("nn: transformer: sequence length %d exceeds MaxSeq %d", seqLen, m.Cfg.MaxSeq)
	}
	lat, L, err := m.checkLatents(latents, batch)
	if err != nil {
		return nil, err
	}
	m.act.B, m.act.T, m.act.L, m.act.hasLatent = batch, seqLen, L, lat != nil
	n, c := batch*seqLen, m.Cfg.DModel
	tok, err := m.Tok.forward(tokens)
	if err != nil {
		return nil, fmt.Errorf("nn: transformer: %w", err)
	}
	if len(m.act.posIDs) != n || m.act.posT != seqLen {
		m.act.posT = seqLen
		m.act.posIDs = make([]int, n)
		for i := range m.act.posIDs {
			m.act.posIDs[i] = i % seqLen
		}
	}
	pos, _ := m.Pos.forward(m.act.posIDs)
	m.act.x0 = grow(m.act.x0, n*c)
	for i := range m.act.x0 {
		m.act.x0[i] = tok[i] + pos[i]
	}
	x := m.act.x0
	for _, b := range m.Blocks {
		x = b.forward(x, batch, seqLen, lat, L)
	}
	logits := m.Head.forward(m.LNF.forward(x, n), n)
	return engine.FromSlice(logits, batch, seqLen, m.Cfg.Vocab), nil
}

// Backward takes dlogits (B, T, Vocab) of the last Forward, accumulates parameter
// gradients, and returns d loss / d latents (B, L, LatentDim), or nil when the model
// has no cross-attention.
func (m *Transformer[F]) Backward(dlogits *tensor.Dense) (*tensor.Dense, error) {
	s := dlogits.Shape()
	if len(s) != 3 || s[0] != m.act.B || s[1] != m.act.T || s[2] != m.Cfg.Vocab {
		return nil, fmt.Errorf("nn: transformer: dlogits of shape %v, want (%d, %d, %d)", []int(s), m.act.B, m.act.T, m.Cfg.Vocab)
	}
	d := m.LNF.backward(m.Head.backward(engine.Data[F](dlogits)))
	if m.act.hasLatent {
		m.act.dlatents = grow(m.act.dlatents, m.act.B*m.act.L*m.Cfg.LatentDim)
		clear(m.act.dlatents)
	}
	for i := len(m.Blocks) - 1; i >= 0; i-- {
		var dctx []F
		d, dctx = m.Blocks[i].backward(d)
		if dctx != nil {
			add(m.eng, m.act.dlatents, dctx)
		}
	}
	m.Tok.backward(d)
	m.Pos.backward(d)
	if !m.act.hasLatent {
		return nil, nil
	}
	return engine.FromSlice(m.act.dlatents, m.act.B, m.act.L, m.Cfg.LatentDim), nil
}

// Decoder samples from a Transformer one position at a time, keeping each block's
// keys and values (KV cache) so a step costs O(t) rather than a full forward pass.
type Decoder[F Float] struct {
	m *Transformer[F]
	// eng runs the steps: the model's engine for a batch, its one-worker form for
	// a single sequence, whose products (one row by a 128×384 matrix, a head's
	// keys) cost less than handing half of them to a helper goroutine; the
	// products themselves are the same BLAS calls, so the logits are the same.
	eng engine.Engine
	// headPanels is the output projection's weight packed for
	// fastmath.PanelRows (float32 models): a step's logits, one row of 128 by
	// 128×1,261, cost a quarter of a step as a GEMM, which packs the whole
	// weight on every call; the panels are packed once per decoder.
	headPanels []float32
	batch      int
	pos        int
	states     []blockState[F]
}

// NewDecoder starts decoding batch sequences, cross-attending to latents
// (batch, L, LatentDim) when the model has cross-attention (nil otherwise).
func (m *Transformer[F]) NewDecoder(batch int, latents *tensor.Dense) (*Decoder[F], error) {
	if batch < 1 {
		return nil, fmt.Errorf("nn: decoder: batch %d", batch)
	}
	lat, L, err := m.checkLatents(latents, batch)
	if err != nil {
		return nil, err
	}
	d := &Decoder[F]{m: m, batch: batch, eng: stepEngine(m.eng, batch), headPanels: packHead(m)}
	panels := newStepPanels(m)
	for _, b := range m.Blocks {
		st := blockState[F]{kv: b.Attn.newKVCache(batch, m.Cfg.MaxSeq), panels: panels}
		if b.Cross != nil {
			if st.cross, err = b.Cross.newCrossCache(lat, batch, L); err != nil {
				return nil, err
			}
		}
		d.states = append(d.states, st)
	}
	return d, nil
}

// Fork returns a decoder of n sequences that each continue this one from its
// current position. The n sequences share one copy of the positions decoded so far
// (kvCache's shared prefix) and of the cross-attention keys and values, so that a
// step reads them once for all n. The receiver must decode a single sequence; it
// is left as is and may go on independently. Forking after a shared prompt reads
// the prompt once instead of once per sequence.
func (d *Decoder[F]) Fork(n int) (*Decoder[F], error) {
	if d.batch != 1 {
		return nil, fmt.Errorf("nn: decoder: fork of a batch of %d sequences (want 1)", d.batch)
	}
	if n < 1 {
		return nil, fmt.Errorf("nn: decoder: fork into %d sequences", n)
	}
	f := &Decoder[F]{m: d.m, batch: n, eng: stepEngine(d.m.eng, n), headPanels: d.headPanels, pos: d.pos, states: make([]blockState[F], len(d.states))}
	for i, st := range d.states {
		pk, pv := st.kv.prefix()
		P := st.kv.Len
		f.states[i].panels = st.panels
		f.states[i].kv = &kvCache[F]{B: n, MaxT: st.kv.MaxT, C: st.kv.C, Len: P, P: P, PK: pk, PV: pv,
			K: make([]F, n*(st.kv.MaxT-P)*st.kv.C), V: make([]F, n*(st.kv.MaxT-P)*st.kv.C)}
		if st.cross != nil {
			f.states[i].cross = &crossCache[F]{B: n, L: st.cross.L, KV: st.cross.KV[:st.cross.L*2*d.m.Cfg.DModel], Shared: true}
		}
	}
	return f, nil
}

// Step feeds one token per sequence (batch ids) at the next position and returns
// the logits (batch, Vocab) for the position after it. Dropout is not applied.
func (d *Decoder[F]) Step(tokens []int) (*tensor.Dense, error) {
	B := d.batch
	if len(tokens) != B {
		return nil, fmt.Errorf("nn: decoder: %d tokens for batch %d", len(tokens), B)
	}
	if d.pos >= d.m.Cfg.MaxSeq {
		return nil, fmt.Errorf("nn: decoder: sequence full at MaxSeq %d", d.m.Cfg.MaxSeq)
	}
	x, err := d.embed(tokens, func(int) int { return d.pos })
	if err != nil {
		return nil, err
	}
	for i, b := range d.m.Blocks {
		if x, err = b.step(d.eng, x, B, &d.states[i]); err != nil {
			return nil, fmt.Errorf("nn: decoder: block %d: %w", i, err)
		}
	}
	d.pos++
	return d.head(d.eng, x, B), nil
}

// Prefill feeds a prompt to a fresh decoder of one sequence in a single pass
// (causal attention over the prompt, as the full forward pass computes it) and
// returns the logits (1, Vocab) after its last token; the caches end as
// len(tokens) calls of Step would leave them, up to rounding.
func (d *Decoder[F]) Prefill(tokens []int) (*tensor.Dense, error) {
	T := len(tokens)
	switch {
	case d.batch != 1 || d.pos != 0:
		return nil, fmt.Errorf("nn: decoder: prefill of %d sequences at position %d (want one, fresh)", d.batch, d.pos)
	case T < 1 || T > d.m.Cfg.MaxSeq:
		return nil, fmt.Errorf("nn: decoder: prefill of %d tokens (MaxSeq %d)", T, d.m.Cfg.MaxSeq)
	}
	x, err := d.embed(tokens, func(t int) int { return t })
	if err != nil {
		return nil, err
	}
	for i, b := range d.m.Blocks {
		if x, err = b.prefill(x, T, &d.states[i]); err != nil {
			return nil, fmt.Errorf("nn: decoder: block %d: %w", i, err)
		}
	}
	d.pos = T
	return d.head(d.m.eng, x[(T-1)*d.m.Cfg.DModel:], 1), nil
}

// embed returns the token plus position embeddings of tokens, the i-th at
// position pos(i).
func (d *Decoder[F]) embed(tokens []int, pos func(i int) int) ([]F, error) {
	m, c := d.m, d.m.Cfg.DModel
	x := make([]F, len(tokens)*c)
	for i, id := range tokens {
		if id < 0 || id >= m.Cfg.Vocab {
			return nil, fmt.Errorf("nn: decoder: token %d at %d outside [0, %d)", id, i, m.Cfg.Vocab)
		}
		row, p := m.Tok.Weight.w[id*c:(id+1)*c], pos(i)
		at := m.Pos.Weight.w[p*c : (p+1)*c]
		for j := range row {
			x[i*c+j] = row[j] + at[j]
		}
	}
	return x, nil
}

// head applies the final layer norm and the output projection to n rows of x on e.
func (d *Decoder[F]) head(e engine.Engine, x []F, n int) *tensor.Dense {
	m := d.m
	h := make([]F, n*m.Cfg.DModel)
	m.LNF.apply(e, x, n, h, nil, nil)
	logits := make([]F, n*m.Cfg.Vocab)
	if d.headPanels != nil {
		fastmath.PanelRows(any(h).([]float32), n, m.Cfg.DModel, d.headPanels, m.Cfg.Vocab, any(logits).([]float32))
		return engine.FromSlice(logits, n, m.Cfg.Vocab)
	}
	m.Head.apply(e, h, n, logits)
	return engine.FromSlice(logits, n, m.Cfg.Vocab)
}

// stepEngine is the engine that steps a batch of sequences: e's one-worker form
// for a single sequence, e itself otherwise.
func stepEngine(e engine.Engine, batch int) engine.Engine {
	if batch == 1 {
		return e.Serial()
	}
	return e
}

// packHead packs m's output projection for fastmath.PanelRows, or returns nil for
// a float64 model or a head with a bias.
func packHead[F Float](m *Transformer[F]) []float32 {
	w, ok := any(m.Head.Weight.w).([]float32)
	if !ok || m.Head.Bias != nil {
		return nil
	}
	return fastmath.PackPanels(w, m.Cfg.Vocab, m.Cfg.DModel)
}
