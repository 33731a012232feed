package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/eval"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/skincodec"
)

// The tasks of `rig eval`: each resolves its flags into package eval's options, runs
// the task there and writes the report (writeEvalReport).

// evalSkin is the skin task: the --method skins and the --external weights scored
// against the artist's.
func evalSkin(cfg evalConfig, stdout io.Writer) error {
	opt, err := skinEvalOptions(cfg)
	if err != nil {
		return err
	}
	return writeSkinReport(eval.ScoreSkins(cfg.Files, opt), cfg, stdout)
}

// skinEvalOptions resolves the --method values into the skin task's methods: "all"
// is every registered skin method, model=PATH another checkpoint's skin tokens
// (reported as "model"), anything else a method, blend or sharpening
// (lookupSkinMethod); the --external names follow, sorted.
func skinEvalOptions(cfg evalConfig) (eval.SkinOptions, error) {
	skins := maps.Clone(skinMethods)
	samples := cfg.Task.SkinSampling
	if samples.Samples <= 0 {
		samples.Samples = sampler.DefaultSkinSamples
	}
	if _, ok := skins["tokens"]; ok {
		skins["tokens"] = tokensSkin(samples)
	}
	var methods []string
	for _, m := range cfg.Methods {
		if m == "all" {
			methods = append(methods, skinMethodNames()...)
			continue
		}
		if path, ok := strings.CutPrefix(m, "model="); ok {
			// Another checkpoint's skin tokens (mean of --skin-samples
			// streams), loaded once, reported as "model"; it must write the codes of
			// the shipped skin tokenizer.
			fn, err := modelTokensSkin(path, samples)
			if err != nil {
				return eval.SkinOptions{}, fmt.Errorf("model %s: %w", path, err)
			}
			skins["model"] = fn
			methods = append(methods, "model")
			continue
		}
		fn, err := lookupSkinMethod(skins, m)
		if err != nil {
			return eval.SkinOptions{}, err
		}
		skins[m] = fn
		methods = append(methods, m)
	}
	methods = append(methods, slices.Sorted(maps.Keys(cfg.Task.External))...)
	opt := eval.SkinOptions{Methods: methods, Skins: map[string]eval.SkinMethod{}, External: cfg.Task.External,
		Leak: cfg.Leak, KeepIdle: cfg.Task.KeepIdle, Seed: cfg.Seed, Workers: cfg.Workers, Progress: cfg.Progress}
	for name, fn := range skins {
		opt.Skins[name] = eval.SkinMethod(fn)
	}
	return opt, nil
}

// writeSkinReport summarizes a skin report (paired with cfg.Baseline, which must be
// one of its methods) and writes it.
func writeSkinReport(rep *eval.SkinReport, cfg evalConfig, stdout io.Writer) error {
	if cfg.Baseline != "" && !slices.Contains(rep.Methods, cfg.Baseline) {
		return fmt.Errorf("%w: --baseline %q is not one of the report's methods %v", errUsage, cfg.Baseline, rep.Methods)
	}
	rep.Summarize(cfg.Baseline)
	js, err := rep.JSON()
	if err != nil {
		return err
	}
	return writeEvalReport(cfg.Out, rep.Markdown(), js, stdout)
}

// evalSkeletons is the skeleton task.
func evalSkeletons(cfg evalConfig, stdout io.Writer) error {
	methods := eval.SkeletonMethods(evalModel(cfg.Methods, "skeleton"), cfg.Task.Votes)
	rep := eval.Skeletons(cfg.Files, eval.Only(methods, cfg.Methods), cfg.Progress)
	return writeEvalReport(cfg.Out, rep.Markdown(), rep.JSON(), stdout)
}

// evalRigs is the rig task.
func evalRigs(cfg evalConfig, stdout io.Writer) error {
	riggers := eval.RigMethods(evalModel(cfg.Methods, "rig"), cfg.Task.Votes)
	rep := eval.Rigs(cfg.Files, eval.Only(riggers, cfg.Methods), cfg.Progress)
	return writeEvalReport(cfg.Out, rep.Markdown(), rep.JSON(), stdout)
}

// evalModel loads the model of --method model=PATH (the shipped one without it) for
// the skeleton and rig tasks; without one it says on stderr that only the classical
// method is evaluated, and returns nil.
func evalModel(methods []string, task string) *autorig.ModelRigger {
	path := ""
	for _, m := range methods {
		if p, ok := strings.CutPrefix(m, "model="); ok {
			path = p
			break
		}
	}
	r, _, err := loadModelRigger(path)
	if err != nil {
		fmt.Fprintf(diag, "rig eval: no model (%v): only the classical %s is evaluated\n", err, task)
		return nil
	}
	return r
}

