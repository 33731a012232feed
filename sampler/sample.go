package sampler

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/tokens"
)

// This file is generation: the grammar-masked sampling loop over any next-token
// model with a KV cache, temperature and nucleus (top-p) sampling.

// SampleOptions controls one generated stream.
type SampleOptions struct {
	// Temperature divides the logits; 0 means greedy (argmax).
	Temperature float64
	// TopP keeps the smallest set of tokens whose probability reaches TopP (0 or 1:
	// all tokens).
	TopP float64
	// MaxJoints bounds the skeleton (0: tokens.MaxJoints).
	MaxJoints int
	// K is the number of skin tokens per joint of the model's streams
	// (rigmodel.Config.K; 0: tokens.DefaultK).
	K int
	// StopAtSEP ends the stream after the skeleton (skeleton-only generation).
	StopAtSEP bool
	// SkinJoints, when positive, ends the stream after the skin codes of its first
	// SkinJoints joints, without EOS: a skin window (skinwindow.go) needs the codes
	// of its owned joints only.
	SkinJoints int
	// Region, when set, masks joint coordinates outside it (MeshRegion: inside the
	// dilated mesh volume), on top of the grammar.
	Region *Region
}

// Sampled is a generated stream with what GRPO needs: the exact token buffer and the
// log-probability of each sampled token under the masked, tempered distribution.
type Sampled struct {
	Tokens []int
	// LogProbs[i] belongs to Tokens[i]; prompt tokens have 0.
	LogProbs []float64
	// Prompt is how many leading tokens were given rather than sampled.
	Prompt int
}

// Generate feeds the prompt (starting with BOS; nil means just BOS) to the model and
// samples until EOS (or SEP with StopAtSEP), masking every step with the grammar so
// that the stream always decodes. It fails only if the model fails or the prompt
// breaks the grammar.
func Generate(m rigmodel.Stepper, prompt []int, opt SampleOptions, rng *rand.Rand) (*Sampled, error) {
	first, logits, err := feedPrompt(m, prompt, opt)
	if err != nil {
		return nil, err
	}
	probs := make([]float64, tokens.VocabSize)
	for {
		tok, done, err := first.next(logits, rng, probs)
		if err != nil || done {
			return first.out, err
		}
		if logits, err = m.Step(tok); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
	}
}

// GenerateN feeds the prompt once, forks the model into len(opts) sequences and
// samples one stream per option in lockstep (one batched step for all of them),
// each masked by its own grammar state, exactly as Generate would sample it alone.
// Reading the prompt once and stepping the streams as one batch is what makes it
// faster than len(opts) calls of Generate. The random stream is consumed row by
// row at each position, so for sampled rows the draws differ from Generate's; one
// option gives exactly Generate's stream, without forking.
func GenerateN(m rigmodel.Forker, prompt []int, opts []SampleOptions, rng *rand.Rand) ([]*Sampled, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	first, logits, err := feedPrompt(m, prompt, opts[0])
	if err != nil {
		return nil, err
	}
	rows := make([]*stream, len(opts))
	for i, opt := range opts {
		if opt.MaxJoints != opts[0].MaxJoints || opt.K != opts[0].K {
			return nil, errors.New("generate: every stream of a batch needs the same MaxJoints and K")
		}
		rows[i] = first.clone(opt)
	}
	var bm rigmodel.BatchStepper
	probs := make([]float64, tokens.VocabSize)
	toks := make([]int, len(rows))
	rowLogits := make([][]float32, len(rows))
	for i := range rowLogits {
		rowLogits[i] = logits
	}
	for {
		active := 0
		for i, r := range rows {
			toks[i] = tokens.PAD // a finished row's input is ignored
			if r.ended() {
				continue
			}
			tok, done, err := r.next(rowLogits[i], rng, probs)
			if err != nil {
				return nil, err
			}
			if !done {
				toks[i] = tok
				active++
			}
		}
		if active == 0 {
			break
		}
		if len(rows) == 1 { // nothing to fork: step m itself
			if rowLogits[0], err = m.Step(toks[0]); err != nil {
				return nil, fmt.Errorf("generate: %w", err)
			}
			continue
		}
		if bm == nil {
			if bm, err = m.Fork(len(rows)); err != nil {
				return nil, fmt.Errorf("generate: %w", err)
			}
		}
		if rowLogits, err = bm.StepBatch(toks); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
	}
	out := make([]*Sampled, len(rows))
	for i, r := range rows {
		out[i] = r.out
	}
	return out, nil
}

