// Package train teaches the TokenRig model: supervised training on rigged
// characters (Run), GRPO fine-tuning on meshes scored by the rewards (GRPO) and the
// averaging of checkpoints' weights (Average). A run is resumable and writes its
// checkpoints, a JSON-lines log and its best model beside its output.
package train

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
)

// This file is the training loop: plain, resumable, with separate skeleton and skin
// losses, a validation split by creature family, atomic checkpoints and loss curves.

// Options configures Run. The fields that name the run stay at the top; the
// rest come in groups, each read by one phase of Run: Data by loadTrainData and
// the example stream, Schedule and Loss by the optimizer step, Checkpoints by the
// loop's validation and saving, Report by every phase that talks.
type Options struct {
	Out    string // checkpoint path (safetensors); siblings get the log, the best model, the PNG
	Config rigmodel.Config
	Seed   int64
	// Resume continues the run whose checkpoint is at Out.
	Resume bool
	// Init warm-starts a new run (step 0, fresh schedule) from the weights of this
	// checkpoint; its shapes must match Config (dropout may differ). Ignored when
	// resuming from Out.
	Init string
	// Skin encodes skin tokens; nil trains the skeleton part only. SkinID is the
	// skin tokenizer's Fingerprint, stored in the checkpoint.
	Skin        rigmodel.SkinEncoder
	SkinID      string
	Data        Data
	Schedule    Schedule
	Loss        rigmodel.LossWeights // the skin and hierarchy targets' weights (0 means 1)
	Checkpoints Checkpoints
	Report      Report
}

// Data says where the training examples come from and how they are made: the
// characters on disk, the synthetic creatures added to them, the augmentation, and
// the workers and pool that make examples ahead of the loop.
type Data struct {
	Inputs []string // folders, files or manifests of rigged characters
	// Load reads a character file (assets.Load in the binary).
	Load    func(string) (*character.Character, error)
	Augment AugmentOptions
	// Synthetic adds this many generated creatures (synth, all kinds in turn,
	// SynthVertices vertices each, every third with mesh noise) to the training set.
	Synthetic, SynthVertices int
	// FreshSynthetic is the probability that a drawn training example is a newly
	// generated creature (a seed never used before) rather than one of the fixed
	// set: synthetic data that cannot be memorized.
	FreshSynthetic float64
	// Propose builds the proposal skeletons of a model that reads one
	// (rigmodel.Config.Proposal > 0): once per training character, followed through its
	// augmentations (anchorProposal), and once per validation character.
	Propose rigmodel.ProposalFunc
	// Pool is how many encoded examples are kept when skin tokens are trained
	// (encoding skin is slow): each step replaces two of them with fresh augmented
	// examples and draws its batch from the pool. 0 means 384.
	Pool int
	// Workers is how many goroutines make training examples (augmentation and
	// skin encoding) ahead of the loop; 0 means GOMAXPROCS. The examples, and so
	// the run, do not depend on it.
	Workers int
	// EncodeEach re-encodes the skin of every augmented copy instead of reusing
	// each training character's codes from the cached code set (skincache.go);
	// with the cache the loop draws its batches straight from the stream, without
	// the Pool.
	EncodeEach bool
}

// Schedule is the optimizer's schedule: how many steps of how many examples,
// and the learning rate's warm-up and cosine decay.
type Schedule struct {
	Steps int // total optimizer steps (the cosine schedule's length)
	Batch int // examples per step (0 means 1)
	LR    float64
	// Warmup is the linear learning-rate warm-up of a new run in steps (0: 200; a
	// resumed run without saved optimizer state warms up for 50).
	Warmup int
}

// Checkpoints says when the loop validates and saves; a validation that
// improves the loss also writes the best checkpoint.
type Checkpoints struct {
	// EvalEvery and SaveEvery are in steps (0: 200 and 500); SaveEvery also
	// triggers after SaveMinutes.
	EvalEvery, SaveEvery int
	SaveMinutes          float64
}

