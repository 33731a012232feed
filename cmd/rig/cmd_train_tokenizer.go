package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

func init() {
	register(&command{
		name:    "train-tokenizer",
		usage:   "--data DIR [--data DIR...] --out CKPT [--steps N] [--resume] [--synth N] [--threads N] | --export CKPT --run OUT --out DST [--threshold T]",
		summary: "train the skin tokenizer (FSQ-CVAE) on rigged characters",
		run:     runTrainTokenizer,
	})
}

// tokDataFlags collects a repeatable string flag.
type tokDataFlags []string

func (m *tokDataFlags) String() string     { return strings.Join(*m, ",") }
func (m *tokDataFlags) Set(v string) error { *m = append(*m, v); return nil }

func runTrainTokenizer(args []string, stdout io.Writer) error {
	fs := newFlags("train-tokenizer")
	def := skincodec.DefaultTrainOptions()
	var data tokDataFlags
	fs.Var(&data, "data", "folder or file of rigged characters (repeatable); split train/validation by creature family")
	out := fs.String("out", "", "checkpoint to write (safetensors); state, best checkpoint and loss PNG go beside it")
	steps := fs.Int("steps", def.Schedule.Steps, "total optimizer steps")
	resume := fs.Bool("resume", false, "continue from --out and its .state.json")
	nSynth := fs.Int("synth", 0, "add this many synthetic creatures (synth, all kinds; one in five held out)")
	threads := fs.Int("threads", 1, "compute threads")
	lr := fs.Float64("lr", def.Schedule.LR, "peak learning rate")
	seed := fs.Int64("seed", def.Seed, "random seed")
	prior := fs.Float64("prior", def.Config.Prior, "rigid prior strength on the decoder's logits (new runs only)")
	geodesic := fs.Float64("geodesic", def.Config.Geodesic, "geodesic-binding prior strength and features (0: none; new runs only)")
	width := fs.Int("d", def.Config.D, "network width (new runs only)")
	blocks := fs.Int("blocks", def.Config.Blocks, "decoder cross-attention blocks (new runs only)")
	codes := fs.Int("k", def.Config.K, fmt.Sprintf("skin codes per bone, 1..%d (new runs only)", tokens.MaxK))
	export := fs.String("export", "", "instead of training, copy this run checkpoint (and facts from --run's state) to --out with --threshold")
	run := fs.String("run", "", "with --export: the run's --out path (its .state.json is read)")
	threshold := fs.Float64("threshold", 0.05, "with --export: pruning threshold stored in the checkpoint")
	sharpen := fs.Float64("sharpen", 0, "with --export: power the decoded weights are raised to before pruning (0: none)")
	odds := fs.Float64("odds", 0, "with --export: each decoded weight p is also divided by (1-p) to this power before pruning (0: none)")
	snap := fs.Float64("snap", 0, "with --export: bind a small mesh piece wholly to one bone when this share of its vertices decode to it (0: never; at most 1)")
	quiet := fs.Bool("quiet", false, "no progress bar or log lines on stderr")
	eng := engineFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *export != "" {
		if *run == "" || *out == "" {
			return fmt.Errorf("%w: --export needs --run and --out", errUsage)
		}
		if !(*snap >= 0 && *snap <= 1) {
			return fmt.Errorf("%w: --snap %g is not a share in [0, 1]", errUsage, *snap)
		}
		if !(*odds >= 0 && *odds <= 16) || !(*sharpen >= 0 && *sharpen <= 16) {
			return fmt.Errorf("%w: --sharpen %g and --odds %g must be powers in [0, 16]", errUsage, *sharpen, *odds)
		}
		f, err := skincodec.ExportCheckpoint(*export, *run, *out, skincodec.DecodeSettings{Threshold: *threshold, Sharpen: *sharpen, OddsPower: *odds, SnapShare: *snap})
		if err != nil {
			return fmt.Errorf("train-tokenizer: %w", err)
		}
		fmt.Fprintf(stdout, "exported step %d (validation loss %.4f, threshold %.2f, sharpen %.2g, odds %.2g, snap %.2g) to %s\n", f.Step, f.ValLoss, f.Threshold, f.Sharpen, f.OddsPower, f.SnapShare, *out)
		return nil
	}
	data = append(data, pos...)
	if err := notStdio(*out, "a checkpoint with its state beside it"); err != nil {
		return err
	}
	if len(data) == 0 || *out == "" {
		return fmt.Errorf("%w: need --data and --out", errUsage)
	}
	if *steps <= 0 || *threads <= 0 {
		return fmt.Errorf("%w: --steps and --threads must be positive", errUsage)
	}
	runtime.GOMAXPROCS(*threads)
	if _, err := useEngine(*eng, *threads, diag); err != nil {
		return err
	}

	opt := def
	opt.Data, opt.Out, opt.Resume, opt.Seed = data, *out, *resume, *seed
	opt.Schedule.Steps, opt.Schedule.LR = *steps, *lr
	opt.Progress = progressOut(*quiet)
	opt.Config.Prior, opt.Config.Geodesic = *prior, *geodesic
	opt.Config.D, opt.Config.Blocks, opt.Config.Hidden, opt.Config.K = *width, *blocks, 2**width, *codes
	if err := opt.Config.Validate(); err != nil { // before any data is read
		return fmt.Errorf("%w: --d, --blocks, --k: %v", errUsage, err)
	}
	kinds := synth.Kinds()
	for i := 0; i < *nSynth; i++ {
		kind := kinds[i%len(kinds)]
		s := int64(i/len(kinds) + 1)
		c, err := synth.Generate(kind, s, synth.Options{TargetVertices: 2000, Noise: i%3 == 1, Posed: i%4 == 3})
		if err != nil {
			fmt.Fprintf(diag, "synth %s %d: %v\n", kind, s, err)
			continue
		}
		c.Name = fmt.Sprintf("synth/%s_%d", kind, s)
		opt.Extra = append(opt.Extra, c)
		opt.ExtraVal = append(opt.ExtraVal, s%5 == 0)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt.Plot = plotTokenizerLoss
	st, err := skincodec.TrainSkinTokenizer(ctx, opt)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("train-tokenizer: %w", err)
	}
	fmt.Fprintf(stdout, "step %d, %.0f s, best validation loss %.4f at step %d\ncheckpoint %s, best %s\n",
		st.Step, st.WallSec, st.BestVal, st.BestStep, *out, skincodec.BestPath(*out))
	return nil
}
