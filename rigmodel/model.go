// Package rigmodel is rigkit's TokenRig network: a shape-conditioned autoregressive
// transformer that writes a character's skeleton tokens and then its skin tokens as
// one stream. It holds the model, its input features, its KV-cached decoding steps
// and its checkpoints; how streams are sampled and how the model is trained live
// in the packages that use it.
package rigmodel

import (
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
	"gorgonia.org/tensor"
)

// The model, top to bottom:
//
//	mesh → normalize to [-1,1]³ → P surface points (xyz, normal)           (B, P, 6)
//	  → Fourier features of xyz, concatenated                               (B, P, 6+6F)
//	  → Linear → point features h                                           (B, P, D)
//	latents z0: L learned vectors, one copy per batch item                  (B, L, D)
//	  z = z0 + CrossAttention(LNq(z0), LNkv(h))   (nn.Perceiver read-out)   (B, L, D)
//	  z = z + MLP(LNm(z))
//	  lat = LNo(z)                                                          (B, L, D)
//	tokens BOS · skeleton · SEP · skin · EOS                                 (B, T)
//	  → nn.Transformer: token + position embeddings, Layers causal blocks,
//	    each cross-attending to memory → logits                             (B, T, V)
//
// Training is teacher forcing: the logits at position t predict token t+1.

// Config sizes the model. It is stored in checkpoints.
type Config struct {
	DModel   int     `json:"d_model"` // channels D of the decoder and the latents
	Layers   int     `json:"layers"`  // decoder blocks
	Heads    int     `json:"heads"`   // attention heads
	Latents  int     `json:"latents"` // L, shape latent tokens
	Points   int     `json:"points"`  // P, surface samples per mesh
	Fourier  int     `json:"fourier"` // F, frequencies of the point position features
	MaxSeq   int     `json:"max_seq"` // longest token stream
	Vocab    int     `json:"vocab"`   // tokens.VocabSize when trained
	Dropout  float64 `json:"dropout"`
	MaxJoint int     `json:"max_joints"` // joint bound while sampling (fits MaxSeq)
	// SkinK is K, the skin tokens per joint of the streams the model writes: the K of
	// the skin tokenizer it was trained with. 0 (checkpoints from before it was
	// stored) means LegacyK.
	SkinK int `json:"skin_tokens_per_joint,omitempty"`
	// Proposal is how many joints of a proposal skeleton (the classical rigger's,
	// see ProposalFunc) the decoder reads beside the shape latents: the model edits
	// a strong first guess instead of writing a skeleton from nothing. 0: none.
	Proposal int `json:"proposal_joints,omitempty"`
}

// LegacyK is the K of every model checkpoint that does not record
// one: the skin tokenizers of that time all wrote 4 codes per joint.
const LegacyK = 4

// K is the number of skin tokens per joint of the model's streams (SkinK, or
// LegacyK when unset).
func (c Config) K() int {
	if c.SkinK <= 0 {
		return LegacyK
	}
	return c.SkinK
}

// LongestStream is the length of the longest stream of MaxJoint joints, which
// MaxSeq must fit: BOS, 3 coordinates + 1 POP per joint, SEP, K skin tokens per
// joint, EOS.
func (c Config) LongestStream() int { return 3 + c.MaxJoint*(4+c.K()) }

// DefaultConfig is the shipped model's size: small enough to train on a 2-core CPU.
var DefaultConfig = Config{DModel: 96, Layers: 4, Heads: 4, Latents: 32, Points: 384, Fourier: 6,
	MaxSeq: 640, Vocab: tokens.VocabSize, MaxJoint: 78}

// Validate checks that the sizes fit together before any tensor is made, so a bad
// flag fails at once rather than after the data is loaded.
func (c Config) Validate() error {
	switch {
	case c.DModel < 1 || c.Layers < 1 || c.Heads < 1 || c.Latents < 1 || c.Points < 1 || c.MaxSeq < 8 || c.Fourier < 0:
		return fmt.Errorf("rigmodel: config %+v: sizes must be positive", c)
	case c.Vocab != tokens.VocabSize:
		return fmt.Errorf("rigmodel: config vocabulary %d, the tokenizer has %d (retrain the model)", c.Vocab, tokens.VocabSize)
	case c.DModel%c.Heads != 0:
		return fmt.Errorf("rigmodel: d_model %d not divisible by %d heads", c.DModel, c.Heads)
	case c.Proposal < 0 || c.Proposal > tokens.MaxJoints:
		return fmt.Errorf("rigmodel: %d proposal joints, want 0..%d", c.Proposal, tokens.MaxJoints)
	case c.SkinK > tokens.MaxK:
		return fmt.Errorf("rigmodel: %d skin tokens per joint, the stream allows at most %d", c.SkinK, tokens.MaxK)
	}
	if need := c.LongestStream(); c.MaxJoint < 1 || need > c.MaxSeq {
		return fmt.Errorf("rigmodel: %d joints need streams of %d tokens, MaxSeq is %d", c.MaxJoint, need, c.MaxSeq)
	}
	return nil
}

