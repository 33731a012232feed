package rigmodel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/skinning"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/tokens"
	"gorgonia.org/tensor"
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
	// SkinTokens is K, the skin tokens per joint of the model's streams
	// (Config.SkinTokensPerJoint; 0: tokens.SkinTokensPerJoint).
	SkinTokens int
	// StopAtSEP ends the stream after the skeleton (skeleton-only generation).
	StopAtSEP bool
	// Region, when set, masks joint coordinates outside it (MeshRegion: inside the
	// dilated mesh volume), on top of the grammar.
	Region *Region
}

// Stepper is a next-token model with a KV cache: Step appends one token to the
// context and returns the logits (length tokens.VocabSize) of the token after it.
type Stepper interface {
	Step(tok int) ([]float32, error)
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
func Generate(m Stepper, prompt []int, opt SampleOptions, rng *rand.Rand) (*Sampled, error) {
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

// BatchStepper is a next-token model over several sequences at once: StepBatch
// appends one token to each sequence and returns each one's logits.
type BatchStepper interface {
	StepBatch(toks []int) ([][]float32, error)
}

// Forker is a Stepper that can continue as n sequences from its current position
// (the KV cache copied into each).
type Forker interface {
	Stepper
	Fork(n int) (BatchStepper, error)
}

// GenerateN feeds the prompt once, forks the model into len(opts) sequences and
// samples one stream per option in lockstep (one batched step for all of them),
// each masked by its own grammar state, exactly as Generate would sample it alone.
// Reading the prompt once and stepping the streams as one batch is what makes it
// faster than len(opts) calls of Generate. The random stream is consumed row by
// row at each position, so for sampled rows the draws differ from Generate's; one
// option gives exactly Generate's stream, without forking.
func GenerateN(m Forker, prompt []int, opts []SampleOptions, rng *rand.Rand) ([]*Sampled, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	first, logits, err := feedPrompt(m, prompt, opts[0])
	if err != nil {
		return nil, err
	}
	rows := make([]*stream, len(opts))
	for i, opt := range opts {
		if opt.MaxJoints != opts[0].MaxJoints || opt.SkinTokens != opts[0].SkinTokens {
			return nil, errors.New("generate: every stream of a batch needs the same MaxJoints and SkinTokens")
		}
		rows[i] = first.clone(opt)
	}
	var bm BatchStepper
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

// stream is one stream being sampled: its grammar state, joint cursor and tokens.
type stream struct {
	opt SampleOptions
	st  *tokens.State
	jc  jointCursor // the joint being written, for the region mask
	out *Sampled
}

// ended reports that the stream is complete: EOS, or SEP for a skeleton-only one.
func (s *stream) ended() bool {
	return s.st.Done() || (s.opt.StopAtSEP && s.st.Phase() == tokens.PhaseSkin)
}

// feedPrompt checks the prompt against the grammar and feeds it to m; it returns the
// stream after the prompt and the logits of the token after it.
func feedPrompt(m Stepper, prompt []int, opt SampleOptions) (*stream, []float32, error) {
	if len(prompt) == 0 {
		prompt = []int{tokens.BOS}
	}
	s := &stream{opt: opt, st: tokens.NewGrammar(opt.MaxJoints, opt.SkinTokens).Start(), out: &Sampled{Prompt: len(prompt)}}
	var logits []float32
	var err error
	for i, t := range prompt {
		if err := s.st.Next(t); err != nil {
			return nil, nil, fmt.Errorf("generate: prompt token %d: %w", i, err)
		}
		if logits, err = m.Step(t); err != nil {
			return nil, nil, fmt.Errorf("generate: %w", err)
		}
		s.jc.add(t)
		s.out.Tokens = append(s.out.Tokens, t)
		s.out.LogProbs = append(s.out.LogProbs, 0)
	}
	return s, logits, nil
}

// clone returns an independent copy of s that samples with opt.
func (s *stream) clone(opt SampleOptions) *stream {
	return &stream{opt: opt, st: s.st.Clone(), jc: s.jc, out: &Sampled{
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
	mask := s.st.Allowed()
	if s.opt.Region != nil && s.st.Phase() == tokens.PhaseSkeleton {
		s.opt.Region.restrict(&mask, s.jc.axis, s.jc.cur)
	}
	tok, lp := pick(logits, &mask, s.opt, rng, probs)
	if err := s.st.Next(tok); err != nil {
		return 0, false, fmt.Errorf("generate: %w", err)
	}
	s.jc.add(tok)
	s.out.Tokens = append(s.out.Tokens, tok)
	s.out.LogProbs = append(s.out.LogProbs, lp)
	return tok, s.ended(), nil
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

// ModelRigger rigs meshes with the TokenRig model: it samples token streams, decodes
// each into a rig, scores them with the rewards and keeps the best. A rig that fails
// validity or scores below Floor is replaced by a fallback, and RigInfo says which
// method produced the final rig:
//
//   - "tokenrig": skeleton and skin both from the model's tokens;
//   - "tokenrig-skeleton+geodesic": the model's skeleton with geodesic skinning (the
//     model was trained without skin tokens, its skin decode failed, or
//     SkeletonOnly); "+heat" with Bind set to HeatSkin;
//   - "classical-skeleton+geodesic" ("+heat"): no usable model rig (see
//     RigInfo.Fallback).
type ModelRigger struct {
	Model *Model
	// Skin decodes skin codes into weights; nil (or SkinTokens false) means the
	// model writes only the skeleton.
	Skin SkinDecoder
	// SkinTokens is whether the model was trained on skin tokens (TrainState).
	SkinTokens bool
	// SkinSamples is how many skin-token streams skin-only mode draws for one
	// skeleton (the first greedy, the others at SkinTemperature, top-p 0.95); with
	// more than one, the weights are the mean of their decoded weight fields
	// (MeanSkinDecoder), an estimate of the expected weights under the model. 0 or
	// 1: the greedy stream alone.
	SkinSamples int
	// SkinTemperature is the temperature of the sampled skin streams (0: 1).
	SkinTemperature float64
	// SkeletonOnly makes the model write only the skeleton and skins it with Bind
	// (faster than decoding skin tokens on large meshes).
	SkeletonOnly bool
	// Bind skins skeletons that come without skin tokens: the classical rig, the
	// model's skeleton in skeleton-only mode, and in place of skin tokens that
	// score under the floor. BindName names it in the method ("geodesic", "heat").
	// nil: GeodesicSkin.
	Bind     classical.Skinner
	BindName string
	// Samples is how many streams are drawn; the first is greedy, the others use
	// Temperature and TopP.
	Samples           int
	Temperature, TopP float64
	// Floor is the combined reward score below which the model's rig is replaced.
	Floor float64
	// CompareClassical also builds the classical rig and keeps whichever of the two
	// scores higher (the report says which, with both scores).
	CompareClassical bool
	// InsideJoints masks joint coordinates outside the dilated mesh volume while
	// sampling (MeshRegion), a shape-conditioned constraint on top of the grammar.
	InsideJoints bool
	Seed         int64
}

// region returns the sampling region of a normalized mesh, or nil when
// InsideJoints is off.
func (r *ModelRigger) region(nm *assets.Mesh) *Region {
	if !r.InsideJoints {
		return nil
	}
	return MeshRegion(nm)
}

// SkinDecoder turns skin codes into weights: c is normalized into the cube, sk is
// the skeleton in the cube in token order, codes has one row per joint.
// tokenizer.SkinTokenizer implements it.
type SkinDecoder interface {
	Decode(c *assets.Character, sk *assets.Skeleton, codes [][]int) (*assets.Skin, error)
}

// DefaultSkinSamples is how many skin-token streams `rig skin --method tokens`
// averages (ModelRigger.SkinSamples).
const DefaultSkinSamples = 8

// MeanSkinDecoder is a SkinDecoder that can also decode the mean weight field of
// several code sets for one skeleton (tokenizer.SkinTokenizer does).
type MeanSkinDecoder interface {
	SkinDecoder
	DecodeMean(c *assets.Character, sk *assets.Skeleton, codeSets [][][]int) (*assets.Skin, error)
}

// DefaultFloor is the combined score under which `rig auto` falls back to the
// classical rig. Artists' rigs in ../shared/data score about 0.7-0.8; streams from an
// untrained model score 0.1-0.3 (their sanity reward is 0).
const DefaultFloor = 0.35

// Rig implements Rigger.
func (r *ModelRigger) Rig(c *assets.Character) (*assets.Character, *RigInfo, error) {
	info := &RigInfo{TimingsMS: map[string]float64{}}
	t := time.Now()
	lap := func(stage string) { info.TimingsMS[stage] += ms(time.Since(t)); t = time.Now() }
	nm, norm := NormalizedMesh(&c.Mesh)
	// The region's voxelization runs beside the shape encoding and the scoring
	// preparation (2 cores); "region" times only the wait for it.
	regionCh := make(chan *Region, 1)
	go func() { regionCh <- r.region(&nm) }()
	rng := rand.New(rand.NewSource(r.Seed))
	lat, err := r.Model.Encode(SamplePoints(&nm, r.Model.Cfg.Points, rng))
	if err != nil {
		<-regionCh
		return nil, nil, err
	}
	lap("encode")
	prep, perr := rewards.Prepare(&c.Mesh, rewards.Options{})
	lap("prepare_score")
	region := <-regionCh
	lap("region")
	skinMode := r.Skin != nil && r.SkinTokens && !r.SkeletonOnly
	var best *assets.Character
	var bestRep *rewards.Report
	bestScore, bestMethod := math.Inf(-1), ""
	var reasons []string
	// Every sample is drawn in one batch (the first greedy), then each is decoded
	// and scored.
	opts := make([]SampleOptions, max(r.Samples, 1))
	for s := range opts {
		opts[s] = SampleOptions{TopP: r.TopP, MaxJoints: r.Model.Cfg.MaxJoint, SkinTokens: r.Model.Cfg.SkinTokensPerJoint(), StopAtSEP: !skinMode, Region: region}
		if s > 0 {
			opts[s].Temperature = r.Temperature
			if opts[s].Temperature <= 0 {
				opts[s].Temperature = 1
			}
		}
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		return nil, nil, err
	}
	g0 := time.Now()
	streams, err := GenerateN(sess, nil, opts, rng)
	genTime := time.Since(g0)
	if err != nil {
		return nil, nil, err
	}
	lap("generate")
	tokens := 0
	for s, smp := range streams {
		tokens += len(smp.Tokens)
		info.Samples++
		cand, method, err := r.decode(c, norm, smp.Tokens, skinMode, lat, rng)
		lap("decode")
		if err == nil {
			err = CheckRig(cand)
		}
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("sample %d: %v", s, err))
			info.SampleScores = append(info.SampleScores, 0)
			continue
		}
		score, rep := scoreWith(prep, perr, cand)
		lap("score")
		if method == "tokenrig" && score < r.Floor {
			// The skin tokens may be worse than the skeleton they belong to: try the
			// same skeleton with the binding's weights and keep the better.
			bind, name := r.bind()
			if alt, err := withSkin(cand, bind); err == nil {
				if s2, rep2 := scoreWith(prep, perr, alt); s2 > score {
					cand, method, score, rep = alt, "tokenrig-skeleton+"+name, s2, rep2
				}
			}
			lap("decode_bind")
		}
		info.SampleScores = append(info.SampleScores, score)
		if score > bestScore {
			best, bestRep, bestScore, bestMethod = cand, rep, score, method
			info.Tokens = len(smp.Tokens)
		}
	}
	if genTime > 0 {
		info.TokensPerSecond = float64(tokens) / genTime.Seconds()
	}
	switch {
	case best == nil:
		info.Fallback = "no sampled stream gave a valid rig: " + strings.Join(reasons, "; ")
	case perr == nil && bestScore < r.Floor:
		info.Fallback = fmt.Sprintf("best sample scored %.3f, under the floor %.3f", bestScore, r.Floor)
	case !r.CompareClassical || perr != nil:
		return r.keep(info, best, bestRep, bestMethod)
	}
	t = time.Now()
	bind, name := r.bind()
	out, cinfo, err := ClassicalRigger{Skin: bind, SkinName: name}.Rig(c)
	if err != nil {
		if info.Fallback == "" { // the model's rig passed the floor: keep it
			return r.keep(info, best, bestRep, bestMethod)
		}
		return nil, nil, fmt.Errorf("%s; classical fallback: %w", info.Fallback, err)
	}
	for k, v := range cinfo.TimingsMS {
		info.TimingsMS["classical_"+k] = v
	}
	cscore, crep := scoreWith(prep, perr, out)
	lap("classical_score")
	info.ClassicalScore = &cscore
	if info.Fallback == "" {
		if bestScore >= cscore {
			return r.keep(info, best, bestRep, bestMethod)
		}
		info.Fallback = fmt.Sprintf("the classical rig scored %.3f, the best sample %.3f", cscore, bestScore)
	}
	info.Method = cinfo.Method
	if crep != nil {
		info.Score, info.Rewards = &crep.Score, crep
	}
	return out, info, nil
}

// keep returns the model's best rig with its report.
func (r *ModelRigger) keep(info *RigInfo, best *assets.Character, rep *rewards.Report, method string) (*assets.Character, *RigInfo, error) {
	info.Method = method
	if rep != nil {
		info.Score, info.Rewards = &rep.Score, rep
	}
	return best, info, nil
}

// scoreWith scores a rig on the prepared mesh (0 when the mesh cannot be scored).
func scoreWith(prep *rewards.Prepared, perr error, c *assets.Character) (float64, *rewards.Report) {
	if perr != nil {
		return 0, nil
	}
	rep, err := prep.Score(c, rewards.Options{})
	if err != nil {
		return 0, nil
	}
	return rep.Score, rep
}

// bind returns the skinning method for skeletons without skin tokens and its name.
func (r *ModelRigger) bind() (classical.Skinner, string) {
	if r.Bind == nil {
		return GeodesicSkin, "geodesic"
	}
	return r.Bind, r.BindName
}

// withSkin returns a copy of a rig with the weights bind gives its skeleton.
func withSkin(c *assets.Character, bind classical.Skinner) (*assets.Character, error) {
	out := *c
	skin, err := bind(&out)
	if err != nil {
		return nil, err
	}
	out.Skin = skin
	if err := CheckRig(&out); err != nil {
		return nil, err
	}
	return &out, nil
}

// decode turns one sampled stream into a rig in c's world frame.
// In skin mode the stream's skin codes are decoded (decodeSkin: with SkinSamples > 1,
// averaged with more skin streams drawn after the same skeleton, from lat).
func (r *ModelRigger) decode(c *assets.Character, norm assets.Normalization, stream []int, skinMode bool, lat *tensor.Dense, rng *rand.Rand) (*assets.Character, string, error) {
	skCube, err := tokens.DecodeSkeleton(stream)
	if err != nil {
		return nil, "", err
	}
	if skCube.NumJoints() < 2 {
		return nil, "", errors.New("the skeleton has a single joint")
	}
	out := c.Clone()
	out.Skeleton, out.Skin, out.Animations = tokens.SkeletonToWorld(skCube, norm), nil, nil
	if skinMode {
		skelToks, codes, err := tokens.Split(stream, r.Model.Cfg.SkinTokensPerJoint())
		if err == nil {
			cube := norm.Apply(&assets.Character{Name: c.Name, Mesh: c.Mesh})
			var skin *assets.Skin
			if skin, err = r.decodeSkin(cube, skCube, lat, skelToks, codes, rng); err == nil {
				out.Skin = skin
				return out, "tokenrig", nil
			}
		}
	}
	bind, name := r.bind()
	skin, err := bind(out)
	if err != nil {
		return nil, "", fmt.Errorf("%s skin of the sampled skeleton: %w", name, err)
	}
	out.Skin = skin
	return out, "tokenrig-skeleton+" + name, nil
}

// GeodesicSkin is geodesic voxel binding with default options (assets/skinning).
func GeodesicSkin(c *assets.Character) (*assets.Skin, error) {
	return skinning.Geodesic(c, skinning.GeodesicOptions{})
}

// HeatSkin is heat-diffusion skinning with default options (assets/skinning).
func HeatSkin(c *assets.Character) (*assets.Skin, error) {
	return skinning.Heat(c, skinning.HeatOptions{})
}

// SkinOnly keeps c's skeleton and generates only its skin tokens, with the skeleton
// tokens as the prompt (greedy, or the mean of SkinSamples streams), then decodes
// them. The returned skin refers to c's own joint indices.
func (r *ModelRigger) SkinOnly(c *assets.Character) (*assets.Skin, error) {
	if r.Skin == nil || !r.SkinTokens {
		return nil, errors.New("skin-only mode needs a model trained on skin tokens and a trained skin tokenizer")
	}
	if c.Skeleton == nil {
		return nil, errors.New("skin-only mode: the character has no skeleton")
	}
	nm, norm := NormalizedMesh(&c.Mesh)
	prompt, order, err := tokens.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(r.Seed))
	lat, err := r.Model.Encode(SamplePoints(&nm, r.Model.Cfg.Points, rng))
	if err != nil {
		return nil, err
	}
	codeSets, err := r.skinCodes(lat, prompt, r.skinStreams(), true, rng) // the first stream is greedy
	if err != nil {
		return nil, err
	}
	// The decoder wants the skeleton in token order, in the cube, at its exact joints.
	skTok := tokens.SkeletonToCube(c.Skeleton, norm).Select(order)
	cube := norm.Apply(&assets.Character{Name: c.Name, Mesh: c.Mesh})
	skin, err := r.decodeSets(cube, skTok, codeSets)
	if err != nil {
		return nil, err
	}
	for _, infl := range skin.Weights {
		for i := range infl {
			infl[i].Joint = order[infl[i].Joint]
		}
	}
	return skin, nil
}

// decodeSkin decodes the skin codes of one stream for the skeleton skCube (token
// order, in the cube) on the normalized character cube. With SkinSamples > 1 and a
// MeanSkinDecoder it first draws SkinSamples-1 more skin streams after the same
// skeleton prompt (BOS · skeleton · SEP; temperature SkinTemperature, top-p 0.95) and
// decodes the mean weight field of all of them.
func (r *ModelRigger) decodeSkin(cube *assets.Character, skCube *assets.Skeleton, lat *tensor.Dense, prompt []int, codes [][]int, rng *rand.Rand) (*assets.Skin, error) {
	sets := [][][]int{codes}
	if n := r.skinStreams(); n > 1 && lat != nil {
		extra, err := r.skinCodes(lat, prompt, n-1, false, rng)
		if err != nil {
			return nil, err
		}
		sets = append(sets, extra...)
	}
	return r.decodeSets(cube, skCube, sets)
}

// skinStreams is how many skin-token streams a skeleton gets: SkinSamples when the
// decoder can average several (MeanSkinDecoder), else 1.
func (r *ModelRigger) skinStreams() int {
	if _, mean := r.Skin.(MeanSkinDecoder); mean {
		return max(r.SkinSamples, 1)
	}
	return 1
}

// decodeSets decodes one code set, or the mean weight field of several.
func (r *ModelRigger) decodeSets(cube *assets.Character, skCube *assets.Skeleton, sets [][][]int) (*assets.Skin, error) {
	if len(sets) == 1 {
		return r.Skin.Decode(cube, skCube, sets[0])
	}
	return r.Skin.(MeanSkinDecoder).DecodeMean(cube, skCube, sets)
}

// skinCodes samples n skin-token streams after prompt (BOS · skeleton · SEP) from
// one reading of the prompt, as one batch (GenerateN), and returns each stream's
// codes. With greedy the first stream is greedy; the others are drawn at
// SkinTemperature (0: 1) with top-p 0.95.
func (r *ModelRigger) skinCodes(lat *tensor.Dense, prompt []int, n int, greedy bool, rng *rand.Rand) ([][][]int, error) {
	temp := r.SkinTemperature
	if temp <= 0 {
		temp = 1
	}
	opts := make([]SampleOptions, n)
	for i := range opts {
		opts[i].SkinTokens = r.Model.Cfg.SkinTokensPerJoint()
		if i > 0 || !greedy {
			opts[i].Temperature, opts[i].TopP = temp, 0.95
		}
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	streams, err := GenerateN(sess, prompt, opts, rng)
	if err != nil {
		return nil, err
	}
	sets := make([][][]int, len(streams))
	for i, smp := range streams {
		if _, sets[i], err = tokens.Split(smp.Tokens, r.Model.Cfg.SkinTokensPerJoint()); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// PredictSkeleton returns the model's greedy skeleton for c's mesh, in c's world
// frame (the skeleton task of `rig eval`).
func (r *ModelRigger) PredictSkeleton(c *assets.Character) (*assets.Skeleton, error) {
	nm, norm := NormalizedMesh(&c.Mesh)
	rng := rand.New(rand.NewSource(r.Seed))
	lat, err := r.Model.Encode(SamplePoints(&nm, r.Model.Cfg.Points, rng))
	if err != nil {
		return nil, err
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	smp, err := Generate(sess, nil, SampleOptions{MaxJoints: r.Model.Cfg.MaxJoint, SkinTokens: r.Model.Cfg.SkinTokensPerJoint(), StopAtSEP: true, Region: r.region(&nm)}, rng)
	if err != nil {
		return nil, err
	}
	sk, err := tokens.DecodeSkeleton(smp.Tokens)
	if err != nil {
		return nil, err
	}
	return tokens.SkeletonToWorld(sk, norm), nil
}