// Report is where a run reports what it does; every field may be nil.
type Report struct {
	Progress io.Writer // progress bar; nil for none
	Log      io.Writer // one line per evaluation; nil for none
	// Plot draws the log's loss curves into a PNG after each validation (cmd/rig
	// plots them); nil draws nothing.
	Plot func(logPath, pngPath string) error
}

// LogRow is one line of the training log (JSON lines beside the checkpoint).
type LogRow struct {
	Step      int     `json:"step"`
	TrainSkel float64 `json:"train_skeleton"`
	TrainSkin float64 `json:"train_skin"`
	ValSkel   float64 `json:"val_skeleton"`
	ValSkin   float64 `json:"val_skin"`
	LR        float64 `json:"lr"`
	TokensPS  float64 `json:"tokens_per_s"`
	StepsPS   float64 `json:"steps_per_s"` // optimizer steps per second of the loop (validation included)
	WallS     float64 `json:"wall_s"`
}

// sibling returns the checkpoint path with its extension replaced by suffix.
func sibling(ckpt, suffix string) string {
	return strings.TrimSuffix(ckpt, filepath.Ext(ckpt)) + suffix
}

// loadCharacters reads every rigged character among the inputs and splits them by
// dataset split. Files that fail to load or are not rigged are skipped and counted.
func loadCharacters(inputs []string, load func(string) (*character.Character, error), maxJoints int) (train, val []*character.Character, skipped int, err error) {
	items, err := dataset.ListInputs(inputs)
	if err != nil {
		return nil, nil, 0, err
	}
	fam := dataset.DescribeItems(items)
	for _, it := range items {
		c, err := load(it.Path)
		if err != nil || !c.Rigged() || c.Skeleton.NumJoints() > maxJoints || c.Validate() != nil {
			skipped++
			continue
		}
		c.Name = it.Name
		if fam[it.Path].HeldOut() {
			val = append(val, c)
		} else {
			train = append(train, c)
		}
	}
	return train, val, skipped, nil
}

// Run runs (or resumes) training and returns the final state. The phases:
// options and output folder (withDefaults), the model and its state (resumeOrInit),
// the data (loadTrainData), the example stream and pool (newTrainer), then the loop
// of optimizer steps, each followed by validation and checkpoints when due.
func Run(opt Options) (*rigmodel.TrainState, error) {
	if opt.Data.Load == nil || opt.Out == "" || opt.Schedule.Steps < 1 {
		return nil, errors.New("train: Data.Load, Out and Schedule.Steps are required")
	}
	// Before any work: the checkpoints and the log go beside Out.
	if err := os.MkdirAll(filepath.Dir(opt.Out), 0o755); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	opt = opt.withDefaults()
	m, state, err := resumeOrInit(&opt)
	if err != nil {
		return nil, err
	}
	train, props, valEx, err := loadTrainData(opt, state, m)
	if err != nil {
		return nil, err
	}
	tr, err := newTrainer(opt, state, m, train, props, valEx)
	if err != nil {
		return nil, err
	}
	defer tr.ex.stream.close()
	for state.Step < opt.Schedule.Steps {
		if err := tr.step(); err != nil {
			return state, err
		}
		last := state.Step == opt.Schedule.Steps
		if state.Step%opt.Checkpoints.EvalEvery == 0 || last {
			if err := tr.validate(); err != nil {
				return state, err
			}
		}
		if state.Step%opt.Checkpoints.SaveEvery == 0 || last || (opt.Checkpoints.SaveMinutes > 0 && time.Since(tr.clock.lastSave).Minutes() >= opt.Checkpoints.SaveMinutes) {
			if err := tr.save(); err != nil {
				return state, err
			}
		}
	}
	tr.bar.Finish()
	state.WallS = tr.clock.wall()
	return state, nil
}

// withDefaults fills the zero options with the defaults Run documents.
func (opt Options) withDefaults() Options {
	opt.Schedule.Batch = max(opt.Schedule.Batch, 1)
	if opt.Checkpoints.EvalEvery <= 0 {
		opt.Checkpoints.EvalEvery = 200
	}
	if opt.Checkpoints.SaveEvery <= 0 {
		opt.Checkpoints.SaveEvery = 500
	}
	if opt.Loss.Skin == 0 {
		opt.Loss.Skin = 1
	}
	if opt.Data.Workers <= 0 {
		opt.Data.Workers = runtime.GOMAXPROCS(0)
	}
	return opt
}

