package skincodec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/tokens"
)

// TrainOptions configures TrainSkinTokenizer. The fields that name the run stay at
// the top; the batch's shape and the schedule come as groups.
type TrainOptions struct {
	// Data lists folders (searched recursively for .glb/.gltf) or files of rigged
	// characters. Files are split into train and validation by creature family.
	Data []string
	// Extra are additional rigged training characters (e.g. synthetic creatures), in
	// world space; they go to the train split unless ExtraVal marks them.
	Extra    []*character.Character
	ExtraVal []bool
	// Out is the checkpoint path; the training state is written beside it
	// (Out+".state.json"), the best checkpoint by validation loss to BestPath(Out)
	// and the loss curves to Out+".loss.png" (through Plot).
	Out      string
	Resume   bool // continue from Out and its state file
	Seed     int64
	Config   CVAEConfig
	Batch    TrainBatch
	Schedule TrainSchedule
	// Progress receives a progress bar (carriage returns) and log lines; nil for none.
	Progress io.Writer
	// Plot draws the loss curves to Out+".loss.png" at each checkpoint (cmd/rig
	// plots them); nil draws nothing.
	Plot func(path string, st *TrainState) error
}

// TrainBatch is the shape of one batch: Chars characters, BonesPerChar bones of
// each, Queries query points per bone. The decoder's cost is their product.
type TrainBatch struct {
	Chars, BonesPerChar, Queries int
}

// TrainSchedule is the optimizer's schedule and the loop's cadence: Steps
// optimizer steps at peak learning rate LR, a validation every ValEvery steps and a
// checkpoint every CkptEvery steps or CkptInterval of time, whichever comes first.
type TrainSchedule struct {
	Steps               int // total optimizer steps
	LR                  float64
	ValEvery, CkptEvery int // in steps
	CkptInterval        time.Duration
}

// DefaultTrainOptions returns the settings used for the shipped checkpoint.
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{Seed: 1, Config: DefaultCVAEConfig(),
		Batch:    TrainBatch{Chars: 4, BonesPerChar: 8, Queries: 128},
		Schedule: TrainSchedule{Steps: 16000, LR: 2e-3, ValEvery: 250, CkptEvery: 500, CkptInterval: 3 * time.Minute}}
}

// BestPath is where TrainSkinTokenizer writes the checkpoint with the lowest
// validation loss for a run whose checkpoint is out.
func BestPath(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".best" + ext
}

// TrainState is the resumable state written beside a checkpoint.
type TrainState struct {
	Step    int     `json:"step"`
	WallSec float64 `json:"wall_seconds"`
	TrainCurves
	TrainData
	Options struct {
		Chars, BonesPerChar, Queries int
		LR                           float64
		Steps                        int
	} `json:"options"`
}

// TrainCurves are a run's loss curves and its best validation so far, which pick
// the best checkpoint and draw the loss plot.
type TrainCurves struct {
	TrainLoss []float64 `json:"train_loss"` // mean per log interval
	TrainStep []int     `json:"train_step"`
	ValLoss   []float64 `json:"val_loss"`
	ValL1     []float64 `json:"val_l1"`
	ValStep   []int     `json:"val_step"`
	BestVal   float64   `json:"best_val"`
	BestStep  int       `json:"best_step"`
}

// TrainData describes what a run trains on, for the shipped checkpoint's facts.
type TrainData struct {
	TrainFiles []string `json:"train_files"`
	ValFiles   []string `json:"val_files"`
	Extra      int      `json:"extra_characters"`
	Bones      int      `json:"train_bones"`
}

// trainChar is a prepared character with the joints worth sampling.
type trainChar struct {
	p        *prepared
	weighted []int // joints with positive weight somewhere
	name     string
}

func loadTrainChars(files []dataset.File, seed int64, geodesic bool, log func(string, ...any)) ([]*trainChar, []string) {
	var out []*trainChar
	var names []string
	for i, f := range files {
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			log("skip %s: %v", f.Path, err)
			continue
		}
		tc, err := newTrainChar(c, seed+int64(i), geodesic)
		if err != nil {
			log("skip %s: %v", f.Path, err)
			continue
		}
		tc.name = f.Path
		out = append(out, tc)
		names = append(names, f.Path)
	}
	return out, names
}

