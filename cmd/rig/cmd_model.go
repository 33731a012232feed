package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/copilot"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/train"
)

// The TokenRig model's commands: `rig train` and `rig auto`.

func init() {
	register(&command{
		name:    "train",
		usage:   "--data DIR... --out CKPT [--steps N] [--d D --layers L --heads H --proposal J] [--batch B] [--lr LR] [--synthetic N] [--fresh-synthetic P] [--dropout P] [--struct-weight W] [--rotate quarter|any] [--init CKPT] [--resume]",
		summary: "train the TokenRig model on rigged characters",
		run:     runTrain,
	})
	register(&command{
		name:    "auto",
		usage:   "IN... --out DIR [--samples N] [--votes N] [--skin tokens|geodesic|heat|heat+geodesic[@ALPHA]] [--skin-samples N] [--compare-classical=false] [--inside-joints=false] [--kind auto|humanoid|quadruped|bird|fish|snake|other] [--up auto|y|z] [--shard k/n|auto/n] [--workers W] [--model CKPT] [--force] [--quiet] [--isolate [--item-timeout D]] [--skeleton PARTIAL] [--detail low|medium|high] [--max-joints N]",
		summary: "rig meshes (files, folders or manifests) with the TokenRig model",
		help:    autoHelp + "\n\n" + autoOutputHelp,
		run:     runAuto,
	})
}

// trainDataFlag collects a repeated string flag.
type trainDataFlag []string

func (m *trainDataFlag) String() string     { return fmt.Sprint([]string(*m)) }
func (m *trainDataFlag) Set(v string) error { *m = append(*m, v); return nil }