// resumeOrInit loads the checkpoint at Out when resuming (and takes its config
// into opt), or builds a new model, warm-started from Init when given.
func resumeOrInit(opt *Options) (*rigmodel.Model, *rigmodel.TrainState, error) {
	state := &rigmodel.TrainState{Config: opt.Config, BestVal: math.MaxFloat64, TrainingData: rigmodel.TrainingData{Data: opt.Data.Inputs},
		SkinTokens: opt.Skin != nil, SkinTokenizer: opt.SkinID}
	var m *rigmodel.Model
	var err error
	if opt.Resume {
		if _, statErr := os.Stat(opt.Out); statErr == nil {
			m, state, err = rigmodel.LoadCheckpointFile(opt.Out)
			if err != nil {
				return nil, nil, fmt.Errorf("train: resume: %w", err)
			}
			opt.Config = m.Cfg
			if state.SkinTokens != (opt.Skin != nil) || state.SkinTokenizer != opt.SkinID {
				// The validation loss changes meaning with the stream: restart "best".
				state.BestVal = math.MaxFloat64
			}
			state.Data, state.SkinTokens, state.SkinTokenizer = opt.Data.Inputs, opt.Skin != nil, opt.SkinID
		}
	}
	if opt.Skin != nil && opt.Skin.K() != opt.Config.K() {
		return nil, nil, fmt.Errorf("train: the skin tokenizer writes %d codes per joint, the model's config %d (Config.SkinK)",
			opt.Skin.K(), opt.Config.K())
	}
	if m == nil {
		if m, err = rigmodel.NewModel(opt.Config, uint64(opt.Seed)); err != nil {
			return nil, nil, fmt.Errorf("train: %w", err)
		}
		if opt.Init != "" {
			if err := rigmodel.WarmStart(m, opt.Init); err != nil {
				return nil, nil, fmt.Errorf("train: %w", err)
			}
		}
	}
	return m, state, nil
}

// loadTrainData loads the rigged characters of the inputs, split by family, adds the
// synthetic creatures to the training side and makes the fixed validation examples
// (no augmentation, seeded points).
func loadTrainData(opt Options, state *rigmodel.TrainState, m *rigmodel.Model) ([]*character.Character, []*anchoredProposal, []*rigmodel.Example, error) {
	train, val, skipped, err := loadCharacters(opt.Data.Inputs, opt.Data.Load, opt.Config.MaxJoint)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("train: %w", err)
	}
	if len(train) == 0 {
		return nil, nil, nil, fmt.Errorf("train: no usable rigged characters in %v (%d skipped)", opt.Data.Inputs, skipped)
	}
	if m.Proposal != nil && opt.Data.Propose == nil {
		return nil, nil, nil, errors.New("train: the model reads a proposal skeleton and Options.Data.Propose is not set")
	}
	state.TrainFiles, state.ValFiles = len(train), len(val)
	gen := generateSynthetic(opt.Data.Synthetic, opt.Data.SynthVertices, opt.Config.MaxJoint, opt.Report.Progress)
	train = append(train, gen...)
	state.Synthetic = len(gen)
	logf(opt.Report.Log, "train: %d training (%d synthetic) and %d validation characters (%d files skipped), %d parameters, resuming at step %d",
		len(train), len(gen), len(val), skipped, m.NumParams(), state.Step)
	props := anchorProposals(opt, m, train)
	var valEx []*rigmodel.Example
	for _, ex := range makeOrdered(len(val), opt.Data.Workers, func(i int64) *rigmodel.Example {
		ex, err := rigmodel.MakeExample(val[i], opt.Config.Points, opt.Skin, mrand.New(mrand.NewSource(i)))
		if err != nil || len(ex.Tokens) > opt.Config.MaxSeq {
			return nil
		}
		if m.Proposal != nil {
			ex.Proposal = rigmodel.ProposalOf(opt.Data.Propose, &val[i].Mesh, character.NormalizationOf(val[i].Mesh), m.Cfg.Proposal)
		}
		return ex
	}) {
		if ex != nil {
			valEx = append(valEx, ex)
		}
	}
	return train, props, valEx, nil
}