func newTrainChar(c *character.Character, seed int64, geodesic bool) (*trainChar, error) {
	if !c.Rigged() {
		return nil, errors.New("not rigged")
	}
	if c.Skeleton.NumJoints() > tokens.MaxJoints {
		return nil, fmt.Errorf("%d joints", c.Skeleton.NumJoints())
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	p, err := prepare(nc, seed, geodesic, nil)
	if err != nil {
		return nil, err
	}
	tc := &trainChar{p: p, name: c.Name}
	for j := 0; j < p.nJ; j++ {
		if len(p.posV[j]) > 0 {
			tc.weighted = append(tc.weighted, j)
		}
	}
	if len(tc.weighted) == 0 {
		return nil, errors.New("no weighted joint")
	}
	return tc, nil
}

// makeBatch draws a batch: chars characters, bones joints each (mostly joints with
// weight), queries vertices per bone (half where the bone has weight). augment
// applies a random rotation about +Y and a random mirror in X per character.
func makeBatch(rng *rand.Rand, set []*trainChar, chars, bones, queries int, augment bool) *batch[float32] {
	B := chars * bones
	qd := set[0].p.qd
	ed := qd + 2
	bt := &batch[float32]{B: B, Bc: chars, Nq: queries,
		enc: make([]float32, B*encPoints*ed), bone: make([]float32, B*boneFeatures),
		mesh: make([]float32, chars*meshPoints*meshFeatures), meshOf: make([]int, B),
		qry: make([]float32, B*queries*qd), target: make([]float32, B*queries), lossW: make([]float32, B*queries)}
	for ci := 0; ci < chars; ci++ {
		tc := set[rng.Intn(len(set))]
		p := tc.p
		copy(bt.mesh[ci*meshPoints*meshFeatures:], p.mesh)
		rot := identity3
		if augment {
			rot = rotY(rng.Float64() * 2 * math.Pi)
			if rng.Intn(2) == 0 {
				rot = rot.mul(mirrorX)
			}
			transformRows(bt.mesh[ci*meshPoints*meshFeatures:(ci+1)*meshPoints*meshFeatures], meshFeatures, 2, rot)
		}
		V := len(p.c.Mesh.Positions)
		dists := p.vertexDists()
		for k := 0; k < bones; k++ {
			b := ci*bones + k
			bt.meshOf[b] = ci
			j := rng.Intn(p.nJ)
			if rng.Float64() < 0.8 {
				j = tc.weighted[rng.Intn(len(tc.weighted))]
			}
			enc := bt.enc[b*encPoints*ed : (b+1)*encPoints*ed]
			p.encoderInput(j, rng, enc)
			bone := bt.bone[b*boneFeatures : (b+1)*boneFeatures]
			p.geo.boneVec(j, bone)
			qry := bt.qry[b*queries*qd : (b+1)*queries*qd]
			pos := p.posV[j]
			for q := 0; q < queries; q++ {
				v := rng.Intn(V)
				if q%2 == 0 && len(pos) > 0 {
					v = int(pos[rng.Intn(len(pos))])
				}
				p.queryVec(j, v, dists[v*p.nJ:(v+1)*p.nJ], qry[q*qd:(q+1)*qd])
				w := weightOf(p.c.Skin.Weights[v], j)
				bt.target[b*queries+q] = w
				bt.lossW[b*queries+q] = 1 + b2f(w > 0)
			}
			if augment {
				transformRows(enc, ed, 4, rot)
				transformRows(bone, boneFeatures, 3, rot)
				transformRows(qry, qd, 4, rot)
			}
		}
	}
	return bt
}

// mat3 is a row-major 3×3 matrix.
type mat3 [9]float64

var (
	identity3 = mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}
	mirrorX   = mat3{-1, 0, 0, 0, 1, 0, 0, 0, 1}
)