// ShapeEncoder is the Perceiver point encoder: L learned latents read a point
// cloud's features through one cross-attention and an MLP (nn.Perceiver, with an
// output norm).
type ShapeEncoder[F nn.Float] struct {
	Cfg  Config
	In   *nn.Linear[F] // 6+6F → D
	Pool *nn.Perceiver[F]

	mu   sync.Mutex // Forward/Backward keep per-call state
	feat []F
	B    int
}

// shapeEncoderNames are the encoder's checkpoint tensor names.
var shapeEncoderNames = nn.PerceiverNames{Queries: "enc.latents", QueryLN: "enc.ln_q", ContextLN: "enc.ln_kv",
	Cross: "enc.cross", MLPLN: "enc.ln_m", MLP: "enc.mlp", OutLN: "enc.ln_o"}

// NewShapeEncoder returns a randomly initialized encoder.
func NewShapeEncoder[F nn.Float](cfg Config, rng *rand.Rand) *ShapeEncoder[F] {
	d := cfg.DModel
	in := nn.NewLinear[F]("enc.in", 6+6*cfg.Fourier, d, true, rng)
	return &ShapeEncoder[F]{Cfg: cfg, In: in, Pool: nn.NewPerceiver[F](nn.PerceiverConfig{
		Tokens: cfg.Latents, C: d, Heads: cfg.Heads, Hidden: 4 * d, OutputNorm: true, Names: shapeEncoderNames}, rng)}
}

// Params lists the encoder's parameters.
func (e *ShapeEncoder[F]) Params() []*nn.Param[F] { return append(e.In.Params(), e.Pool.Params()...) }

// features appends, for each point (x, y, z, nx, ny, nz), sin and cos of 2^k·π·xyz
// for k < F: the network sees fine positions without learning them from scratch.
func features[F nn.Float](points []float32, n, fourier int) []F {
	w := 6 + 6*fourier
	out := make([]F, n*w)
	for i := 0; i < n; i++ {
		p, o := points[i*6:i*6+6], out[i*w:(i+1)*w]
		for j := 0; j < 6; j++ {
			o[j] = F(p[j])
		}
		for k := 0; k < fourier; k++ {
			f := math.Pi * float64(int(1)<<k)
			for a := 0; a < 3; a++ {
				s, c := math.Sincos(f * float64(p[a]))
				o[6+k*6+a], o[6+k*6+3+a] = F(s), F(c)
			}
		}
	}
	return out
}

// Forward encodes B point clouds (B·P·6 floats, as Example.Points) into latents
// (B, L, D), kept for Backward.
func (e *ShapeEncoder[F]) Forward(points []float32, B int) *tensor.Dense {
	e.B = B
	e.feat = features[F](points, B*e.Cfg.Points, e.Cfg.Fourier)
	h := e.In.Forward(engine.FromSlice(e.feat, B, e.Cfg.Points, 6+6*e.Cfg.Fourier)) // (B, P, D)
	return e.Pool.Forward(h, nil)
}

// Backward takes d loss / d latents (B, L, D) and accumulates the encoder's
// parameter gradients.
func (e *ShapeEncoder[F]) Backward(dlat *tensor.Dense) {
	dh, _ := e.Pool.Backward(dlat)
	e.In.Backward(dh)
}

// Model is the whole TokenRig network (float32).
type Model struct {
	Cfg     Config
	Encoder *ShapeEncoder[float32]
	Decoder *nn.Transformer[float32]
	// Proposal embeds the proposal skeleton's joints; nil when Cfg.Proposal is 0.
	Proposal *ProposalEncoder[float32]

	loss *nn.SoftmaxCrossEntropy[float32]
}