// anchorProposals builds the proposal skeleton of every training character once, in
// parallel, tied to its mesh; nil when the model reads no proposal. A character
// whose proposal fails gets none (its examples read a skeleton without joints).
func anchorProposals(opt Options, m *rigmodel.Model, train []*character.Character) []*anchoredProposal {
	if m.Proposal == nil {
		return nil
	}
	bar := progress.New(opt.Report.Progress, "proposal skeletons", len(train))
	defer bar.Finish()
	return makeOrdered(len(train), opt.Data.Workers, func(k int64) *anchoredProposal {
		defer bar.Add(1, 0)
		sk, err := opt.Data.Propose(&train[k].Mesh)
		if err != nil || sk.NumJoints() == 0 {
			return nil
		}
		return anchorProposal(sk, &train[k].Mesh)
	})
}

// trainer is the state of the training loop.
type trainer struct {
	opt   Options
	state *rigmodel.TrainState
	m     *rigmodel.Model
	bar   *progress.Bar
	ex    exampleSource
	optim optimizer
	since sinceValidation
	clock runClock
}

// exampleSource is where the loop's batches come from: the example stream, the
// pool of encoded examples drawn from it when skin tokens are trained (nil
// otherwise) with the random source that picks from the pool, and the fixed
// validation examples.
type exampleSource struct {
	stream *orderedStream[*rigmodel.Example]
	pool   []*rigmodel.Example
	// byLength, set with the cached code set, batches examples of similar length.
	byLength *lengthBatch
	rng      *mrand.Rand
	val      []*rigmodel.Example
}

// optimizer is AdamW with its learning-rate warm-up: warm steps, counted by
// runStep.
type optimizer struct {
	adam    *nn.AdamW[float32]
	warm    int
	runStep func() int
}

// sinceValidation sums the training losses and counts the tokens and steps since
// the last validation, with the clocks the throughput is measured on.
type sinceValidation struct {
	acc                 rigmodel.Losses
	accN, tokens, stepN int
	tokT, stepT         time.Time
}

// runClock is a run's time: when it started (at step startStep), when it last
// saved, and the training time of the runs before it.
type runClock struct {
	start, lastSave time.Time
	wall0           float64
	startStep       int
}

// wall is the training time over all runs so far, in seconds.
func (c *runClock) wall() float64 { return c.wall0 + time.Since(c.start).Seconds() }