func rotY(a float64) mat3 {
	c, s := math.Cos(a), math.Sin(a)
	return mat3{c, 0, s, 0, 1, 0, -s, 0, c}
}

func (a mat3) mul(b mat3) mat3 {
	var o mat3
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			for k := 0; k < 3; k++ {
				o[r*3+c] += a[r*3+k] * b[k*3+c]
			}
		}
	}
	return o
}

// transformRows applies m to the first nvec 3-vectors of every row of width w.
func transformRows(x []float32, w, nvec int, m mat3) {
	for r := 0; r+w <= len(x); r += w {
		for v := 0; v < nvec; v++ {
			p := x[r+3*v : r+3*v+3]
			a, b, c := float64(p[0]), float64(p[1]), float64(p[2])
			p[0] = float32(m[0]*a + m[1]*b + m[2]*c)
			p[1] = float32(m[3]*a + m[4]*b + m[5]*c)
			p[2] = float32(m[6]*a + m[7]*b + m[8]*c)
		}
	}
}

// valBatchCount is the number of fixed validation batches (8 gave a validation loss
// that moved by ±0.02 between evaluations).
const valBatchCount = 16

// skinTrainData is the skin tokenizer's training and validation characters.
type skinTrainData struct {
	train, val           []*trainChar
	trainNames, valNames []string
	bones                int // bones of the training characters
}

// loadSkinTrainData loads the data files split by family (dataset.Split) and the extra
// characters, split by ExtraVal.
func loadSkinTrainData(opt TrainOptions, logf func(string, ...any)) (*skinTrainData, error) {
	files, err := dataset.Discover(opt.Data)
	if err != nil {
		return nil, fmt.Errorf("train skin tokenizer: %w", err)
	}
	trainF, valF := dataset.Split(files)
	geo := opt.Config.Geodesic > 0
	d := &skinTrainData{}
	d.train, d.trainNames = loadTrainChars(trainF, opt.Seed, geo, logf)
	d.val, d.valNames = loadTrainChars(valF, opt.Seed+100000, geo, logf)
	for i, c := range opt.Extra {
		tc, err := newTrainChar(c, opt.Seed+200000+int64(i), geo)
		if err != nil {
			logf("skip extra %q: %v", c.Name, err)
			continue
		}
		if i < len(opt.ExtraVal) && opt.ExtraVal[i] {
			d.val = append(d.val, tc)
		} else {
			d.train = append(d.train, tc)
		}
	}
	if len(d.train) == 0 || len(d.val) == 0 {
		return nil, fmt.Errorf("train skin tokenizer: %d train and %d validation characters; need both", len(d.train), len(d.val))
	}
	for _, tc := range d.train {
		d.bones += tc.p.nJ
	}
	logf("data: %d train characters (%d bones), %d validation characters", len(d.train), d.bones, len(d.val))
	return d, nil
}

// resumeSkinTokenizer returns a new tokenizer and state, or with Resume the
// checkpoint at Out and its state file when they exist.
func resumeSkinTokenizer(opt TrainOptions, logf func(string, ...any)) (*SkinTokenizer, *TrainState, error) {
	tok, err := NewSkinTokenizer(opt.Config, uint64(opt.Seed))
	if err != nil {
		return nil, nil, err
	}
	// No validation yet: the largest finite float, since JSON cannot hold +Inf (a run
	// stopped before its first validation must still leave a resumable state file).
	st := &TrainState{TrainCurves: TrainCurves{BestVal: math.MaxFloat64, BestStep: -1}}
	if !opt.Resume {
		return tok, st, nil
	}
	t, err := Load(opt.Out)
	if errors.Is(err, fs.ErrNotExist) {
		return tok, st, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("train skin tokenizer: resume: %w", err)
	}
	sb, err := os.ReadFile(opt.Out + ".state.json")
	if err != nil {
		return nil, nil, fmt.Errorf("train skin tokenizer: resume: %w", err)
	}
	if err := json.Unmarshal(sb, st); err != nil {
		return nil, nil, fmt.Errorf("train skin tokenizer: resume %s.state.json: %w", opt.Out, err)
	}
	if geo := opt.Config.Geodesic > 0; (t.Config.Geodesic > 0) != geo {
		return nil, nil, fmt.Errorf("train skin tokenizer: resume %s: its geodesic prior is %g, the options ask for %g", opt.Out, t.Config.Geodesic, opt.Config.Geodesic)
	}
	logf("resumed from %s at step %d", opt.Out, st.Step)
	return t, st, nil
}

