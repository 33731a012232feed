package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/tokens"
)

// This file is GRPO fine-tuning (group relative policy optimization): for a mesh,
// sample a group of streams, score each decoded rig with the rewards, normalize the
// scores within the group into advantages, and take a policy-gradient step on
// exactly the sampled token buffers (never a re-encoding of the decoded rigs).

// Reward is how GRPO judges one sampled stream (higher is better): Score judges
// its skeleton tokens, Skin its skin tokens when the run gives the skin its own
// credit (grpoStepOptions.SkinCredit), Score otherwise.
type Reward struct{ Score, Skin float64 }

// RewardFunc scores one sampled stream for mesh c.
type RewardFunc func(c *character.Character, tokens []int) Reward

// RigReward decodes a stream with the generator's decode path and returns the
// rewards' combined score of the rig and its skin score (SkinScore); a stream
// that does not give a valid rig scores 0.
func RigReward(r *sampler.Generator) RewardFunc {
	return func(c *character.Character, tokens []int) Reward {
		_, norm := rigmodel.NormalizedMesh(&c.Mesh)
		rig, _, err := r.Decode(c, norm, tokens, nil, nil) // exactly the sampled tokens
		if err != nil || sampler.CheckRig(rig) != nil {
			return Reward{}
		}
		rep, err := rewards.Score(rig, rewards.Options{Motion: animation.ClipPoses})
		if err != nil || rep.Score == 0 {
			return Reward{}
		}
		return Reward{Score: rep.Score, Skin: SkinScore(rep.Rewards, rewards.Weights)}
	}
}

// skinJudges are the rewards by which SkinScore judges skin tokens: those that
// measure what the weights do (which joints move each surface sample, unusable
// weights, their spread, the deformation they give), not where the joints are.
var skinJudges = []string{rewards.Coverage, rewards.SkinReward, rewards.Locality, rewards.Deformation}

// SkinScore combines the rewards that judge a skin (coverage, skin, locality,
// deformation) with their weights in weights. The skin tokens of a stream are
// written after its skeleton and cannot move a joint, so the skeleton-only terms
// (symmetry, limbs, sanity, containment) tell them nothing but noise.
func SkinScore(rs, weights map[string]float64) float64 {
	w := make(map[string]float64, len(skinJudges))
	for _, n := range skinJudges {
		w[n] = weights[n]
	}
	return rewards.CombineWith(rs, w)
}

// grpoStepOptions configures a GRPO step.
type grpoStepOptions struct {
	// Propose builds the proposal skeleton of a model that reads one.
	Propose     rigmodel.ProposalFunc
	Group       int     // streams sampled per mesh
	Temperature float64 // sampling temperature (the policy's); 0 means 1
	MaxJoints   int     // 0: the model's bound
	StopAtSEP   bool    // skeleton-only policy
	ScaleByStd  bool    // divide advantages by the group's standard deviation
	// InsideJoints samples joint coordinates inside each mesh's region (MeshRegion),
	// as `rig auto` does; the policy's distribution is then the grammar- and
	// region-masked one, and the gradient is taken under that same mask.
	InsideJoints bool
	// Ref and KL keep the policy near a frozen reference model (usually the
	// checkpoint GRPO started from): KL·KL(π‖π_ref) is added to the loss at every
	// sampled position, the exact KL between the two masked, tempered next-token
	// distributions (both models read the same tokens). Without it the policy
	// drifts wherever the rewards are indifferent (runs without it lose a third
	// of their joints in 100 steps). Ref nil or KL 0: no penalty.
	Ref *rigmodel.Model
	KL  float64
	// SkinCredit takes the skin tokens' advantages from the group's skin scores
	// (Reward.Skin) and the skeleton tokens' from the whole score, instead of the
	// whole score for every token.
	SkinCredit bool
}

// grpoStats reports one step.
type grpoStats struct {
	MeanReward float64
	MaxReward  float64
	Tokens     int // sampled (non-prompt) tokens that carried gradient
	// KL is the mean KL(π‖π_ref) per sampled position (0 without a reference).
	KL float64
}