// newTrainer sets up the optimizer (restoring its state on resume), the example
// stream and the pool.
func newTrainer(opt Options, state *rigmodel.TrainState, m *rigmodel.Model, train []*character.Character, props []*anchoredProposal, valEx []*rigmodel.Example) (*trainer, error) {
	tr := &trainer{opt: opt, state: state, m: m,
		ex: exampleSource{val: valEx, rng: mrand.New(mrand.NewSource(opt.Seed + int64(state.Step)))}}
	tr.optim.adam = nn.NewAdamW[float32](opt.Schedule.LR)
	tr.optim.adam.WeightDecay = 0.01
	tr.optim.warm = 200
	if opt.Schedule.Warmup > 0 {
		tr.optim.warm = opt.Schedule.Warmup
	}
	// A resumed run restores AdamW's moments and step count from the file beside the
	// checkpoint and continues the schedule; a checkpoint without one (written
	// before it was saved, or by another trainer) restarts the moments and warms up
	// again briefly.
	tr.optim.runStep = func() int { return state.Step }
	if state.Step > 0 {
		resumeStep := state.Step
		switch restored, err := tr.optim.adam.RestoreBeside(opt.Out, m.Params()); {
		case err != nil:
			return nil, fmt.Errorf("train: resume: %w", err)
		case restored:
			logf(opt.Report.Log, "train: optimizer state restored at step %d", tr.optim.adam.Steps())
		default:
			tr.optim.warm = 50
			tr.optim.runStep = func() int { return state.Step - resumeStep }
		}
	}
	tr.clock.start, tr.clock.lastSave = time.Now(), time.Now()
	tr.clock.wall0 = state.WallS
	tr.clock.startStep = state.Step
	tr.bar = progress.New(opt.Report.Progress, fmt.Sprintf("train (from step %d)", tr.clock.startStep), opt.Schedule.Steps-tr.clock.startStep)
	var codes *codeSet
	if opt.Skin != nil && !opt.Data.EncodeEach {
		var err error
		if codes, err = buildCodeSet(opt, train); err != nil {
			return nil, err
		}
		state.Training = &rigmodel.TrainingFacts{SkinCodes: fmt.Sprintf("cached code set: %d training characters encoded once, their codes reused by every augmented copy", len(train))}
	} else if opt.Skin != nil {
		state.Training = &rigmodel.TrainingFacts{SkinCodes: "every augmented copy encoded"}
	}
	tr.ex.stream = newExampleStream(opt, state.Step, train, props, codes)
	if codes != nil {
		tr.ex.byLength = &lengthBatch{}
	}
	if opt.Skin != nil && codes == nil {
		n := opt.Data.Pool
		if n <= 0 {
			n = 384
		}
		pb := progress.New(opt.Report.Progress, fmt.Sprintf("encoding skin tokens (%d workers)", opt.Data.Workers), n)
		for len(tr.ex.pool) < n {
			tr.ex.pool = append(tr.ex.pool, tr.ex.stream.next())
			pb.Add(1, 0)
		}
		pb.Finish()
	}
	// Throughput counts the loop alone, not loading or the pool's first fill.
	tr.since.tokT, tr.since.stepT = time.Now(), time.Now()
	return tr, nil
}

// newExampleStream makes training examples ahead of the loop: the k-th of this run
// is made from its own random source (seeded from the run's seed, the start step and
// k) by a worker goroutine (examples.go), so a run does not depend on the number of
// workers. props (nil, or one per training character) are the anchored proposal
// skeletons of a model that reads one; a fresh synthetic creature gets its own.
func newExampleStream(opt Options, startStep int, train []*character.Character, props []*anchoredProposal, codes *codeSet) *orderedStream[*rigmodel.Example] {
	kinds := synth.Kinds()
	runSeed := opt.Seed*1_000_003 + int64(startStep)*7_919
	freshBase := int64(2_000_000) + int64(startStep)*int64(opt.Schedule.Batch+2)*4
	workers := opt.Data.Workers
	return newOrderedStream(workers, 2*workers+2, 0, func(k int64) *rigmodel.Example {
		rng := mrand.New(mrand.NewSource(runSeed + k*104_729))
		for tries := int64(0); ; tries++ {
			i := rng.Intn(len(train))
			c, prop := train[i], (*anchoredProposal)(nil)
			if props != nil {
				prop = props[i]
			}
			fresh := false
			if opt.Data.FreshSynthetic > 0 && rng.Float64() < opt.Data.FreshSynthetic {
				seed := freshBase + k*16 + tries
				kind := kinds[int(seed)%len(kinds)]
				g, err := synth.Generate(kind, seed, synth.Options{TargetVertices: synthVertices(opt.Data.SynthVertices), Noise: rng.Intn(3) == 0})
				if err != nil || !g.Rigged() || g.Skeleton.NumJoints() > opt.Config.MaxJoint {
					continue
				}
				c, fresh = g, true
			}
			aug, affine := augment(c, opt.Data.Augment, rng)
			enc := opt.Skin
			if codes != nil && !fresh {
				enc = cachedCodes{k: opt.Skin.K(), codes: codes.codes[i]}
			}
			ex, err := rigmodel.MakeExample(aug, opt.Config.Points, enc, rng)
			if err != nil || len(ex.Tokens) > opt.Config.MaxSeq {
				continue
			}
			switch {
			case props != nil && fresh:
				ex.Proposal = rigmodel.ProposalOf(opt.Data.Propose, &aug.Mesh, character.NormalizationOf(aug.Mesh), opt.Config.Proposal)
			case prop != nil:
				ex.Proposal = rigmodel.ProposalRows(prop.follow(&aug.Mesh, affine), character.NormalizationOf(aug.Mesh), opt.Config.Proposal)
			}
			return ex
		}
	})
}