// skinLR is the learning rate at step: a linear warm-up over warm steps, then a
// cosine from peak down to 5% of it at the last step.
func skinLR(peak float64, step, warm, steps int) float64 {
	if step < warm {
		return peak * float64(step+1) / float64(warm)
	}
	frac := float64(step-warm) / float64(max(1, steps-warm))
	return peak*0.05 + 0.5*(peak*0.95)*(1+math.Cos(math.Pi*math.Min(1, frac)))
}

// skinOptimizer returns the run's AdamW; a resumed run (st.Step > 0) restores the
// moments and step count saved beside the checkpoint, so that it continues as if
// it had not stopped.
func skinOptimizer(tok *SkinTokenizer, st *TrainState, opt TrainOptions, logf func(string, ...any)) (*nn.AdamW[float32], error) {
	optim := nn.NewAdamW[float32](opt.Schedule.LR)
	optim.WeightDecay = 0.01
	if st.Step == 0 {
		return optim, nil
	}
	restored, err := optim.RestoreBeside(opt.Out, tok.master.Params())
	if err != nil {
		return nil, fmt.Errorf("train skin tokenizer: resume: %w", err)
	}
	if restored {
		logf("optimizer state restored at step %d", optim.Steps())
	}
	return optim, nil
}

// saveSkinRun writes the checkpoint, its optimizer state, the state file and (through Plot) the loss
// curves of a skin tokenizer run.
func saveSkinRun(tok *SkinTokenizer, optim *nn.AdamW[float32], st *TrainState, opt TrainOptions, logf func(string, ...any)) error {
	if err := tok.Save(opt.Out); err != nil {
		return err
	}
	if err := optim.SaveStateFile(nn.OptimizerStatePath(opt.Out), tok.master.Params()); err != nil {
		return err
	}
	sb, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return fmt.Errorf("train skin tokenizer: state: %w", err)
	}
	if err := atomicfile.WriteFile(opt.Out+".state.json", sb); err != nil {
		return err
	}
	if opt.Plot != nil {
		if err := opt.Plot(opt.Out+".loss.png", st); err != nil {
			logf("plot: %v", err)
		}
	}
	return nil
}

// validateSkin records the validation loss over the fixed batches and saves the
// best checkpoint beside out.
func validateSkin(tok *SkinTokenizer, st *TrainState, valBatches []*batch[float32], out string, logf func(string, ...any)) {
	m := tok.master
	var loss, l1 float64
	for _, vb := range valBatches {
		s := m.step(vb, false)
		loss += s.Loss
		l1 += s.L1
	}
	loss /= float64(len(valBatches))
	l1 /= float64(len(valBatches))
	st.ValLoss, st.ValL1, st.ValStep = append(st.ValLoss, loss), append(st.ValL1, l1), append(st.ValStep, st.Step)
	if loss < st.BestVal {
		st.BestVal, st.BestStep = loss, st.Step
		if err := tok.Save(BestPath(out)); err != nil {
			logf("save best: %v", err)
		}
	}
	logf("step %d: val loss %.4f (weighted L1 %.4f), best %.4f at %d", st.Step, loss, l1, st.BestVal, st.BestStep)
}