func runTrain(args []string, stdout io.Writer) error {
	fs := newFlags("train")
	var data trainDataFlag
	fs.Var(&data, "data", "folder, file or manifest of rigged characters (repeatable)")
	out := fs.String("out", "", "checkpoint path (.safetensors); the log, best model and loss PNG go beside it")
	steps := fs.Int("steps", 20000, "total optimizer steps")
	batch := fs.Int("batch", 8, "sequences per step")
	lr := fs.Float64("lr", 1e-3, "peak learning rate")
	resume := fs.Bool("resume", false, "continue from --out if it exists")
	seed := fs.Int64("seed", 1, "random seed")
	evalEvery := fs.Int("eval-every", 100, "validate every N steps")
	saveMin := fs.Float64("save-minutes", 3, "also checkpoint every N minutes")
	synthetic := fs.Int("synthetic", 0, "add N generated creatures (all kinds) to the training set")
	dropout := fs.Float64("dropout", 0, "dropout on the decoder's residual branches while training")
	fresh := fs.Float64("fresh-synthetic", 0, "probability that a drawn example is a newly generated creature (never seen before)")
	structW := fs.Float64("struct-weight", 2, "loss weight of the hierarchy targets POP and SEP (they decide the skeleton's length)")
	skinW := fs.Float64("skin-weight", 1, "loss weight of the skin-token targets against the skeleton tokens")
	rotate := fs.String("rotate", "quarter", "augmentation about the up axis: quarter (k·90° ± 11°) or any (uniform angle)")
	initCkpt := fs.String("init", "", "warm-start a new run from this checkpoint's weights (same sizes); ignored when --resume finds --out")
	warmup := fs.Int("warmup", 200, "learning-rate warm-up steps of a new run")
	skinTok := fs.String("skin-tokenizer", "shipped", "skin codes from: shipped (skincodec/checkpoints/skin.safetensors, rigkit's one skin tokenizer), none (skeleton only), or a checkpoint path")
	width := fs.Int("d", rigmodel.DefaultConfig.DModel, "model width (new runs only)")
	layers := fs.Int("layers", rigmodel.DefaultConfig.Layers, "transformer layers (new runs only)")
	heads := fs.Int("heads", rigmodel.DefaultConfig.Heads, "attention heads; must divide --d (new runs only)")
	proposal := fs.Int("proposal", rigmodel.DefaultConfig.Proposal, "joints of the classical proposal skeleton the model reads (0: none; new runs only)")
	dataWorkers := fs.Int("data-workers", 0, "goroutines making training examples ahead of the loop (0: all cores; the run does not depend on it)")
	encodeEach := fs.Bool("encode-each", false, "re-encode the skin of every augmented example instead of encoding each training character once (the cached code set, beside --out as .skincodes.json)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	eng := engineFlag(fs)
	if err := parseTrainingFlags(fs, args, &data, out); err != nil {
		return err
	}
	if _, err := useEngine(*eng, 0, diag); err != nil {
		return err
	}
	aug := train.DefaultAugment
	switch *rotate {
	case "quarter":
		aug.Rotate, aug.QuarterTurns, aug.Jitter = false, true, 0.2
	case "any":
		aug.QuarterTurns, aug.Rotate = false, true
	default:
		return fmt.Errorf("%w: --rotate %q: want quarter or any", errUsage, *rotate)
	}
	skin, skinID, k, err := trainSkinEncoder(*skinTok)
	if err != nil {
		return err
	}
	cfg := rigmodel.DefaultConfig
	cfg.Dropout = *dropout
	cfg.DModel, cfg.Layers, cfg.Heads, cfg.Proposal = *width, *layers, *heads, *proposal
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if k > 0 {
		// The model writes the tokenizer's K codes per joint; the longest stream
		// must fit (a resumed run keeps its checkpoint's config).
		cfg.SkinK = k
		cfg.MaxSeq = max(cfg.MaxSeq, cfg.LongestStream())
	}
	st, err := train.Run(train.Options{
		Out: *out, Config: cfg, Seed: *seed, Resume: *resume, Init: *initCkpt, Skin: skin, SkinID: skinID,
		Data: train.Data{Inputs: data, Load: assets.Options{}.Loader(), Augment: aug, Synthetic: *synthetic,
			FreshSynthetic: *fresh, Propose: autorig.ClassicalProposal, Workers: *dataWorkers, EncodeEach: *encodeEach},
		Schedule:    train.Schedule{Steps: *steps, Batch: *batch, LR: *lr, Warmup: *warmup},
		Loss:        rigmodel.LossWeights{Skin: *skinW, Struct: *structW},
		Checkpoints: train.Checkpoints{EvalEvery: *evalEvery, SaveMinutes: *saveMin},
		Report:      train.Report{Progress: progressOut(*quiet), Log: stdout, Plot: plotModelLosses},
	})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// trainSkinEncoder returns the skin tokenizer whose codes `rig train` teaches (nil
// for skeleton-only training), its fingerprint and its K (codes per joint). A model
// is shipped only with the tokenizer it was trained on as skincodec/checkpoints/skin.safetensors.
func trainSkinEncoder(which string) (rigmodel.SkinEncoder, string, int, error) {
	var tok *skincodec.SkinTokenizer
	var err error
	switch which {
	case "none":
		return nil, "", 0, nil
	case "shipped":
		tok, err = skincodec.Load("")
	default:
		tok, err = skincodec.Load(which)
	}
	if err != nil {
		return nil, "", 0, fmt.Errorf("skin tokenizer %q: %w (use --skin-tokenizer none to train the skeleton part only)", which, err)
	}
	// Training encodes two fresh examples per step; code refinement (a few seconds
	// per character) would dominate the step, so the model learns the encoder's own
	// codes. Examples are encoded by many goroutines at once (rig train
	// --data-workers): each encode runs on one.
	opt := tok.Options()
	opt.RefineRounds, opt.Workers = 0, 1
	return train.TokenizerSkin(tok, opt), tok.Fingerprint(), tok.K(), nil
}

// autoOutputHelp is the part of `rig auto -h` that says what an output file holds.
const autoOutputHelp = `Each output DIR/<name>.glb is its input plus a rig: the input's node hierarchy,
names and transforms, separate meshes and primitives, materials, textures, samplers,
extensions, vertex colours, extra UV sets, morph targets, extras and cameras are kept
as they are. The new skeleton goes under the meshes' nearest common ancestor (a
scaled, rotated "Armature" parent still scales and rotates the rig), and each
primitive gets JOINTS_0/WEIGHTS_0. A rigged input's skins, joint nodes and the
animations (or animation channels) that drive those joints are replaced; animations
of other nodes stay. DIR/<name>.json says what was replaced or dropped under
"scene", e.g. "scene": {"rig": "replaced", "replaced": {"skins": 1, "joints": 65,
"animations": 3}, "dropped": [...]}. See docs/files.md.
`

func runAuto(args []string, stdout io.Writer) error {
	fs := newFlags("auto")
	out := fs.String("out", "", "output folder: <name>.glb and <name>.json per input")
	samples := fs.Int("samples", 1, "token streams sampled per mesh; the best by rewards is kept")
	skinSamples := fs.Int("skin-samples", 1, "skin-token streams per sampled skeleton; their decoded weights are averaged (more is smoother and slower)")
	shard := fs.String("shard", "", "k/n: rig only every n-th input starting at k (0-based); auto/n takes k from $JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or $SLURM_ARRAY_TASK_ID (Slurm array)")
	workers := fs.Int("workers", 0, "assets rigged concurrently (0: all cores)")
	model := fs.String("model", "", "model checkpoint (default: the shipped one)")
	force := fs.Bool("force", false, "re-rig inputs whose outputs are finished, and allow --out inside an input folder (its files are still never read as inputs)")
	quiet := fs.Bool("quiet", false, "no progress output")
	compare := fs.Bool("compare-classical", true, "also build the classical rig and keep the model's rig unless the classical one scores higher")
	skinFlag := fs.String("skin", "tokens", "tokens (the model's skin tokens when it writes them, geodesic weights for rigs without), or geodesic, heat or a blend heat+geodesic[@ALPHA] for every rig (faster on large meshes; heat is the fastest)")
	skinShare := fs.Float64("skin-share", autorig.DefaultTokenShare, "with --skin tokens: the token skin's share of each vertex's weights, blended with heat weights on the final skeleton (1: the token skin as decoded)")
	blocks := fs.Bool("blocks", true, "bind each rigid block of the mesh (a part of at most 8 distinct positions, such as each box of a blocky character) wholly to one joint; the method gains \"/blocks\"")
	inside := fs.Bool("inside-joints", true, "mask joint coordinates outside the (dilated) mesh volume while sampling")
	votes := fs.Int("votes", sampler.DefaultVotes, "skeletons sampled for the first stream, which keeps the one nearest to the others and to the classical proposal (1: the greedy skeleton)")
	near := fs.Float64("near-proposal", sampler.DefaultNearProposal, "for a model that reads the classical proposal: also mask joints farther than this from its bones (cube units, the cube is 2 wide; 0: off)")
	kind := fs.String("kind", "auto", "creature kind of the classical rig's named skeleton: auto, humanoid, quadruped, bird, fish, snake or other")
	up := fs.String("up", "auto", "up axis of the meshes: auto, y or z")
	isolate := fs.Bool("isolate", false, "rig each input in its own worker process, so that a fatal error (out of memory) fails only that input")
	workerItem := fs.String("worker-item", "", "internal to --isolate: rig the one input as a worker, under this output name")
	cp := addCopilotFlags(fs)
	itemTimeout := fs.Duration("item-timeout", autorig.DefaultItemTimeout, "with --isolate: kill an input's worker process still running after this long and report the input failed (0: no limit)")
	eng := engineFlag(fs)
	inputs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if _, err := useEngine(*eng, 0, diag); err != nil {
		return err
	}
	if err := notStdio(*out, "a folder of rigged files and reports"); err != nil {
		return err
	}
	if len(inputs) == 0 || *out == "" {
		return fmt.Errorf("%w: inputs and --out are required", errUsage)
	}
	k, n, err := autorig.ParseShard(*shard)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *skinFlag != "tokens" {
		if _, err := lookupBind(*skinFlag); err != nil {
			return fmt.Errorf("%w: --skin %q: want tokens, geodesic, heat or a blend of the two (heat+geodesic[@ALPHA])", errUsage, *skinFlag)
		}
	}
	if *skinSamples < 1 || *skinSamples > 64 {
		return fmt.Errorf("%w: --skin-samples %d: want 1..64", errUsage, *skinSamples)
	}
	if !(*skinShare >= 0 && *skinShare <= 1) {
		return fmt.Errorf("%w: --skin-share %g: want a share in [0, 1]", errUsage, *skinShare)
	}
	if *votes < 1 || *votes > 64 {
		return fmt.Errorf("%w: --votes %d: want 1..64", errUsage, *votes)
	}
	anat, err := anatomyOptions(*kind, *up)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	rigger, note, err := newRigger(*model, *samples, *skinFlag, *compare, *inside)
	if err != nil {
		return err
	}
	switch r := rigger.(type) {
	case *autorig.ModelRigger:
		r.Anatomy = anat
		r.SkinSamples, r.NearProposal, r.Votes = *skinSamples, *near, *votes
	case autorig.ClassicalRigger:
		r.Anatomy = anat
		rigger = r
	}
	if rigger, err = cp.wrap(rigger, *skinFlag, anat); err != nil {
		return err
	}
	rigger = finishedSkins(rigger, *skinFlag == "tokens", *skinShare, *blocks)
	if note != "" && *workerItem == "" {
		fmt.Fprintln(diag, "rig auto:", note)
	}
	if *workerItem != "" {
		return runAutoWorker(*workerItem, inputs, *out, rigger)
	}
	b := &autorig.Batch{Inputs: inputs, OutDir: *out, Shard: k, Shards: n, Workers: *workers, Rigger: rigger,
		Judge: autorig.Judge{Score: scoreRig, SuspectBelow: autorig.DefaultFloor}, Force: *force, IO: autorig.BatchIO{Load: assets.Options{KeepScene: true}.Loader(), Encode: encodeScene}}
	b.Progress, b.Log = progressOut(*quiet), diag
	if *isolate {
		if b.Isolate.Command, err = autoWorker(fs, *out); err != nil {
			return err
		}
		b.Isolate.Timeout = *itemTimeout
	}
	return runBatch(b, stdout)
}

// finishedSkins wraps rigger with what `rig auto` does to every skin it
// writes: a token skin refined by heat weights at share (when tokens and share
// is under 1), then each rigid block bound to one joint (when blocks).
func finishedSkins(rigger autorig.Rigger, tokens bool, share float64, blocks bool) autorig.Rigger {
	if tokens && share < 1 {
		refined := autorig.RefinedSkin{Rigger: rigger, Dense: sampler.HeatSkin, DenseName: "heat", Share: share, MaxVertices: autorig.DefaultRefineMaxVertices}
		if cp, ok := rigger.(*copilot.Rigger); ok {
			refined.Idle = cp.Idle
		}
		rigger = refined
	}
	if blocks {
		rigger = autorig.RigidBlocks{Rigger: rigger}
	}
	return rigger
}

// runBatch runs a `rig auto` batch and prints its summary line; the error says
// what failed (a usage error for an --out the batch refuses).
func runBatch(b *autorig.Batch, stdout io.Writer) error {
	sum, err := b.Run()
	if errors.Is(err, autorig.ErrOutputFolder) || errors.Is(err, autorig.ErrOutputInInput) {
		return fmt.Errorf("%w: --out: %v", errUsage, err)
	}
	if sum == nil {
		return err
	}
	fmt.Fprintf(stdout, "rigged %d, skipped %d (already done), failed %d of %d in %.1fs; methods %v\n",
		sum.Done, sum.Skipped, sum.Failed, sum.Total, sum.WallS, sum.Methods)
	if err != nil { // every asset was reported on stderr as it failed; the summary file was not
		return fmt.Errorf("%w (rigged %d, failed %d of %d)", err, sum.Done, sum.Failed, sum.Total)
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%d of %d assets failed (see %s)", sum.Failed, sum.Total, b.OutDir)
	}
	return nil
}

// encodeScene encodes a rig as GLB over its input's scene (assets.Encode) and
// returns what the asset's JSON reports under "scene" (nil for a new scene).
func encodeScene(w io.Writer, c *character.Character) (any, error) {
	rep, err := assets.Encode(w, c)
	if rep == nil {
		return nil, err
	}
	return rep, err
}

// anatomyOptions checks `rig auto`'s --kind and --up.
func anatomyOptions(kind, up string) (*anatomy.Options, error) {
	k, err := anatomy.ParseKind(kind)
	if err != nil {
		return nil, fmt.Errorf("--kind: %v", err)
	}
	if up != "auto" && up != "y" && up != "z" {
		return nil, fmt.Errorf("--up %q: want auto, y or z", up)
	}
	return &anatomy.Options{Kind: k, Up: up}, nil
}

// bindMethods are the skinning methods `rig auto --skin` can give every rig, alone
// or blended (lookupBind).
var bindMethods = map[string]skinMethod{"geodesic": skinMethod(sampler.GeodesicSkin), "heat": skinMethod(sampler.HeatSkin)}

// lookupBind returns the binding called name: a bindMethods name or a blend of two
// (lookupSkinMethod).
func lookupBind(name string) (classical.Skinner, error) {
	m, err := lookupSkinMethod(bindMethods, name)
	if err != nil {
		return nil, err
	}
	return classical.Skinner(m), nil
}

// newRigger returns the model rigger, or the classical one (with a note saying so)
// when no model checkpoint is available. skin is "tokens" (the model's skin tokens,
// geodesic weights for rigs without them) or a binding for every rig (lookupBind).
func newRigger(path string, samples int, skin string, compare, inside bool) (autorig.Rigger, string, error) {
	bindName := skin
	if skin == "tokens" {
		bindName = "geodesic"
	}
	bind, err := lookupBind(bindName)
	if err != nil {
		return nil, "", fmt.Errorf("%w: --skin %q: %v", errUsage, skin, err)
	}
	r, note, err := loadModelRigger(path)
	if err != nil {
		if path != "" {
			return nil, "", err
		}
		return autorig.ClassicalRigger{Skin: bind, SkinName: bindName},
			fmt.Sprintf("no usable model (%v): every rig is classical-skeleton+%s", err, bindName), nil
	}
	r.Samples, r.CompareClassical, r.InsideJoints = samples, compare, inside
	r.Bind, r.BindName = bind, bindName
	if skin != "tokens" {
		r.SkinMode = sampler.SkinFromBind
		note = fmt.Sprintf("--skin %s: the model writes the skeleton, skins are %s", skin, skin)
	}
	return r, note, nil
}

// loadModelRigger loads the model (a file, or the shipped one for "") and the skin
// tokenizer when one is trained.
func loadModelRigger(path string) (*autorig.ModelRigger, string, error) {
	var m *rigmodel.Model
	var st *rigmodel.TrainState
	var err error
	if path == "" {
		m, st, err = rigmodel.DefaultModel()
	} else {
		m, st, err = rigmodel.LoadCheckpointFile(path)
	}
	if err != nil {
		return nil, "", err
	}
	r := &autorig.ModelRigger{Draw: sampler.Draw{Samples: 1, Temperature: 1, TopP: 0.95}, Floor: autorig.DefaultFloor}
	r.Model, r.InsideJoints, r.Seed, r.Propose = m, true, 1, autorig.ClassicalProposal
	r.NearProposal, r.Votes = sampler.DefaultNearProposal, sampler.DefaultVotes
	if st.SkinTokens {
		r.SkinMode = sampler.SkinFromTokens
	}
	note := ""
	if tok, err := sampler.SkinTokenizerFor(st); err == nil {
		r.Skin = tok
	} else {
		note = fmt.Sprintf("%v: skins are geodesic", err)
	}
	return r, note, nil
}

// scoreRig scores a rig for its report with the rewards' defaults.
func scoreRig(c *character.Character) (float64, any, error) {
	rep, err := rewards.Score(c, rewards.Options{Motion: animation.ClipPoses})
	if err != nil {
		return 0, nil, err
	}
	return rep.Score, rep, nil
}

func init() {
	// Registered only when the shipped model writes skin tokens, so that `rig skin`
	// never labels geodesic weights as "tokens".
	if st, err := rigmodel.ShippedState(); err == nil && st.SkinTokens {
		skinMethods["tokens"] = tokensSkin(skinSampling{Samples: sampler.DefaultSkinSamples})
		skinMethods["tokens-greedy"] = tokensSkin(skinSampling{Samples: 1})
	}
}

// tokensSkin is `rig skin --method tokens`: the shipped model writes the skin tokens
// of the input's own skeleton (samples streams, their decoded weights averaged; 1:
// the greedy stream alone) and the skin tokenizer decodes them.
// skinSampling is how skin-token streams are drawn: Samples streams (the first
// greedy) whose decoded weights are averaged, the others at Temperature (0: 1).
type skinSampling struct {
	Samples     int
	Temperature float64
}

func tokensSkin(s skinSampling) skinMethod {
	return func(c *character.Character) (*character.Skin, error) {
		fn, err := modelTokensSkin("", s)
		if err != nil {
			return nil, err
		}
		return fn(c)
	}
}

// modelTokensSkin loads the model at path ("": the shipped one) and returns its
// skin-only method with samples streams.
func modelTokensSkin(path string, s skinSampling) (skinMethod, error) {
	r, note, err := loadModelRigger(path)
	if err != nil {
		return nil, err
	}
	if !r.WritesSkin() {
		return nil, fmt.Errorf("skin tokens unavailable: %s (use --method geodesic)", note)
	}
	r.SkinSamples, r.SkinTemperature = s.Samples, s.Temperature
	return r.SkinOnly, nil
}

// autoHelp is the part of `rig help auto` that the flags do not say.
const autoHelp = `
Inputs are mesh files (.glb, .gltf, .obj with its .mtl and textures), folders
(searched recursively; other files are skipped and listed on stderr and in the
summary, with the reason) or manifests (.jsonl with a "file" field per row, or
.txt with one path per line). Any other file is an error. FBX, COLLADA (.dae)
and .blend files are refused with the Blender and assimp commands that convert
them to GLB.

For each input, DIR/<name>.glb is the rigged character and DIR/<name>.json its
report (status, method, score, timings); DIR/summary-<k>-of-<n>.json sums up a
shard. Finished inputs are skipped on the next run (--force re-rigs them), so
a killed run resumes. --shard k/n splits the inputs over n processes writing to
one DIR; --shard auto/n takes k from a Kubernetes Indexed Job or a Slurm array
(deploy/ has both).

The summary line goes to stdout; progress, skipped files and failures go to
stderr. Exit status 1 when any input failed (the others are written).`