// stream is one stream being sampled: its options, its cursor (grammar state and
// joint being written) and its tokens.
type stream struct {
	opt  SampleOptions
	cur  Cursor
	out  *Sampled
	skin int // skin codes written after SEP
}

// ended reports that the stream is complete: EOS, SEP for a skeleton-only one, or
// the last wanted skin code (SkinJoints).
func (s *stream) ended() bool {
	if s.cur.st.Done() || (s.opt.StopAtSEP && s.cur.st.Phase() == tokens.PhaseSkin) {
		return true
	}
	k := s.opt.K
	if k <= 0 {
		k = tokens.DefaultK
	}
	return s.opt.SkinJoints > 0 && s.skin >= s.opt.SkinJoints*k
}

// feedPrompt checks the prompt against the grammar and feeds it to m, a model that
// has read nothing yet: in one pass when m is a Prefiller and the prompt is longer
// than BOS, else token by token. It returns the stream after the prompt and the
// logits of the token after it.
func feedPrompt(m rigmodel.Stepper, prompt []int, opt SampleOptions) (*stream, []float32, error) {
	if len(prompt) == 0 {
		prompt = []int{tokens.BOS}
	}
	s := &stream{opt: opt, cur: *NewCursor(opt.MaxJoints, opt.K, opt.Region), out: &Sampled{Prompt: len(prompt)}}
	for i, t := range prompt {
		if err := s.cur.Next(t); err != nil {
			return nil, nil, fmt.Errorf("generate: prompt token %d: %w", i, err)
		}
	}
	s.out.Tokens = append(s.out.Tokens, prompt...)
	s.out.LogProbs = make([]float64, len(prompt))
	logits, err := readPrompt(m, prompt)
	if err != nil {
		return nil, nil, fmt.Errorf("generate: %w", err)
	}
	return s, logits, nil
}

// readPrompt feeds prompt to m and returns the logits after its last token.
func readPrompt(m rigmodel.Stepper, prompt []int) ([]float32, error) {
	if p, ok := m.(rigmodel.Prefiller); ok && len(prompt) > 1 {
		return p.Prefill(prompt)
	}
	var logits []float32
	var err error
	for _, t := range prompt {
		if logits, err = m.Step(t); err != nil {
			return nil, err
		}
	}
	return logits, nil
}

// clone returns an independent copy of s that samples with opt.
func (s *stream) clone(opt SampleOptions) *stream {
	return &stream{opt: opt, skin: s.skin, cur: Cursor{st: s.cur.st.Clone(), jc: s.cur.jc, region: opt.Region}, out: &Sampled{
		Tokens:   append([]int(nil), s.out.Tokens...),
		LogProbs: append([]float64(nil), s.out.LogProbs...),
		Prompt:   s.out.Prompt,
	}}
}

// next samples the token after the stream from logits, the model's output for its
// last token, and appends it. done reports that the stream has ended (nothing
// sampled when it had already ended); otherwise tok must be fed to the model next.
func (s *stream) next(logits []float32, rng *rand.Rand, probs []float64) (tok int, done bool, err error) {
	if s.ended() {
		return 0, true, nil
	}
	if len(s.out.Tokens) > tokens.MaxStreamLen {
		return 0, false, errors.New("generate: stream exceeds the grammar's bound (grammar bug)")
	}
	mask := s.cur.Allowed()
	tok, lp := pick(logits, &mask, s.opt, rng, probs)
	if err := s.cur.Next(tok); err != nil {
		return 0, false, fmt.Errorf("generate: %w", err)
	}
	s.out.Tokens = append(s.out.Tokens, tok)
	s.out.LogProbs = append(s.out.LogProbs, lp)
	if tok >= tokens.SkinBase && tok < tokens.SkinBase+tokens.SkinCodebookSize {
		s.skin++
	}
	return tok, s.ended(), nil
}

// Cursor follows a stream token by token through its grammar and, while it writes
// the skeleton, through its sampling region: Allowed is the mask the next token is
// drawn under. Generate samples under it, and GRPO replays a sampled stream
// through it so that the gradient is taken under the same masks.
type Cursor struct {
	st     *tokens.State
	jc     jointCursor // the joint being written, for the region mask
	region *Region
}