// TrainSkinTokenizer trains (or resumes training) the skin tokenizer and writes
// checkpoints, the training state and loss curves as it goes. It returns when
// Steps are done or ctx is cancelled (after a final checkpoint).
func TrainSkinTokenizer(ctx context.Context, opt TrainOptions) (*TrainState, error) {
	if opt.Out == "" {
		return nil, errors.New("train skin tokenizer: no output path")
	}
	// Before any work: the checkpoints, state and plot go beside Out.
	if err := os.MkdirAll(filepath.Dir(opt.Out), 0o755); err != nil {
		return nil, fmt.Errorf("train skin tokenizer: %w", err)
	}
	logw := opt.Progress
	if logw == nil {
		logw = io.Discard
	}
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "\r\033[K"+format+"\n", args...) }

	d, err := loadSkinTrainData(opt, logf)
	if err != nil {
		return nil, err
	}
	train, val, trainNames, valNames, bones := d.train, d.val, d.trainNames, d.valNames, d.bones
	tok, st, err := resumeSkinTokenizer(opt, logf)
	if err != nil {
		return nil, err
	}
	st.TrainFiles, st.ValFiles, st.Extra, st.Bones = trainNames, valNames, len(opt.Extra), bones
	st.Options.Chars, st.Options.BonesPerChar, st.Options.Queries, st.Options.LR, st.Options.Steps = opt.Batch.Chars, opt.Batch.BonesPerChar, opt.Batch.Queries, opt.Schedule.LR, opt.Schedule.Steps
	m := tok.master
	params := m.Params()
	optim, err := skinOptimizer(tok, st, opt, logf)
	if err != nil {
		return nil, err
	}
	warm := 200

	valRng := rand.New(rand.NewSource(opt.Seed + 7))
	var valBatches []*batch[float32]
	for i := 0; i < valBatchCount; i++ {
		valBatches = append(valBatches, makeBatch(valRng, val, opt.Batch.Chars, opt.Batch.BonesPerChar, opt.Batch.Queries, false))
	}
	rng := rand.New(rand.NewSource(opt.Seed + int64(st.Step)*1000003))

	save := func() error { return saveSkinRun(tok, optim, st, opt, logf) }
	validate := func() { validateSkin(tok, st, valBatches, opt.Out, logf) }

	start := time.Now()
	startStep := st.Step
	bar := progress.New(logw, fmt.Sprintf("train skin tokenizer (from step %d)", startStep), opt.Schedule.Steps-startStep)
	wall0 := st.WallSec
	lastCkpt := time.Now()
	var acc float64
	var accN int
	for st.Step < opt.Schedule.Steps {
		if ctx.Err() != nil {
			break
		}
		lr := skinLR(opt.Schedule.LR, st.Step, warm, opt.Schedule.Steps)
		optim.LR = lr
		bt := makeBatch(rng, train, opt.Batch.Chars, opt.Batch.BonesPerChar, opt.Batch.Queries, true)
		nn.ZeroGrad[float32](m)
		s := m.step(bt, true)
		nn.ClipGradNorm(params, 1.0)
		optim.Step(params)
		st.Step++
		acc += s.Loss
		accN++
		st.WallSec = wall0 + time.Since(start).Seconds()
		if st.Step%10 == 0 {
			bar.Set(st.Step-startStep, fmt.Sprintf("loss %.4f lr %.2g", acc/float64(accN), lr))
		}
		if st.Step%50 == 0 {
			st.TrainLoss, st.TrainStep = append(st.TrainLoss, acc/float64(accN)), append(st.TrainStep, st.Step)
			acc, accN = 0, 0
		}
		if st.Step%opt.Schedule.ValEvery == 0 || st.Step == opt.Schedule.Steps {
			validate()
		}
		if st.Step%opt.Schedule.CkptEvery == 0 || time.Since(lastCkpt) > opt.Schedule.CkptInterval || st.Step == opt.Schedule.Steps {
			if err := save(); err != nil {
				return st, fmt.Errorf("train skin tokenizer: %w", err)
			}
			lastCkpt = time.Now()
		}
	}
	if err := save(); err != nil {
		return st, fmt.Errorf("train skin tokenizer: %w", err)
	}
	bar.Finish()
	return st, ctx.Err()
}

