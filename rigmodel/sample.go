package rigmodel

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/skinning"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/tokenizer"
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
	// MaxJoints bounds the skeleton (0: tokenizer.MaxJoints).
	MaxJoints int
	// StopAtSEP ends the stream after the skeleton (skeleton-only generation).
	StopAtSEP bool
	// Region, when set, masks joint coordinates outside it (MeshRegion: inside the
	// dilated mesh volume), on top of the grammar.
	Region *Region
}

// Stepper is a next-token model with a KV cache: Step appends one token to the
// context and returns the logits (length tokenizer.VocabSize) of the token after it.
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
	if len(prompt) == 0 {
		prompt = []int{tokenizer.BOS}
	}
	g := tokenizer.NewGrammar(opt.MaxJoints)
	st := g.Start()
	out := &Sampled{Prompt: len(prompt)}
	var logits []float32
	var err error
	for i, t := range prompt {
		if err := st.Next(t); err != nil {
			return nil, fmt.Errorf("generate: prompt token %d: %w", i, err)
		}
		if logits, err = m.Step(t); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		out.Tokens = append(out.Tokens, t)
		out.LogProbs = append(out.LogProbs, 0)
	}
	probs := make([]float64, tokenizer.VocabSize)
	var jc jointCursor // the joint being written, for the region mask
	for _, t := range prompt {
		jc.add(t)
	}
	for !st.Done() {
		if opt.StopAtSEP && st.Phase() == tokenizer.PhaseSkin {
			break
		}
		if len(out.Tokens) > tokenizer.MaxStreamLen {
			return nil, errors.New("generate: stream exceeds the grammar's bound (grammar bug)")
		}
		mask := st.Allowed()
		if opt.Region != nil && st.Phase() == tokenizer.PhaseSkeleton {
			opt.Region.restrict(&mask, jc.axis, jc.cur)
		}
		tok, lp := pick(logits, &mask, opt, rng, probs)
		if err := st.Next(tok); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		jc.add(tok)
		out.Tokens = append(out.Tokens, tok)
		out.LogProbs = append(out.LogProbs, lp)
		if st.Done() || (opt.StopAtSEP && tok == tokenizer.SEP) {
			break
		}
		if logits, err = m.Step(tok); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
	}
	return out, nil
}

// jointCursor tracks the joint a stream is writing, for the region mask:
// coordinates come in threes, and structure tokens only come between joints.
type jointCursor struct {
	axis int    // the axis the next coordinate token sets
	cur  [3]int // the joint's coordinate bins so far
}

// add advances the cursor past token tok.
func (c *jointCursor) add(tok int) {
	if tokenizer.IsCoord(tok) {
		c.cur[c.axis] = tok - tokenizer.CoordBase
		c.axis = (c.axis + 1) % 3
	}
}