// NewCursor returns a cursor at the start of a stream of at most maxJoints joints
// with k skin tokens per joint, masked by region (nil: the grammar only).
func NewCursor(maxJoints, k int, region *Region) *Cursor {
	return &Cursor{st: tokens.NewGrammar(maxJoints, k).Start(), region: region}
}

// Next advances the cursor past tok, or fails when the grammar does not allow it.
func (c *Cursor) Next(tok int) error {
	if err := c.st.Next(tok); err != nil {
		return err
	}
	c.jc.add(tok)
	return nil
}

// Allowed is the mask of the tokens that may come next: the grammar's, narrowed to
// the region for joint coordinates.
func (c *Cursor) Allowed() tokens.Mask {
	mask := c.st.Allowed()
	if c.region != nil && c.st.Phase() == tokens.PhaseSkeleton {
		c.region.restrict(&mask, c.jc.axis, c.jc.cur)
	}
	return mask
}

// jointCursor tracks the joint a stream is writing, for the region mask:
// coordinates come in threes, and structure tokens only come between joints.
type jointCursor struct {
	axis int    // the axis the next coordinate token sets
	cur  [3]int // the joint's coordinate bins so far
}

// add advances the cursor past token tok.
func (c *jointCursor) add(tok int) {
	if tokens.IsCoord(tok) {
		c.cur[c.axis] = tok - tokens.CoordBase
		c.axis = (c.axis + 1) % 3
	}
}

// pick chooses the next token among the allowed ones and returns it with its
// log-probability under the distribution it was drawn from. probs is scratch space.
func pick(logits []float32, mask *tokens.Mask, opt SampleOptions, rng *rand.Rand, probs []float64) (int, float64) {
	allowed := mask.Tokens()
	if len(allowed) == 1 {
		return allowed[0], 0
	}
	temp := opt.Temperature
	best := allowed[0]
	for _, t := range allowed {
		if logits[t] > logits[best] || math.IsNaN(float64(logits[best])) {
			best = t
		}
	}
	if temp <= 0 {
		return best, 0
	}
	// Softmax over the allowed tokens at temperature temp.
	mx := float64(logits[best]) / temp
	sum := 0.0
	for _, t := range allowed {
		p := math.Exp(float64(logits[t])/temp - mx)
		if math.IsNaN(p) {
			p = 0
		}
		probs[t] = p
		sum += p
	}
	cand := allowed
	if opt.TopP > 0 && opt.TopP < 1 {
		cand = nucleus(allowed, probs, sum, opt.TopP)
		sum = 0
		for _, t := range cand {
			sum += probs[t]
		}
	}
	if !(sum > 0) {
		return best, 0
	}
	r := rng.Float64() * sum
	choice := cand[len(cand)-1]
	for _, t := range cand {
		r -= probs[t]
		if r <= 0 {
			choice = t
			break
		}
	}
	return choice, math.Log(probs[choice] / sum)
}

// nucleus returns the smallest set of the allowed tokens, most probable first, whose
// probability (probs[t]/sum) reaches topP; ties are ordered by token id. Only the
// tokens above a small fraction of the most probable one are sorted when they
// already hold topP of the mass (the nucleus is then among them); otherwise all are.
func nucleus(allowed []int, probs []float64, sum, topP float64) []int {
	pmax := 0.0
	for _, t := range allowed {
		pmax = max(pmax, probs[t])
	}
	sorted := make([]int, 0, len(allowed))
	for _, cut := range []float64{pmax * 1e-3, math.Inf(-1)} {
		sorted, mass := sorted[:0], 0.0
		for _, t := range allowed {
			if probs[t] >= cut {
				sorted = append(sorted, t)
				mass += probs[t]
			}
		}
		if mass < topP*sum && !math.IsInf(cut, -1) {
			continue
		}
		slices.SortFunc(sorted, func(a, b int) int {
			if c := cmp.Compare(probs[b], probs[a]); c != 0 {
				return c
			}
			return a - b
		})
		acc := 0.0
		for k, t := range sorted {
			acc += probs[t] / sum
			if acc >= topP {
				return sorted[:k+1]
			}
		}
		return sorted
	}
	return allowed // not reached: the second cut keeps every token
}
