package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/synth"
)

// The skin tokenizer's round trip (`rig eval --task tokenizer`): every held-out
// file's skin is encoded into codes and decoded back on its own skeleton, and
// scored against the artist's weights beside the rigid floor (docs/tokenizer.md).
// With --tune it sweeps the decode settings on training files instead.

func init() {
	evalTasks["tokenizer"] = evalTokenizer
}

// tokenizerEval holds the tokenizer task's flags.
type tokenizerEval struct {
	Tune       bool
	Checkpoint string
	Ablate     bool
	// Comma-separated decode settings: one value each for the report, lists to
	// sweep with --tune; empty keeps the checkpoint's own.
	Threshold, Sharpen, Odds, Snap string
	Refine, Mine                   int // -1 keeps the checkpoint's own
}

func (o *tokenizerEval) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Tune, "tune", false, "tokenizer task: sweep the decode settings on training files instead of the round-trip report")
	fs.StringVar(&o.Checkpoint, "checkpoint", "", "tokenizer task: skin-tokenizer checkpoint (default: the shipped one)")
	fs.BoolVar(&o.Ablate, "ablate", false, "tokenizer task: also decode every bone from one constant code list (how much the codes matter)")
	fs.StringVar(&o.Threshold, "threshold", "", "tokenizer task: pruning threshold (with --tune a comma-separated list; default 0.02..0.5)")
	fs.StringVar(&o.Sharpen, "sharpen", "", "tokenizer task: sharpening power (with --tune a list)")
	fs.StringVar(&o.Odds, "odds", "", "tokenizer task: odds power (with --tune a list)")
	fs.StringVar(&o.Snap, "snap", "", "tokenizer task: snap share (with --tune a list)")
	fs.IntVar(&o.Refine, "refine", -1, "tokenizer task: code-refinement rounds (-1: the checkpoint's)")
	fs.IntVar(&o.Mine, "mine", -1, "tokenizer task: code-mining passes (-1: the checkpoint's)")
}

// decodeFlag is one decode setting's flag: its values and allowed range.
type decodeFlag struct {
	name, value string
	lo, hi      float64
	own         float64
	def         []float64 // the sweep's values when the flag is empty
}

// values parses the flag's comma-separated list.
func (d decodeFlag) values() ([]float64, error) {
	if d.value == "" {
		if d.def != nil {
			return d.def, nil
		}
		return []float64{d.own}, nil
	}
	var out []float64
	for _, f := range strings.Split(d.value, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= d.lo && v <= d.hi) {
			return nil, fmt.Errorf("%w: --%s %q: want numbers in [%g, %g]", errUsage, d.name, d.value, d.lo, d.hi)
		}
		out = append(out, v)
	}
	return out, nil
}

// load returns the tokenizer (the checkpoint or the shipped one), the options the
// flags ask for and the decode settings to sweep (sharpen, odds, threshold, snap).
func (o *tokenizerEval) load() (*skincodec.SkinTokenizer, skincodec.Options, [4][]float64, error) {
	var grid [4][]float64
	tok, err := skincodec.Load("")
	if o.Checkpoint != "" {
		tok, err = skincodec.Load(o.Checkpoint)
	}
	if err != nil {
		return nil, skincodec.Options{}, grid, err
	}
	opt := tok.Options()
	var thresholds []float64
	if o.Tune {
		thresholds = skincodec.TuneThresholds
	}
	for i, d := range []decodeFlag{
		{"sharpen", o.Sharpen, 0, 16, opt.Sharpen, nil},
		{"odds", o.Odds, 0, 16, opt.OddsPower, nil},
		{"threshold", o.Threshold, 0, 0.999, opt.Threshold, thresholds},
		{"snap", o.Snap, 0, 1, opt.SnapShare, nil},
	} {
		if grid[i], err = d.values(); err != nil {
			return nil, opt, grid, err
		}
		if !o.Tune && len(grid[i]) != 1 {
			return nil, opt, grid, fmt.Errorf("%w: --%s takes one value without --tune", errUsage, d.name)
		}
	}
	opt.Sharpen, opt.OddsPower, opt.Threshold, opt.SnapShare = grid[0][0], grid[1][0], grid[2][0], grid[3][0]
	if o.Refine >= 0 {
		opt.RefineRounds = o.Refine
	}
	if o.Mine >= 0 {
		opt.MinePasses = o.Mine
	}
	return tok, opt, grid, nil
}

func evalTokenizer(cfg evalConfig, stdout io.Writer) error {
	tok, opt, grid, err := cfg.Task.Tokenizer.load()
	if err != nil {
		return err
	}
	if cfg.Task.Tokenizer.Tune {
		return tuneTokenizer(cfg, tok, opt, skincodec.DecodeGrid(grid[0], grid[1], grid[2], grid[3]), stdout)
	}
	rep := skincodec.RoundTripReport{Ablate: cfg.Task.Tokenizer.Ablate}
	for i, f := range cfg.Files {
		fmt.Fprintf(cfg.Progress, "\reval tokenizer: %d/%d files", i+1, len(cfg.Files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return err
		}
		r, err := skincodec.MeasureRoundTrip(tok, c, opt, cfg.Task.Tokenizer.Ablate)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		group := skincodec.GroupProps
		if f.Category != "" && f.Category != "prop/mechanical" {
			group = skincodec.GroupCharacters
		}
		rep.Add(f.Rel, group, r)
	}
	fmt.Fprintln(cfg.Progress)
	if err := addSyntheticRoundTrips(&rep, tok, opt, cfg.Task.Synthetic); err != nil {
		return err
	}
	if err := writeEvalReport(cfg.Out, rep.Markdown(), nil, stdout); err != nil {
		return err
	}
	if f := rep.Faults(); len(f) > 0 {
		return fmt.Errorf("eval tokenizer: broken round trips: %s", strings.Join(f, "; "))
	}
	return nil
}

// addSyntheticRoundTrips adds n held-out synthetic creatures of each kind (seeds
// ≡ 0 mod 5: train-tokenizer trains on the others), 2 when n is -1.
func addSyntheticRoundTrips(rep *skincodec.RoundTripReport, tok *skincodec.SkinTokenizer, opt skincodec.Options, n int) error {
	if n < 0 {
		n = 2
	}
	for i, kind := range synth.Kinds() {
		for s := 1; s <= n; s++ {
			seed := int64(5 * s)
			c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 2000, Noise: i%2 == 1})
			if err != nil {
				return fmt.Errorf("synth %s %d: %w", kind, seed, err)
			}
			r, err := skincodec.MeasureRoundTrip(tok, c, opt, rep.Ablate)
			if err != nil {
				return fmt.Errorf("synth %s %d: %w", kind, seed, err)
			}
			rep.Add(fmt.Sprintf("synth/%s_%d", kind, seed), skincodec.GroupSynthetic, r)
		}
	}
	return nil
}

// tuneTokenizer sweeps the decode settings on the files (the training split).
func tuneTokenizer(cfg evalConfig, tok *skincodec.SkinTokenizer, opt skincodec.Options, settings []skincodec.DecodeSetting, stdout io.Writer) error {
	sw := skincodec.DecodeSweep{Settings: settings}
	for i, f := range cfg.Files {
		fmt.Fprintf(cfg.Progress, "\reval tokenizer --tune: %d/%d files", i+1, len(cfg.Files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return err
		}
		if err := sw.Add(tok, c, opt); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	fmt.Fprintln(cfg.Progress)
	return writeEvalReport(cfg.Out, sw.Markdown(), nil, stdout)
}
