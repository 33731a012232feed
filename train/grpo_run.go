package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
)

// This file is `rig grpo`: GRPO fine-tuning of a trained checkpoint on meshes, with
// resumable checkpoints, a progress bar and a JSON-lines log.

// GRPOOptions configures GRPO. The fields that name the run stay at the top;
// the rest come in groups: Data (the meshes), Schedule (steps and their size),
// Policy (how streams are sampled and scored and what the loss adds), Checkpoints
// and Report.
type GRPOOptions struct {
	// Init is the checkpoint to fine-tune; Out is where the fine-tuned one goes
	// (siblings: .log.jsonl, .best.safetensors).
	Init, Out string
	// Model and State, when set, are the starting point instead of the file Init
	// (which then only names it), e.g. the embedded shipped model.
	Model *rigmodel.Model
	State *rigmodel.TrainState
	// Resume continues the run whose checkpoint is at Out.
	Resume      bool
	Seed        int64
	Data        GRPOData
	Schedule    GRPOSchedule
	Policy      GRPOPolicy
	Checkpoints GRPOCheckpoints
	Report      GRPOReport
}

// GRPOData is the meshes GRPO trains on: which files, and which of them are
// skipped.
type GRPOData struct {
	// Inputs are folders, files or manifests of meshes (rigs in them are ignored).
	Inputs []string
	// AllFiles also uses files of the held-out families (dataset.Split); by default they
	// are left out, so that `rig eval` on the held-out split stays honest.
	AllFiles bool
	// MaxVertices skips meshes with more vertices (0: 20,000): every sample is
	// decoded and scored on the whole mesh.
	MaxVertices int
	// Load reads a mesh file (assets.Load in the binary).
	Load func(string) (*character.Character, error)
}

// GRPOSchedule is the size and length of the run: Steps GRPO steps, each on Meshes
// meshes (0: 1) with Group streams per mesh (0: 2, the least that has an
// advantage), at learning rate LR (0: 1e-5) after a five-step warm-up.
type GRPOSchedule struct {
	Steps, Meshes, Group int
	LR                   float64
}

// GRPOPolicy is how the policy samples its streams, how their rigs are scored, and
// what the loss adds to the advantage-weighted log-likelihood.
type GRPOPolicy struct {
	// Temperature of the sampling policy (0: 1) and TopP is not used: GRPO needs the
	// exact distribution the streams were drawn from.
	Temperature float64
	// ScaleByStd divides the advantages by the group's standard deviation.
	ScaleByStd bool
	// InsideJoints samples (and trains) under the mesh-region mask of `rig auto`
	// (grpoStepOptions.InsideJoints).
	InsideJoints bool
	// KL is the weight of the KL penalty to the starting model (grpoStepOptions.KL), 0
	// for none; Ref is that model, a separate frozen copy (nil: loaded from Init).
	KL  float64
	Ref *rigmodel.Model
	// Propose builds the proposal skeletons of a model that reads one.
	Propose rigmodel.ProposalFunc
	// Skin, when non-nil and the checkpoint writes skin tokens, makes the policy
	// write whole streams whose skins are decoded by it; otherwise the policy writes
	// skeletons only and rigs are skinned by geodesic voxel binding for scoring.
	Skin sampler.SkinDecoder
	// SkinFor returns the skin decoder matching a checkpoint's state (nil: none).
	SkinFor func(*rigmodel.TrainState) sampler.SkinDecoder
	// Reward names the combination of the rewards the run optimizes
	// (rewards.WeightsFor: "" today's combined score, a reward version such as
	// "v3", or "name=w,..."), so that the rewards of one version can be tested
	// against another's by what training on them does. A resumed run keeps it.
	Reward string
	// SkinCredit judges the skin tokens by SkinScore and the skeleton tokens by
	// the whole score (grpoStepOptions.SkinCredit). A resumed run keeps it.
	SkinCredit bool
	// Name, when set, renames each decoded rig before it is scored, as `rig auto`
	// names its model candidates (autorig.RigNamer), so that the clip poses of the
	// rewards play on it; joints do not move and the training tokens stay the
	// sampled ones. A rig it fails on scores as decoded.
	Name func(c, rig *character.Character) (*character.Character, error)
}