// ShipFacts describes a shipped checkpoint: how it was trained and on what. It is
// written as one flat JSON object beside the checkpoint.
type ShipFacts struct {
	Source      string  `json:"source"`
	Step        int     `json:"step"`
	TotalSteps  int     `json:"run_steps_so_far"`
	WallSeconds float64 `json:"wall_seconds_to_step"`
	ValLoss     float64 `json:"val_loss"`
	DecodeSettings
	shipTraining
	shipNetwork
}

// shipTraining is what a shipped checkpoint was trained on, and how.
type shipTraining struct {
	TrainFiles  int      `json:"train_files"`
	ValFiles    int      `json:"val_files"`
	Synthetic   int      `json:"synthetic_characters"`
	TrainBones  int      `json:"train_bones"`
	Batch       string   `json:"batch"`
	Command     string   `json:"command"`
	Data        []string `json:"data"`
	Attribution string   `json:"attribution"`
}

// shipNetwork is the size of a shipped checkpoint's network and of its codes.
type shipNetwork struct {
	Parameters     int     `json:"parameters"`
	K              int     `json:"k"`
	Levels         []int   `json:"levels"`
	BitsPerJoint   float64 `json:"bits_per_joint"`
	VocabularySize int     `json:"vocabulary_size"`
}

// ExportCheckpoint copies a checkpoint from a training run (src, e.g. BestPath(out))
// to dst with the decode settings ds, and writes dst's facts (dst without its
// extension + ".json") from the run's state file (runOut+".state.json").
func ExportCheckpoint(src, runOut, dst string, ds DecodeSettings) (*ShipFacts, error) {
	tok, err := Load(src)
	if err != nil {
		return nil, err
	}
	tok.settings = ds
	sb, err := os.ReadFile(runOut + ".state.json")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var st TrainState
	if err := json.Unmarshal(sb, &st); err != nil {
		return nil, fmt.Errorf("export %s.state.json: %w", runOut, err)
	}
	step, valLoss := st.Step, math.NaN()
	if src == BestPath(runOut) && st.BestStep >= 0 {
		step, valLoss = st.BestStep, st.BestVal
	}
	for i, s := range st.ValStep {
		if s == step && i < len(st.ValLoss) {
			valLoss = st.ValLoss[i]
		}
	}
	if math.IsNaN(valLoss) {
		return nil, fmt.Errorf("export %s: no validation loss recorded at step %d in %s.state.json", src, step, runOut)
	}
	f := &ShipFacts{Source: src, Step: step, TotalSteps: st.Step, WallSeconds: st.WallSec * float64(step) / float64(max(1, st.Step)),
		ValLoss: valLoss, DecodeSettings: ds,
		shipTraining: shipTraining{TrainFiles: len(st.TrainFiles), ValFiles: len(st.ValFiles), Synthetic: st.Extra, TrainBones: st.Bones,
			Batch: fmt.Sprintf("%d characters × %d bones × %d query vertices", st.Options.Chars, st.Options.BonesPerChar, st.Options.Queries),
			Command: fmt.Sprintf("rig train-tokenizer --data ../shared/data --synth %d --d %d --blocks %d --k %d --out skin.safetensors --steps %d (one thread)",
				st.Extra, tok.Config.D, tok.Config.Blocks, tok.Config.K, st.Options.Steps),
			Data:        []string{"../shared/data (train split by creature family)", "synth creatures"},
			Attribution: dataset.Attribution},
		shipNetwork: shipNetwork{Parameters: nn.NumParams[float32](tok.master), K: tok.Config.K, Levels: tok.Config.Levels,
			BitsPerJoint: tokens.SkinBitsPerJoint(tok.K()), VocabularySize: tokens.VocabSize}}
	if err := tok.Save(dst); err != nil {
		return nil, err
	}
	fj, _ := json.MarshalIndent(f, "", "  ")
	facts := strings.TrimSuffix(dst, filepath.Ext(dst)) + ".json"
	if err := atomicfile.WriteFile(facts, append(fj, '\n')); err != nil {
		return nil, err
	}
	return f, nil
}
