package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/eval"
	"github.com/rigkit/rigkit/skincodec"
)

// The flags of single eval tasks: --external (skin), the tokenizer task's decode
// settings and the anatomy task's --kind-report.

// externalFlag collects --external NAME=DIR values.
type externalFlag map[string]string

func (m externalFlag) String() string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, k+"="+m[k])
	}
	return strings.Join(s, ",")
}

func (m externalFlag) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want NAME=DIR, got %q", v)
	}
	if _, taken := skinMethods[name]; taken || name == "all" || name == eval.GroundTruthMethod {
		return fmt.Errorf("%q is already a skin method; name the external weights otherwise", name)
	}
	if _, twice := m[name]; twice {
		return fmt.Errorf("%q given twice", name)
	}
	m[name] = dir
	return nil
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

// anatomyEval holds the anatomy task's flags.
type anatomyEval struct {
	KindReport bool
	// Stress lists the stress variants to fit the humanoids under
	// (eval.StressFits); "" fits them as stored.
	Stress string
	// QuadStress lists the stress variants to detect the quadrupeds' kind under
	// (eval.QuadStressFits); "" leaves them out.
	QuadStress string
}

func (o *anatomyEval) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.KindReport, "kind-report", false, "anatomy task: detect the kind and up axis of every file against the manifest's categories instead of the humanoid report")
	fs.StringVar(&o.Stress, "stress", "", "anatomy task: fit the humanoids under these stress variants (comma-separated: none, legs, apose, armsdown, skirt, robe, fused and their + combinations; all: none and every variant of the report)")
	fs.StringVar(&o.QuadStress, "quad-stress", "", "anatomy task: detect the kind of the quadrupeds under these stress variants instead (comma-separated: none, legs, fused, fused+legs; all: none and every one of them)")
}

// stressVariants parses --stress and rig stress's --variant (eval.StressVariants);
// an unknown variant is a usage error.
func stressVariants(list string) ([]string, error) {
	v, err := eval.StressVariants(list)
	if err != nil {
		return nil, fmt.Errorf("%w: --stress: %v", errUsage, err)
	}
	return v, nil
}