// step draws a batch (from the pool, two of whose examples it first replaces, or
// straight from the stream) and takes one optimizer step.
func (tr *trainer) step() error {
	opt, state := tr.opt, tr.state
	batch := make([]*rigmodel.Example, 0, opt.Schedule.Batch)
	if tr.ex.pool != nil {
		for k := 0; k < 2; k++ {
			tr.ex.pool[tr.ex.rng.Intn(len(tr.ex.pool))] = tr.ex.stream.next()
		}
	}
	if tr.ex.byLength != nil {
		batch = tr.ex.byLength.next(opt.Schedule.Batch, tr.ex.stream, tr.ex.rng)
		for _, ex := range batch {
			tr.since.tokens += len(ex.Tokens)
		}
	}
	for len(batch) < opt.Schedule.Batch {
		var ex *rigmodel.Example
		if tr.ex.pool != nil {
			ex = tr.ex.pool[tr.ex.rng.Intn(len(tr.ex.pool))]
		} else {
			ex = tr.ex.stream.next()
		}
		batch = append(batch, ex)
		tr.since.tokens += len(ex.Tokens)
	}
	nn.ZeroGrad[float32](tr.m)
	ls, err := tr.m.StepWeighted(batch, true, opt.Loss)
	if err != nil {
		return fmt.Errorf("train: step %d: %w", state.Step, err)
	}
	nn.ClipGradNorm(tr.m.Params(), 1)
	tr.optim.adam.LR = lrAt(opt.Schedule.LR, tr.optim.runStep(), tr.optim.warm, state.Step, opt.Schedule.Steps)
	tr.optim.adam.Step(tr.m.Params())
	state.Step++
	tr.since.stepN++
	tr.since.acc.Skeleton += ls.Skeleton
	tr.since.acc.Skin += ls.Skin
	tr.since.accN++
	tr.bar.Set(state.Step-tr.clock.startStep, fmt.Sprintf("skel %.3f skin %.3f", ls.Skeleton, ls.Skin))
	return nil
}