// NewModel returns a randomly initialized model.
func NewModel(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	dec, err := nn.NewTransformer[float32](nn.Config{
		Vocab: cfg.Vocab, DModel: cfg.DModel, Layers: cfg.Layers, Heads: cfg.Heads, MaxSeq: cfg.MaxSeq,
		Dropout: cfg.Dropout, CrossAttention: true, LatentDim: cfg.DModel,
	}, rng)
	if err != nil {
		return nil, fmt.Errorf("rigmodel: %w", err)
	}
	m := &Model{Cfg: cfg, Encoder: NewShapeEncoder[float32](cfg, rng), Decoder: dec, loss: nn.NewSoftmaxCrossEntropy[float32]()}
	if cfg.Proposal > 0 {
		m.Proposal = NewProposalEncoder[float32](cfg, rng)
	}
	return m, nil
}

// Params lists every parameter (encoder first, the proposal encoder last, so that a
// model without one warm-starts a model with one), the checkpoint's tensors.
func (m *Model) Params() []*nn.Param[float32] {
	ps := append(m.Encoder.Params(), m.Decoder.Params()...)
	if m.Proposal != nil {
		ps = append(ps, m.Proposal.Params()...)
	}
	return ps
}

// memory runs the encoders on a batch's condition: the shape latents (B, L, D),
// followed by the proposal rows (B, J, D) when the model reads a proposal.
func (m *Model) memory(pts []float32, props [][]float32) (*tensor.Dense, error) {
	B := len(props)
	lat := m.Encoder.Forward(pts, B)
	if m.Proposal == nil {
		return lat, nil
	}
	rows, err := m.Proposal.Forward(props)
	if err != nil {
		return nil, err
	}
	L, J, D := m.Cfg.Latents, m.Cfg.Proposal, m.Cfg.DModel
	mem := concatRows(engine.Data[float32](lat), L, engine.Data[float32](rows), J, B, D)
	return engine.FromSlice(mem, B, L+J, D), nil
}

// memoryBackward routes d loss / d memory to the encoders.
func (m *Model) memoryBackward(dmem *tensor.Dense) {
	if m.Proposal == nil {
		m.Encoder.Backward(dmem)
		return
	}
	B, L, J, D := m.Encoder.B, m.Cfg.Latents, m.Cfg.Proposal, m.Cfg.DModel
	dlat, drows := splitRows(engine.Data[float32](dmem), L, J, B, D)
	m.Encoder.Backward(engine.FromSlice(dlat, B, L, D))
	m.Proposal.Backward(engine.FromSlice(drows, B, J, D))
}

// NumParams counts the scalar parameters.
func (m *Model) NumParams() int { return nn.NumParams[float32](m) }

// Losses are the mean cross-entropies (nats per token) of one batch.
type Losses struct {
	Skeleton, Skin float64 // over skeleton tokens (through SEP) and skin tokens (through EOS)
	SkelTokens     int
	SkinTokens     int
}

// Total is the token-weighted mean over both parts.
func (l Losses) Total() float64 {
	n := l.SkelTokens + l.SkinTokens
	if n == 0 {
		return 0
	}
	return (l.Skeleton*float64(l.SkelTokens) + l.Skin*float64(l.SkinTokens)) / float64(n)
}

// batchInputs lays a batch out as (B, T) input ids, targets and loss weights; T is
// the longest stream minus one, and shorter streams are padded with masked PADs.
// Skin targets get weight 0 when an example has no skin tokens.
func (m *Model) batchInputs(batch []*Example) (ids, targets []int, skel, skin []float32, T int, err error) {
	for _, ex := range batch {
		if len(ex.Tokens) < 2 {
			return nil, nil, nil, nil, 0, fmt.Errorf("rigmodel: example %s has %d tokens", ex.Name, len(ex.Tokens))
		}
		if len(ex.Points) != 6*m.Cfg.Points {
			return nil, nil, nil, nil, 0, fmt.Errorf("rigmodel: example %s has %d point floats, want %d", ex.Name, len(ex.Points), 6*m.Cfg.Points)
		}
		T = max(T, len(ex.Tokens)-1)
	}
	if T > m.Cfg.MaxSeq {
		return nil, nil, nil, nil, 0, fmt.Errorf("rigmodel: stream of %d tokens exceeds MaxSeq %d", T+1, m.Cfg.MaxSeq)
	}
	B := len(batch)
	ids, targets = make([]int, B*T), make([]int, B*T)
	skel, skin = make([]float32, B*T), make([]float32, B*T)
	for b, ex := range batch {
		for t := 0; t < T; t++ {
			i := b*T + t
			if t+1 >= len(ex.Tokens) {
				continue // PAD input, masked target
			}
			ids[i], targets[i] = ex.Tokens[t], ex.Tokens[t+1]
			if t+1 < ex.SkeletonLen {
				skel[i] = 1
			} else if ex.HasSkin {
				skin[i] = 1
			}
		}
	}
	return ids, targets, skel, skin, T, nil
}