// evalRewards is the rewards task: the rank agreement of the rewards over the
// --method candidate skins (eval.RankMethods for "all") on the --half families.
func evalRewards(cfg evalConfig, stdout io.Writer) error {
	methods := cfg.Methods
	all := len(methods) == 0 || (len(methods) == 1 && methods[0] == "all")
	switch {
	case cfg.Task.Skeleton && all:
		methods = []string{"geodesic"}
	case cfg.Task.Skeleton:
		methods = methods[:1]
	case all:
		_, tokens := skinMethods["tokens"]
		methods = eval.RankMethods(tokens)
	}
	skins := map[string]eval.SkinMethod{}
	for _, m := range methods {
		fn, err := lookupSkinMethod(skinMethods, m)
		if err != nil {
			return err
		}
		skins[m] = eval.SkinMethod(fn)
	}
	half := cfg.Task.Half
	if half == "" {
		half = dataset.ReportHalf
	}
	if half != dataset.ReportHalf && half != dataset.TuneHalf {
		return fmt.Errorf("%w: --half %q: want %s or %s", errUsage, half, dataset.ReportHalf, dataset.TuneHalf)
	}
	opt := eval.RankOptions{Methods: methods, Skins: skins, Half: half,
		Seed: cfg.Seed, Workers: cfg.Workers, Progress: cfg.Progress, Skeleton: cfg.Task.Skeleton}
	if cfg.Task.Reward != "" {
		w, err := rewards.WeightsFor(cfg.Task.Reward)
		if err != nil {
			return fmt.Errorf("%w: --reward: %v", errUsage, err)
		}
		opt.Weights = w
	}
	if cfg.Task.Skeleton {
		opt.Model = evalModel(cfg.Methods, "skeletons")
	}
	rep, err := eval.RankRewards(cfg.Files, opt)
	if err != nil {
		return err
	}
	js, err := rep.JSON()
	if err != nil {
		return err
	}
	return writeEvalReport(cfg.Out, rep.Markdown(), js, stdout)
}

// evalTokenizer is the tokenizer task: the round-trip report, or with --tune the
// sweep of the decode settings.
func evalTokenizer(cfg evalConfig, stdout io.Writer) error {
	tok, dec, grid, err := cfg.Task.Tokenizer.load()
	if err != nil {
		return err
	}
	opt := eval.TokenizerOptions{Tokenizer: tok, Decode: dec, Ablate: cfg.Task.Tokenizer.Ablate,
		Synthetic: cfg.Task.Synthetic, Progress: cfg.Progress}
	if cfg.Task.Tokenizer.Tune {
		sw, err := eval.TuneTokenizer(cfg.Files, opt, skincodec.DecodeGrid(grid[0], grid[1], grid[2], grid[3]))
		if err != nil {
			return err
		}
		return writeEvalReport(cfg.Out, sw.Markdown(), nil, stdout)
	}
	rep, err := eval.TokenizerRoundTrips(cfg.Files, opt)
	if err != nil {
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

// evalAnatomy is the anatomy task: the humanoid report, the stress report
// (--stress), the quadrupeds' stress report (--quad-stress), the kind report
// (--kind-report) or the model's skeletons named (--method model[=CKPT]).
func evalAnatomy(cfg evalConfig, stdout io.Writer) error {
	var md string
	var faults []string
	if ckpt, ok := anatomyModelMethod(cfg.Methods); ok {
		r, _, err := loadModelRigger(ckpt)
		if err != nil {
			return fmt.Errorf("eval anatomy --method model: %w", err)
		}
		rep, err := eval.ModelNaming(cfg.Files, r.Generator, cfg.Task.Synthetic, cfg.Progress)
		if err != nil {
			return err
		}
		md, faults = rep.Markdown(), rep.Faults()
	} else if list := cfg.Task.Anatomy.QuadStress; list != "" {
		if list != "all" {
			if _, err := stressVariants(list); err != nil {
				return err
			}
		}
		rep, err := eval.QuadStressFits(cfg.Files, list, cfg.Progress)
		if err != nil {
			return err
		}
		md = rep.Markdown()
	} else if cfg.Task.Anatomy.Stress != "" {
		variants, err := stressVariants(cfg.Task.Anatomy.Stress)
		if err != nil {
			return err
		}
		rep, err := eval.StressFits(cfg.Files, variants, cfg.Progress)
		if err != nil {
			return err
		}
		md = rep.Markdown()
	} else if cfg.Task.Anatomy.KindReport {
		rep, err := eval.Kinds(cfg.Files, cfg.Progress)
		if err != nil {
			return err
		}
		md = rep.Markdown()
	} else {
		rep, err := eval.HumanoidFits(cfg.Files, cfg.Task.Synthetic, cfg.Progress)
		if err != nil {
			return err
		}
		md, faults = rep.Markdown(), rep.Faults()
	}
	if err := writeEvalReport(cfg.Out, md, nil, stdout); err != nil {
		return err
	}
	if len(faults) > 0 {
		return fmt.Errorf("eval anatomy: unusable skeletons: %s", strings.Join(faults, "; "))
	}
	return nil
}

// anatomyModelMethod returns the checkpoint of --method model[=CKPT] ("" for the
// shipped model) and whether the method was asked for.
func anatomyModelMethod(methods []string) (string, bool) {
	for _, m := range methods {
		if m == "model" {
			return "", true
		}
		if p, ok := strings.CutPrefix(m, "model="); ok {
			return p, true
		}
	}
	return "", false
}