// grpoStep samples opt.Group streams for each mesh, scores them with reward and
// accumulates the policy gradient of -Σ A_i · log π(stream_i) / (sampled tokens) into
// the model's Grad (call nn.ZeroGrad first, then step the optimizer). π is the
// grammar-masked (and with InsideJoints region-masked), tempered distribution the
// streams were drawn from.
func grpoStep(m *rigmodel.Model, meshes []*character.Character, reward RewardFunc, opt grpoStepOptions, rng *rand.Rand) (grpoStats, error) {
	var st grpoStats
	if opt.Group < 2 {
		return st, errors.New("grpo: a group needs at least 2 samples")
	}
	temp := opt.Temperature
	if temp <= 0 {
		temp = 1
	}
	maxJ := opt.MaxJoints
	if maxJ <= 0 {
		maxJ = m.Cfg.MaxJoint
	}
	n := 0
	for _, c := range meshes {
		nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
		g := sampler.Generator{Model: m, Propose: opt.Propose}
		pts, rows, err := g.Condition(&c.Mesh, &nm, norm, rng)
		if err != nil {
			return st, err
		}
		lat, err := m.Encode(pts, rows)
		if err != nil {
			return st, err
		}
		var region *sampler.Region
		if opt.InsideJoints {
			region = sampler.MeshRegion(&nm)
		}
		// The group is sampled as one batch after a single reading of BOS.
		opts := make([]sampler.SampleOptions, opt.Group)
		for i := range opts {
			opts[i] = sampler.SampleOptions{Temperature: temp, MaxJoints: maxJ, K: m.Cfg.K(), StopAtSEP: opt.StopAtSEP, Region: region}
		}
		sess, err := m.NewSession(lat)
		if err != nil {
			return st, err
		}
		group, err := sampler.GenerateN(sess, nil, opts, rng)
		if err != nil {
			return st, err
		}
		scores, skins := make([]float64, opt.Group), make([]float64, opt.Group)
		for i := range group {
			r := reward(c, group[i].Tokens)
			scores[i], skins[i] = r.Score, r.Skin
			st.MeanReward += scores[i]
			st.MaxReward = math.Max(st.MaxReward, scores[i])
			n++
		}
		adv := advantages{skel: rewards.GroupAdvantages(scores, opt.ScaleByStd)}
		adv.skin = adv.skel
		if opt.SkinCredit {
			adv.skin = rewards.GroupAdvantages(skins, opt.ScaleByStd)
		}
		k, kl, err := policyGradient(m, pts, rows, group, adv, temp, maxJ, region, opt.Ref, opt.KL)
		if err != nil {
			return st, err
		}
		st.Tokens += k
		st.KL += kl / float64(len(meshes))
	}
	if n > 0 {
		st.MeanReward /= float64(n)
	}
	return st, nil
}

// policyGradient runs teacher forcing on the group's own token buffers and
// backpropagates the advantage-weighted log-likelihood of the sampled tokens, under
// the mask they were sampled with (grammar, and region when not nil), plus beta
// times the mean KL to ref's distributions at the sampled positions when ref is
// not nil. It returns the positions that carried the policy gradient and the mean KL.
func policyGradient(m *rigmodel.Model, pts, rows []float32, group []*sampler.Sampled, adv advantages, temp float64, maxJ int, region *sampler.Region, ref *rigmodel.Model, beta float64) (int, float64, error) {
	G := len(group)
	T := 0
	for _, s := range group {
		T = max(T, len(s.Tokens)-1)
	}
	if T < 1 {
		return 0, 0, nil
	}
	withKL := ref != nil && beta > 0
	ids := make([]int, G*T)
	for i, s := range group {
		copy(ids[i*T:], s.Tokens[:len(s.Tokens)-1])
	}
	var all []float32
	props := make([][]float32, G)
	for i := range group {
		all = append(all, pts...)
		props[i] = rows
	}
	logits, err := m.Forward(all, props, ids, G, T, false) // the policy that sampled had no dropout
	if err != nil {
		return 0, 0, fmt.Errorf("grpo: %w", err)
	}
	lg := engine.Data[float32](logits)
	var rl []float32 // the reference's logits on the same tokens
	if withKL {
		rlog, err := ref.Forward(all, props, ids, G, T, false)
		if err != nil {
			return 0, 0, fmt.Errorf("grpo: reference: %w", err)
		}
		rl = engine.Data[float32](rlog)
	}
	V := m.Cfg.Vocab
	dl := make([]float32, len(lg))
	// Count the tokens that were actually sampled (prompt and forced tokens excluded).
	learn, count, klCount, err := learnPositions(m, group, adv, maxJ, region, withKL)
	if err != nil {
		return 0, 0, err
	}
	if count == 0 && (!withKL || klCount == 0) {
		return 0, 0, nil
	}
	klSum := 0.0
	for _, p := range learn {
		s := group[p.i]
		mask := &p.mask
		row := lg[(p.i*T+p.t)*V : (p.i*T+p.t+1)*V]
		drow := dl[(p.i*T+p.t)*V : (p.i*T+p.t+1)*V]
		if p.adv != 0 {
			policyGradRow(row, drow, mask, s.Tokens[p.t+1], -p.adv/temp/float64(count), temp)
		}
		if withKL {
			klSum += addKLGrad(row, rl[(p.i*T+p.t)*V:(p.i*T+p.t+1)*V], mask, temp, beta/float64(klCount), drow)
		}
	}
	if err := m.Backward(engine.FromSlice(dl, G, T, V)); err != nil {
		return 0, 0, fmt.Errorf("grpo: %w", err)
	}
	kl := 0.0
	if klCount > 0 {
		kl = klSum / float64(klCount)
	}
	return count, kl, nil
}