// pick chooses the next token among the allowed ones and returns it with its
// log-probability under the distribution it was drawn from. probs is scratch space.
func pick(logits []float32, mask *tokenizer.Mask, opt SampleOptions, rng *rand.Rand, probs []float64) (int, float64) {
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
		sorted := append([]int(nil), allowed...)
		sort.Slice(sorted, func(a, b int) bool { return probs[sorted[a]] > probs[sorted[b]] })
		acc := 0.0
		k := 0
		for k < len(sorted) {
			acc += probs[sorted[k]] / sum
			k++
			if acc >= opt.TopP {
				break
			}
		}
		cand = sorted[:k]
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

// ModelRigger rigs meshes with the TokenRig model: it samples token streams, decodes
// each into a rig, scores them with the rewards and keeps the best. A rig that fails
// validity or scores below Floor is replaced by a fallback, and RigInfo says which
// method produced the final rig:
//
//   - "tokenrig": skeleton and skin both from the model's tokens;
//   - "tokenrig-skeleton+geodesic": the model's skeleton with geodesic skinning (the
//     model was trained without skin tokens, or its skin decode failed);
//   - "classical-skeleton+geodesic": no usable model rig (see RigInfo.Fallback).
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
	// GeodesicSkin makes the model write only the skeleton and skins it by geodesic
	// voxel binding (faster than decoding skin tokens on large meshes).
	GeodesicSkin bool
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
	skinMode := r.Skin != nil && r.SkinTokens && !r.GeodesicSkin
	var best *assets.Character
	var bestRep *rewards.Report
	bestScore, bestMethod := math.Inf(-1), ""
	var reasons []string
	tokens, genTime := 0, time.Duration(0)
	for s := 0; s < max(r.Samples, 1); s++ {
		opt := SampleOptions{TopP: r.TopP, MaxJoints: r.Model.Cfg.MaxJoint, StopAtSEP: !skinMode, Region: region}
		if s > 0 {
			opt.Temperature = r.Temperature
			if opt.Temperature <= 0 {
				opt.Temperature = 1
			}
		}
		sess, err := r.Model.NewSession(lat)
		if err != nil {
			return nil, nil, err
		}
		g0 := time.Now()
		smp, err := Generate(sess, nil, opt, rng)
		genTime += time.Since(g0)
		if err != nil {
			return nil, nil, err
		}
		tokens += len(smp.Tokens)
		info.Samples++
		lap("generate")
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
			// same skeleton with geodesic weights and keep the better.
			if alt, err := withGeodesicSkin(cand); err == nil {
				if s2, rep2 := scoreWith(prep, perr, alt); s2 > score {
					cand, method, score, rep = alt, "tokenrig-skeleton+geodesic", s2, rep2
				}
			}
			lap("decode_geodesic")
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
	out, cinfo, err := ClassicalRigger{Skin: GeodesicSkin, SkinName: "geodesic"}.Rig(c)
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

// withGeodesicSkin returns a copy of a rig with geodesic weights for its skeleton.
func withGeodesicSkin(c *assets.Character) (*assets.Character, error) {
	out := *c
	skin, err := GeodesicSkin(&out)
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
func (r *ModelRigger) decode(c *assets.Character, norm assets.Normalization, tokens []int, skinMode bool, lat *tensor.Dense, rng *rand.Rand) (*assets.Character, string, error) {
	skCube, err := tokenizer.DecodeSkeleton(tokens)
	if err != nil {
		return nil, "", err
	}
	if skCube.NumJoints() < 2 {
		return nil, "", errors.New("the skeleton has a single joint")
	}
	out := c.Clone()
	out.Skeleton, out.Skin, out.Animations = tokenizer.SkeletonToWorld(skCube, norm), nil, nil
	if skinMode {
		skelToks, codes, err := tokenizer.Split(tokens)
		if err == nil {
			cube := norm.Apply(&assets.Character{Name: c.Name, Mesh: c.Mesh})
			var skin *assets.Skin
			if skin, err = r.decodeSkin(cube, skCube, lat, skelToks, codes, rng); err == nil {
				out.Skin = skin
				return out, "tokenrig", nil
			}
		}
	}
	skin, err := GeodesicSkin(out)
	if err != nil {
		return nil, "", fmt.Errorf("geodesic skin of the sampled skeleton: %w", err)
	}
	out.Skin = skin
	return out, "tokenrig-skeleton+geodesic", nil
}

// GeodesicSkin is geodesic voxel binding with default options (assets/skinning).
func GeodesicSkin(c *assets.Character) (*assets.Skin, error) {
	return skinning.Geodesic(c, skinning.GeodesicOptions{})
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
	prompt, order, err := tokenizer.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(r.Seed))
	lat, err := r.Model.Encode(SamplePoints(&nm, r.Model.Cfg.Points, rng))
	if err != nil {
		return nil, err
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	smp, err := Generate(sess, prompt, SampleOptions{}, rng) // the first stream is greedy
	if err != nil {
		return nil, err
	}
	_, codes, err := tokenizer.Split(smp.Tokens)
	if err != nil {
		return nil, err
	}
	// The decoder wants the skeleton in token order, in the cube, at its exact joints.
	skTok := reorderSkeleton(tokenizer.SkeletonToCube(c.Skeleton, norm), order)
	cube := norm.Apply(&assets.Character{Name: c.Name, Mesh: c.Mesh})
	skin, err := r.decodeSkin(cube, skTok, lat, prompt, codes, rng)
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
	md, mean := r.Skin.(MeanSkinDecoder)
	if !mean || r.SkinSamples <= 1 || lat == nil {
		return r.Skin.Decode(cube, skCube, codes)
	}
	temp := r.SkinTemperature
	if temp <= 0 {
		temp = 1
	}
	codeSets := [][][]int{codes}
	for s := 1; s < r.SkinSamples; s++ {
		sess, err := r.Model.NewSession(lat)
		if err != nil {
			return nil, err
		}
		smp, err := Generate(sess, prompt, SampleOptions{Temperature: temp, TopP: 0.95}, rng)
		if err != nil {
			return nil, err
		}
		_, cs, err := tokenizer.Split(smp.Tokens)
		if err != nil {
			return nil, err
		}
		codeSets = append(codeSets, cs)
	}
	return md.DecodeMean(cube, skCube, codeSets)
}

// reorderSkeleton returns sk with joints in token order (order[i] is the original
// index of token-order joint i); parents are remapped.
func reorderSkeleton(sk *assets.Skeleton, order tokenizer.Order) *assets.Skeleton {
	inv := order.Inverse()
	out := &assets.Skeleton{}
	for _, j := range order {
		p := sk.Parents[j]
		if p >= 0 {
			p = inv[p]
		}
		out.Names = append(out.Names, sk.Names[j])
		out.Parents = append(out.Parents, p)
		out.BindWorld = append(out.BindWorld, sk.BindWorld[j])
	}
	return out
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
	smp, err := Generate(sess, nil, SampleOptions{MaxJoints: r.Model.Cfg.MaxJoint, StopAtSEP: true, Region: r.region(&nm)}, rng)
	if err != nil {
		return nil, err
	}
	sk, err := tokenizer.DecodeSkeleton(smp.Tokens)
	if err != nil {
		return nil, err
	}
	return tokenizer.SkeletonToWorld(sk, norm), nil
}