// condition concatenates the batch's point clouds and lists its proposals.
func condition(batch []*Example) ([]float32, [][]float32) {
	var pts []float32
	props := make([][]float32, len(batch))
	for b, ex := range batch {
		pts = append(pts, ex.Points...)
		props[b] = ex.Proposal
	}
	return pts, props
}

// Step runs teacher forcing on a batch and returns its losses; with train it also
// accumulates the gradients of skinWeight·skin + skeleton token losses (averaged
// over all learned tokens) into the parameters' Grad (call nn.ZeroGrad first).
func (m *Model) Step(batch []*Example, train bool, skinWeight float64) (Losses, error) {
	return m.StepWeighted(batch, train, LossWeights{Skin: skinWeight})
}

// LossWeights weight the parts of the teacher-forcing loss.
type LossWeights struct {
	Skin float64 // skin-token targets (0 means 1)
	// Struct multiplies the weight of the hierarchy targets POP and SEP (0 means 1).
	// There is one SEP per stream against ~100 coordinate targets, yet it alone
	// decides where the skeleton stops.
	Struct float64
}

// StepWeighted is Step with per-part loss weights.
func (m *Model) StepWeighted(batch []*Example, train bool, lw LossWeights) (Losses, error) {
	skinWeight, structWeight := lw.Skin, lw.Struct
	if skinWeight == 0 {
		skinWeight = 1
	}
	if structWeight == 0 {
		structWeight = 1
	}
	ids, targets, skel, skin, T, err := m.batchInputs(batch)
	if err != nil {
		return Losses{}, err
	}
	B := len(batch)
	pts, props := condition(batch)
	logits, err := m.Forward(pts, props, ids, B, T, train)
	if err != nil {
		return Losses{}, fmt.Errorf("rigmodel: %w", err)
	}
	if !train {
		return partLosses(targets, skel, skin, logitsNLL(engine.Data[float32](logits), m.Cfg.Vocab, targets)), nil
	}
	w := lossWeights(targets, skel, skin, skinWeight, structWeight)
	if _, err := m.loss.Forward(logits, targets, w); err != nil {
		return Losses{}, fmt.Errorf("rigmodel: %w", err)
	}
	// The loss's softmax gives each target's probability: no second pass over the
	// logits for the reported losses.
	ls := partLosses(targets, skel, skin, m.loss.RowNLL)
	if err := m.Backward(m.loss.Backward()); err != nil {
		return ls, fmt.Errorf("rigmodel: %w", err)
	}
	return ls, nil
}

// Forward runs the encoders on B conditions (B·P·6 point floats and B proposals,
// each ProposalRows or nil) and the decoder on ids (B, T) reading them, with
// dropout when train, and returns the logits (B, T, V), kept for Backward. Its
// errors carry no prefix: the caller names the pass.
func (m *Model) Forward(pts []float32, props [][]float32, ids []int, B, T int, train bool) (*tensor.Dense, error) {
	m.Decoder.SetTrain(train)
	mem, err := m.memory(pts, props)
	if err != nil {
		return nil, err
	}
	return m.Decoder.Forward(ids, B, T, mem)
}

// Backward takes d loss / d logits (B, T, V) of the last Forward and accumulates
// the gradients of every parameter, the encoders' included.
func (m *Model) Backward(dlogits *tensor.Dense) error {
	dmem, err := m.Decoder.Backward(dlogits)
	if err != nil {
		return err
	}
	m.memoryBackward(dmem)
	return nil
}

// lossWeights returns the per-target weights of the training loss: skeleton targets
// 1 (POP and SEP structWeight), skin targets skinWeight, padding 0.
func lossWeights(targets []int, skel, skin []float32, skinWeight, structWeight float64) []float32 {
	w := make([]float32, len(skel))
	for i := range w {
		w[i] = skel[i] + float32(skinWeight)*skin[i]
		if skel[i] != 0 && (targets[i] == tokens.POP || targets[i] == tokens.SEP) {
			w[i] *= float32(structWeight)
		}
	}
	return w
}

// partLosses computes the skeleton and skin cross-entropies from the negative
// log-likelihood of each target (nll(i) for row i).
func partLosses(targets []int, skel, skin []float32, nll func(i int) float64) Losses {
	var ls Losses
	for i := range targets {
		if skel[i] == 0 && skin[i] == 0 {
			continue
		}
		if skel[i] != 0 {
			ls.Skeleton += nll(i)
			ls.SkelTokens++
		} else {
			ls.Skin += nll(i)
			ls.SkinTokens++
		}
	}
	if ls.SkelTokens > 0 {
		ls.Skeleton /= float64(ls.SkelTokens)
	}
	if ls.SkinTokens > 0 {
		ls.Skin /= float64(ls.SkinTokens)
	}
	return ls
}