// addKLGrad adds w · dKL(π‖ρ)/d logits to drow, π and ρ being the softmax of row and
// ref at temperature temp over the allowed tokens, and returns KL(π‖ρ).
// dKL/dz_k = π_k (log π_k − log ρ_k − KL) / temp.
func addKLGrad(row, ref []float32, mask *tokens.Mask, temp, w float64, drow []float32) float64 {
	lp, lr := maskedLogSumExp(row, mask, temp), maskedLogSumExp(ref, mask, temp)
	kl := 0.0
	for tok := range row {
		if mask.Has(tok) {
			a := float64(row[tok])/temp - lp
			kl += math.Exp(a) * (a - (float64(ref[tok])/temp - lr))
		}
	}
	for tok := range row {
		if mask.Has(tok) {
			a := float64(row[tok])/temp - lp
			drow[tok] += float32(w * math.Exp(a) * (a - (float64(ref[tok])/temp - lr) - kl) / temp)
		}
	}
	return kl
}

// maskedLogSumExp is log Σ exp(x_k/temp) over the tokens k allowed by mask.
func maskedLogSumExp(x []float32, mask *tokens.Mask, temp float64) float64 {
	mx := math.Inf(-1)
	for tok, v := range x {
		if mask.Has(tok) {
			mx = math.Max(mx, float64(v)/temp)
		}
	}
	sum := 0.0
	for tok, v := range x {
		if mask.Has(tok) {
			sum += math.Exp(float64(v)/temp - mx)
		}
	}
	return mx + math.Log(sum)
}

// learnPos is one sampled position that carries gradient, with its mask and
// its stream's advantage for that position's token.
type learnPos struct {
	i, t int
	mask tokens.Mask
	adv  float64
}

// advantages are a group's advantages per stream: skel for the tokens up to and
// including SEP, skin for the skin tokens after it.
type advantages struct{ skel, skin []float64 }

// learnPositions replays each stream's grammar (and region) and returns the
// positions with more than one allowed token after the prompt, the count of those
// in streams with a non-zero advantage, and the count for the KL term. A token
// outside its mask is an error: the gradient must be taken under the distribution
// the stream was drawn from.
func learnPositions(m *rigmodel.Model, group []*sampler.Sampled, adv advantages, maxJ int, region *sampler.Region, withKL bool) ([]learnPos, int, int, error) {
	var learn []learnPos
	count, klCount := 0, 0
	for i, s := range group {
		cur := sampler.NewCursor(maxJ, m.Cfg.K(), region) // the masks Generate sampled under
		a := adv.skel[i]
		for t := 0; t+1 < len(s.Tokens); t++ {
			if err := cur.Next(s.Tokens[t]); err != nil {
				return nil, 0, 0, fmt.Errorf("grpo: sampled stream breaks the grammar: %w", err)
			}
			if s.Tokens[t] == tokens.SEP {
				a = adv.skin[i]
			}
			if t+1 < s.Prompt || (a == 0 && !withKL) {
				continue
			}
			mask := cur.Allowed()
			if !mask.Has(s.Tokens[t+1]) {
				return nil, 0, 0, fmt.Errorf("grpo: stream %d token %d was sampled outside its mask", i, t+1)
			}
			if mask.Count() > 1 {
				learn = append(learn, learnPos{i, t, mask, a})
				klCount++
				if a != 0 {
					count++
				}
			}
		}
	}
	return learn, count, klCount, nil
}

// policyGradRow writes the gradient of scale·log π(y) into drow:
// d(-A·log π(y))/d logit_k = -A/temp · (1[k=y] - π_k) over allowed k, π the masked
// softmax at temperature temp (scale carries -A/temp and the normalization).
func policyGradRow(row, drow []float32, mask *tokens.Mask, y int, scale, temp float64) {
	lse := maskedLogSumExp(row, mask, temp)
	for tok := range row {
		if !mask.Has(tok) {
			continue
		}
		pk := math.Exp(float64(row[tok])/temp - lse)
		ind := 0.0
		if tok == y {
			ind = 1
		}
		drow[tok] = float32(scale * (ind - pk))
	}
}