// GRPOCheckpoints says when the run saves: every SaveEvery steps (0: 10) and after
// SaveMinutes minutes.
type GRPOCheckpoints struct {
	SaveEvery   int
	SaveMinutes float64
}

// GRPOReport is where a run reports what it does; nil writers get nothing.
type GRPOReport struct {
	Progress io.Writer // progress bar
	Log      io.Writer // one line per step
}

// grpoLogRow is one line of the GRPO log (JSON lines beside the checkpoint).
type grpoLogRow struct {
	Step       int     `json:"step"`
	MeanReward float64 `json:"mean_reward"`
	MaxReward  float64 `json:"max_reward"`
	Tokens     int     `json:"tokens"` // sampled tokens that carried gradient
	Meshes     int     `json:"meshes"`
	LR         float64 `json:"lr"`
	WallS      float64 `json:"wall_s"`
	KL         float64 `json:"kl,omitempty"` // mean KL to the starting model per sampled position
}

// GRPO fine-tunes a checkpoint with GRPO: each step draws Meshes meshes, samples
// Group streams per mesh from the current policy, scores each decoded rig with
// RigReward (the rewards' combined score; 0 for an invalid rig), and updates the
// model on exactly the sampled token buffers (grpoStep) with AdamW. The
// checkpoint at Out is written every SaveEvery steps and at the end; with Resume it
// continues from Out. It returns the final state.
func GRPO(opt GRPOOptions) (*rigmodel.TrainState, error) {
	if opt.Data.Load == nil || opt.Out == "" || opt.Schedule.Steps < 1 {
		return nil, errors.New("grpo: Data.Load, Out and Schedule.Steps are required")
	}
	opt = opt.withDefaults()
	from, m, state, err := grpoStart(opt)
	if err != nil {
		return nil, err
	}
	g := state.GRPO
	if g.Step >= opt.Schedule.Steps {
		logf(opt.Report.Log, "grpo: %s is already at step %d of %d", from, g.Step, opt.Schedule.Steps)
		return state, nil
	}
	var skin sampler.SkinDecoder
	if opt.Policy.Skin != nil {
		skin = opt.Policy.Skin
	} else if opt.Policy.SkinFor != nil {
		skin = opt.Policy.SkinFor(state)
	}
	skeletonOnly := skin == nil || !state.SkinTokens
	g.Group, g.Meshes, g.Skeleton, g.Inside, g.KL = opt.Schedule.Group, opt.Schedule.Meshes, skeletonOnly, opt.Policy.InsideJoints, opt.Policy.KL
	weights, err := grpoRewardWeights(g, opt.Policy.Reward)
	if err != nil {
		return nil, err
	}
	if g.Step > 0 && g.SkinCredit != opt.Policy.SkinCredit {
		return nil, fmt.Errorf("grpo: resume: the run's skin credit was %v, not %v", g.SkinCredit, opt.Policy.SkinCredit)
	}
	g.SkinCredit = opt.Policy.SkinCredit
	ref := opt.Policy.Ref
	if opt.Policy.KL > 0 && ref == nil {
		if ref, _, err = rigmodel.LoadCheckpointFile(opt.Init); err != nil {
			return nil, fmt.Errorf("grpo: KL reference: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(opt.Out), 0o755); err != nil {
		return nil, fmt.Errorf("grpo: %w", err)
	}
	meshes, skipped, err := loadMeshes(opt)
	if err != nil {
		return nil, err
	}
	if len(meshes) == 0 {
		return nil, fmt.Errorf("grpo: no usable meshes in %v (%d skipped)", opt.Data.Inputs, skipped)
	}
	g.Files = len(meshes)
	logf(opt.Report.Log, "grpo: %s from %s at step %d: %d meshes (%d skipped), %d per step, group %d, %s policy, reward %s",
		opt.Out, from, g.Step, len(meshes), skipped, opt.Schedule.Meshes, opt.Schedule.Group, map[bool]string{true: "skeleton-only", false: "skeleton+skin"}[skeletonOnly], rewardName(g.Reward))

	mode := sampler.SkinFromBind
	if state.SkinTokens && !skeletonOnly {
		mode = sampler.SkinFromTokens
	}
	loop := &grpoLoop{opt: opt, state: state, m: m, meshes: meshes,
		reward: cachedRigReward(&sampler.Generator{Model: m, Skin: skin, SkinMode: mode}, weights, opt.Policy.Name),
		gopt: grpoStepOptions{Propose: opt.Policy.Propose, Group: opt.Schedule.Group, Temperature: opt.Policy.Temperature,
			StopAtSEP: skeletonOnly, ScaleByStd: opt.Policy.ScaleByStd, InsideJoints: opt.Policy.InsideJoints, Ref: ref, KL: opt.Policy.KL,
			SkinCredit: opt.Policy.SkinCredit},
		adam:  nn.NewAdamW[float32](opt.Schedule.LR),
		rng:   rand.New(rand.NewSource(opt.Seed + int64(g.Step)*7919)),
		pick:  rand.New(rand.NewSource(opt.Seed + int64(g.Step)*7919 + 1)),
		clock: runClock{start: time.Now(), lastSave: time.Now(), wall0: g.WallS, startStep: g.Step}}
	loop.adam.WeightDecay = 0
	if from == opt.Out && g.Step > 0 {
		if err := loop.restoreOptimizer(); err != nil {
			return state, err
		}
	}
	loop.bar = progress.New(opt.Report.Progress, fmt.Sprintf("grpo (from step %d)", loop.clock.startStep), opt.Schedule.Steps-loop.clock.startStep)
	for g.Step < opt.Schedule.Steps {
		if err := loop.step(); err != nil {
			return state, err
		}
	}
	loop.bar.Finish()
	return state, nil
}

// withDefaults fills the zero options with the defaults GRPO documents.
func (opt GRPOOptions) withDefaults() GRPOOptions {
	opt.Schedule.Group = max(opt.Schedule.Group, 2)
	opt.Schedule.Meshes = max(opt.Schedule.Meshes, 1)
	if opt.Schedule.LR <= 0 {
		opt.Schedule.LR = 1e-5
	}
	if opt.Policy.Temperature <= 0 {
		opt.Policy.Temperature = 1
	}
	if opt.Checkpoints.SaveEvery <= 0 {
		opt.Checkpoints.SaveEvery = 10
	}
	if opt.Data.MaxVertices <= 0 {
		opt.Data.MaxVertices = 20000
	}
	return opt
}

// grpoStart returns the checkpoint the run starts from (Out when resuming), the
// model and its state, with a fresh GRPO state unless it continues one.
func grpoStart(opt GRPOOptions) (string, *rigmodel.Model, *rigmodel.TrainState, error) {
	from := opt.Init
	if opt.Resume {
		if _, err := os.Stat(opt.Out); err == nil {
			from = opt.Out
		}
	}
	var m *rigmodel.Model
	var state *rigmodel.TrainState
	var err error
	switch {
	case from != opt.Out && opt.Model != nil && opt.State != nil:
		m, state = opt.Model, opt.State
		cp := *state
		state = &cp
		state.GRPO = nil
	case from == "":
		return "", nil, nil, errors.New("grpo: no checkpoint to start from (give Init)")
	default:
		if m, state, err = rigmodel.LoadCheckpointFile(from); err != nil {
			return "", nil, nil, fmt.Errorf("grpo: %w", err)
		}
	}
	if state.GRPO == nil || from != opt.Out {
		state.GRPO = &rigmodel.GRPOState{Init: opt.Init, BestReward: -1} // rewards lie in [0, 1]
	}
	return from, m, state, nil
}

// grpoLoop is the state of GRPO's loop.
type grpoLoop struct {
	opt    GRPOOptions
	state  *rigmodel.TrainState
	m      *rigmodel.Model
	meshes []*character.Character
	reward RewardFunc
	gopt   grpoStepOptions
	adam   *nn.AdamW[float32]
	rng    *rand.Rand // sampling
	// pick draws the meshes of each step apart from the sampling, so that runs
	// with the same seed and different rewards train on the same meshes in the
	// same order.
	pick   *rand.Rand
	bar    *progress.Bar
	clock  runClock
	window []float64 // the last 10 steps' mean rewards
}

// step takes one GRPO step on opt.Schedule.Meshes random meshes, logs it, keeps the best
// 10-step window's checkpoint and saves when due.
func (l *grpoLoop) step() error {
	opt, state, g, m := l.opt, l.state, l.state.GRPO, l.m
	pick := make([]*character.Character, opt.Schedule.Meshes)
	for i := range pick {
		pick[i] = l.meshes[l.pick.Intn(len(l.meshes))]
	}
	nn.ZeroGrad[float32](m)
	st, err := grpoStep(m, pick, l.reward, l.gopt, l.rng)
	if err != nil {
		return fmt.Errorf("grpo: step %d: %w", g.Step, err)
	}
	// A short warm-up: Adam's first steps are large relative to the gradient.
	l.adam.LR = opt.Schedule.LR * math.Min(1, float64(g.Step+1)/5)
	nn.ClipGradNorm(m.Params(), 1)
	if st.Tokens > 0 {
		l.adam.Step(m.Params())
	}
	g.Step++
	row := grpoLogRow{Step: g.Step, MeanReward: st.MeanReward, MaxReward: st.MaxReward, Tokens: st.Tokens,
		Meshes: opt.Schedule.Meshes, LR: l.adam.LR, WallS: l.clock.wall(), KL: st.KL}
	if err := appendJSONLine(sibling(opt.Out, ".log.jsonl"), row); err != nil {
		return fmt.Errorf("grpo: %w", err)
	}
	l.bar.Set(g.Step-l.clock.startStep, fmt.Sprintf("reward %.3f (max %.3f)", st.MeanReward, st.MaxReward))
	l.window = append(l.window, st.MeanReward)
	if len(l.window) > 10 {
		l.window = l.window[1:]
	}
	if len(l.window) == 10 {
		if mean := meanOf(l.window); mean > g.BestReward {
			g.BestReward, g.BestStep = mean, g.Step
			g.WallS = l.clock.wall()
			if err := SaveCheckpointFile(sibling(opt.Out, ".best.safetensors"), m, state); err != nil {
				return fmt.Errorf("grpo: %w", err)
			}
		}
	}
	if g.Step%opt.Checkpoints.SaveEvery == 0 || g.Step == opt.Schedule.Steps || (opt.Checkpoints.SaveMinutes > 0 && time.Since(l.clock.lastSave).Minutes() >= opt.Checkpoints.SaveMinutes) {
		g.WallS = l.clock.wall()
		if err := SaveCheckpointFile(opt.Out, m, state); err != nil {
			return fmt.Errorf("grpo: %w", err)
		}
		if err := l.adam.SaveStateFile(nn.OptimizerStatePath(opt.Out), m.Params()); err != nil {
			return fmt.Errorf("grpo: %w", err)
		}
		l.clock.lastSave = time.Now()
	}
	logf(opt.Report.Log, "grpo step %d: mean reward %.4f, max %.4f, %d tokens with gradient, KL %.4f", g.Step, st.MeanReward, st.MaxReward, st.Tokens, st.KL)
	return nil
}

// restoreOptimizer restores AdamW's moments saved beside the checkpoint a resumed
// run continues; without them the moments restart (and the warm-up is short).
func (l *grpoLoop) restoreOptimizer() error {
	restored, err := l.adam.RestoreBeside(l.opt.Out, l.m.Params())
	if err != nil {
		return fmt.Errorf("grpo: resume: %w", err)
	}
	if restored {
		logf(l.opt.Report.Log, "grpo: optimizer state restored at step %d", l.adam.Steps())
	}
	return nil
}

// loadMeshes reads the meshes of the inputs (training split unless AllFiles), with
// their rigs removed.
func loadMeshes(opt GRPOOptions) ([]*character.Character, int, error) {
	items, err := dataset.ListInputs(opt.Data.Inputs)
	if err != nil {
		return nil, 0, fmt.Errorf("grpo: %w", err)
	}
	fam := dataset.DescribeItems(items)
	var out []*character.Character
	skipped := 0
	for _, it := range items {
		if !opt.Data.AllFiles && fam[it.Path].HeldOut() {
			continue
		}
		c, err := opt.Data.Load(it.Path)
		if err != nil || len(c.Mesh.Triangles) == 0 || len(c.Mesh.Positions) > opt.Data.MaxVertices || c.Mesh.Validate() != nil {
			skipped++
			continue
		}
		out = append(out, &character.Character{Name: it.Name, Mesh: c.Mesh, Materials: c.Materials})
	}
	return out, skipped, nil
}

// grpoRewardWeights resolves the run's reward spec and records it in g. A run
// resumed with another combination than the one it started with is refused,
// since its steps would have optimized two different scores.
func grpoRewardWeights(g *rigmodel.GRPOState, spec string) (map[string]float64, error) {
	weights, err := rewards.WeightsFor(spec)
	if err != nil {
		return nil, fmt.Errorf("grpo: %w", err)
	}
	if g.Step > 0 {
		before, err := rewards.WeightsFor(g.Reward)
		if err != nil || !maps.Equal(before, weights) {
			return nil, fmt.Errorf("grpo: resume: the run optimized reward %s, not %s", rewardName(g.Reward), rewardName(spec))
		}
	}
	g.Reward = spec
	return weights, nil
}

// rewardName is how logs and errors name a reward spec.
func rewardName(spec string) string {
	if spec == "" {
		return fmt.Sprintf("of version %d (the current weights)", rewards.RewardVersion)
	}
	return spec
}

// cachedRigReward is RigReward with the scoring preparation of each mesh (BVH,
// samples) computed once and reused across the group and across steps, and the
// rewards combined with weights (rewards.CombineWith, and SkinScore for the
// skin), each decoded rig renamed by name when it is set (GRPOPolicy.Name). An
// unscorable rig scores 0 whatever the weights, as in RigReward.
func cachedRigReward(r *sampler.Generator, weights map[string]float64, name func(c, rig *character.Character) (*character.Character, error)) RewardFunc {
	var mu sync.Mutex
	prepared := map[*character.Character]*rewards.Prepared{}
	return func(c *character.Character, tokens []int) Reward {
		mu.Lock()
		prep, ok := prepared[c]
		mu.Unlock()
		if !ok {
			p, err := rewards.Prepare(&c.Mesh, rewards.Options{})
			if err != nil {
				return Reward{}
			}
			mu.Lock()
			prepared[c], prep = p, p
			mu.Unlock()
		}
		_, norm := rigmodel.NormalizedMesh(&c.Mesh)
		rig, _, err := r.Decode(c, norm, tokens, nil, nil) // exactly the sampled tokens
		if err != nil || sampler.CheckRig(rig) != nil {
			return Reward{}
		}
		if name != nil {
			if named, err := name(c, rig); err == nil {
				rig = named
			}
		}
		rep, err := prep.Score(rig, rewards.Options{Motion: animation.ClipPoses})
		if err != nil || rep.Score == 0 {
			return Reward{}
		}
		return Reward{Score: rewards.CombineWith(rep.Rewards, weights), Skin: SkinScore(rep.Rewards, weights)}
	}
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// appendJSONLine appends v as one JSON line to path.
func appendJSONLine(path string, v any) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("log %s: %w", path, err)
	}
	data, _ := json.Marshal(v)
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("log %s: %w", path, err)
	}
	return nil
}