// logitsNLL returns the negative log-likelihood of row i's target under logits
// (N, V), summed in float64.
func logitsNLL(logits []float32, V int, targets []int) func(i int) float64 {
	return func(i int) float64 {
		row := logits[i*V : (i+1)*V]
		return logSumExp(row) - float64(row[targets[i]])
	}
}

func logSumExp(row []float32) float64 {
	mx := row[0]
	for _, v := range row {
		mx = max(mx, v)
	}
	s := 0.0
	for _, v := range row {
		s += math.Exp(float64(v - mx))
	}
	return float64(mx) + math.Log(s)
}

// Encode runs the encoders on one condition for generation: a point cloud (P·6
// floats) and, for a model that reads one, the proposal (ProposalRows; nil reads
// as a skeleton without joints). It is safe for concurrent use.
func (m *Model) Encode(points, proposal []float32) (*tensor.Dense, error) {
	if len(points) != 6*m.Cfg.Points {
		return nil, fmt.Errorf("rigmodel: %d point floats, want %d", len(points), 6*m.Cfg.Points)
	}
	m.Encoder.mu.Lock()
	defer m.Encoder.mu.Unlock()
	if m.Proposal != nil {
		m.Proposal.mu.Lock()
		defer m.Proposal.mu.Unlock()
	}
	mem, err := m.memory(points, [][]float32{proposal})
	if err != nil {
		return nil, err
	}
	// The encoders own their output buffers: copy them out for the caller.
	s := mem.Shape()
	return engine.FromSlice(append([]float32(nil), engine.Data[float32](mem)...), s...), nil
}

// Stepper is a next-token model with a KV cache: Step appends one token to the
// context and returns the logits (length tokens.VocabSize) of the token after it.
type Stepper interface {
	Step(tok int) ([]float32, error)
}

// BatchStepper is a next-token model over several sequences at once: StepBatch
// appends one token to each sequence and returns each one's logits.
type BatchStepper interface {
	StepBatch(toks []int) ([][]float32, error)
}

// Prefiller is a Stepper that can also read a whole prompt in one pass when it has
// read nothing yet, returning the logits after the prompt's last token.
type Prefiller interface {
	Stepper
	Prefill(prompt []int) ([]float32, error)
}

// Forker is a Stepper that can continue as n sequences from its current position
// (the KV cache copied into each).
type Forker interface {
	Stepper
	Fork(n int) (BatchStepper, error)
}

// session is one KV-cached generation: a Stepper over the decoder.
type session struct {
	dec *nn.Decoder[float32]
}

// Step implements Stepper.
func (s *session) Step(tok int) ([]float32, error) {
	l, err := s.dec.Step([]int{tok})
	if err != nil {
		return nil, err
	}
	return engine.Data[float32](l), nil
}

// Prefill implements Prefiller.
func (s *session) Prefill(toks []int) ([]float32, error) {
	l, err := s.dec.Prefill(toks)
	if err != nil {
		return nil, err
	}
	return engine.Data[float32](l), nil
}

// Fork implements Forker: n sequences continuing from this session's position.
func (s *session) Fork(n int) (BatchStepper, error) {
	d, err := s.dec.Fork(n)
	if err != nil {
		return nil, err
	}
	return &batchSession{dec: d}, nil
}

// batchSession is a KV-cached generation of several sequences at once.
type batchSession struct {
	dec *nn.Decoder[float32]
}

// StepBatch implements BatchStepper.
func (s *batchSession) StepBatch(toks []int) ([][]float32, error) {
	l, err := s.dec.Step(toks)
	if err != nil {
		return nil, err
	}
	flat := engine.Data[float32](l)
	v := len(flat) / len(toks)
	rows := make([][]float32, len(toks))
	for i := range rows {
		rows[i] = flat[i*v : (i+1)*v : (i+1)*v]
	}
	return rows, nil
}

// NewSession starts a KV-cached generation conditioned on latents from Encode.
func (m *Model) NewSession(latents *tensor.Dense) (Forker, error) {
	d, err := m.Decoder.NewDecoder(1, latents)
	if err != nil {
		return nil, fmt.Errorf("rigmodel: %w", err)
	}
	return &session{dec: d}, nil
}