// validate logs the validation losses, keeps the best checkpoint and plots.
func (tr *trainer) validate() error {
	opt, state := tr.opt, tr.state
	vl := evaluate(tr.m, tr.ex.val, opt.Schedule.Batch)
	row := LogRow{Step: state.Step, TrainSkel: tr.since.acc.Skeleton / float64(tr.since.accN), TrainSkin: tr.since.acc.Skin / float64(tr.since.accN),
		ValSkel: vl.Skeleton, ValSkin: vl.Skin, LR: tr.optim.adam.LR,
		TokensPS: float64(tr.since.tokens) / time.Since(tr.since.tokT).Seconds(), StepsPS: float64(tr.since.stepN) / time.Since(tr.since.stepT).Seconds(),
		WallS: tr.clock.wall()}
	tr.recordThroughput(row)
	tr.since.acc, tr.since.accN, tr.since.tokens, tr.since.tokT, tr.since.stepN, tr.since.stepT = rigmodel.Losses{}, 0, 0, time.Now(), 0, time.Now()
	if err := appendLog(sibling(opt.Out, ".log.jsonl"), row); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	logf(opt.Report.Log, "step %d: train skeleton %.4f skin %.4f | val skeleton %.4f skin %.4f | lr %.2g | %.0f tok/s",
		row.Step, row.TrainSkel, row.TrainSkin, row.ValSkel, row.ValSkin, row.LR, row.TokensPS)
	if v := vl.Total(); len(tr.ex.val) > 0 && v < state.BestVal {
		state.BestVal, state.BestStep = v, state.Step
		state.WallS = tr.clock.wall()
		if err := SaveCheckpointFile(sibling(opt.Out, ".best.safetensors"), tr.m, state); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		facts, _ := json.MarshalIndent(state, "", "  ")
		if err := atomicfile.WriteFile(sibling(opt.Out, ".best.json"), append(facts, '\n')); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	if opt.Report.Plot != nil {
		if err := opt.Report.Plot(sibling(opt.Out, ".log.jsonl"), sibling(opt.Out, ".losses.png")); err != nil {
			logf(opt.Report.Log, "train: loss plot: %v", err)
		}
	}
	return nil
}

// recordThroughput keeps the loop's last measured throughput in the checkpoint's
// training facts.
func (tr *trainer) recordThroughput(row LogRow) {
	if tr.state.Training == nil {
		tr.state.Training = &rigmodel.TrainingFacts{}
	}
	f := tr.state.Training
	f.StepsPerS, f.TokensPerS = row.StepsPS, row.TokensPS
	f.Batch, f.Workers = tr.opt.Schedule.Batch, tr.opt.Data.Workers
}

// save writes the checkpoint and the optimizer state beside it.
func (tr *trainer) save() error {
	tr.state.WallS = tr.clock.wall()
	if err := SaveCheckpointFile(tr.opt.Out, tr.m, tr.state); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := tr.optim.adam.SaveStateFile(nn.OptimizerStatePath(tr.opt.Out), tr.m.Params()); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	tr.clock.lastSave = time.Now()
	return nil
}

// generateSynthetic makes n creatures of every synth kind in turn (seeds from
// 1,000,000 so they never collide with test seeds).
func generateSynthetic(n, vertices, maxJoints int, progressTo io.Writer) []*character.Character {
	if n <= 0 {
		return nil
	}
	vertices = synthVertices(vertices)
	kinds := synth.Kinds()
	bar := progress.New(progressTo, "synthetic creatures", n)
	made := makeOrdered(n, runtime.GOMAXPROCS(0), func(k int64) *character.Character {
		i := int(k)
		kind := kinds[i%len(kinds)]
		c, err := synth.Generate(kind, int64(1_000_000+i), synth.Options{TargetVertices: vertices, Noise: i%3 == 2})
		bar.Add(1, 0)
		if err != nil || !c.Rigged() || c.Skeleton.NumJoints() > maxJoints {
			return nil
		}
		c.Name = fmt.Sprintf("synth_%s_%d", kind, i)
		return c
	})
	bar.Finish()
	var out []*character.Character
	for _, c := range made {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// synthVertices is the vertex target of generated training creatures (0: 1,500).
func synthVertices(v int) int {
	if v <= 0 {
		return 1500
	}
	return v
}

// lrAt is linear warm-up over warm steps (counted from this run's start), then a
// cosine from peak to peak/10 over the whole schedule.
func lrAt(peak float64, runStep, warm, step, total int) float64 {
	if runStep < warm {
		return peak * float64(runStep+1) / float64(warm)
	}
	frac := math.Min(1, float64(step)/float64(max(total, 1)))
	return peak/10 + 0.5*(peak-peak/10)*(1+math.Cos(math.Pi*frac))
}

// evaluate returns the mean validation losses (no gradients).
func evaluate(m *rigmodel.Model, exs []*rigmodel.Example, batch int) rigmodel.Losses {
	var tot rigmodel.Losses
	var skelW, skinW float64
	for i := 0; i < len(exs); i += batch {
		ls, err := m.Step(exs[i:min(i+batch, len(exs))], false, 1)
		if err != nil {
			continue
		}
		tot.Skeleton += ls.Skeleton * float64(ls.SkelTokens)
		tot.Skin += ls.Skin * float64(ls.SkinTokens)
		skelW += float64(ls.SkelTokens)
		skinW += float64(ls.SkinTokens)
		tot.SkelTokens += ls.SkelTokens
		tot.SkinTokens += ls.SkinTokens
	}
	if skelW > 0 {
		tot.Skeleton /= skelW
	}
	if skinW > 0 {
		tot.Skin /= skinW
	}
	return tot
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

func appendLog(path string, row LogRow) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("training log: %w", err)
	}
	data, _ := json.Marshal(row)
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadLog reads a training log written by Run.
func ReadLog(path string) ([]LogRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read log: %w", err)
	}
	defer f.Close()
	var rows []LogRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r LogRow
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			rows = append(rows, r)
		}
	}
	return rows, sc.Err()
}
