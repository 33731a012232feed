package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/rigkit/rigkit/eval"
	"github.com/rigkit/rigkit/internal/atomicfile"
)

func init() {
	register(&command{
		name:    "eval",
		usage:   "--data DIR... --task skin|skeleton|rig|rewards|tokenizer|anatomy|complete [--method geodesic|heat|rigid|tokens|all] [--external NAME=DIR] --out REPORT.md",
		summary: "score methods against ground-truth rigs (markdown + JSON report)",
		run:     runEval,
	})
}

// evalConfig is what every eval task receives: the files, the methods and how to
// run them, and in Task the flags only some tasks read.
type evalConfig struct {
	Files    []eval.File
	Methods  []string // as given by --method, "all" expanded by the task
	Out      string   // REPORT.md; the JSON goes beside it
	Workers  int
	Seed     int64
	Leak     bool
	Progress io.Writer
	// Baseline, when set, adds paired comparisons of every other method with it
	// (eval.SkinReport.Summarize).
	Baseline string
	Task     evalTaskFlags
}

// evalTaskFlags are the settings of single tasks, apart so that evalConfig shows
// what every task shares.
type evalTaskFlags struct {
	// External maps a method name to a folder of weights another tool wrote
	// (eval/external.go); the skin task scores them beside Methods.
	External map[string]string
	// Half is the rewards task's half of the families (dataset.ReportHalf unless
	// --half says otherwise).
	Half string
	// Skeleton makes the rewards task rank skeletons (eval.RankOptions.Skeleton).
	Skeleton bool
	// Tokenizer and Anatomy hold the flags of those tasks (eval_flags.go).
	Tokenizer tokenizerEval
	Anatomy   anatomyEval
	// Synthetic is the number of synthetic creatures the tokenizer (per kind) and
	// anatomy (bipeds) tasks add; -1 leaves it to the task.
	Synthetic int
	// SkinSampling is how the skin task's tokens and model methods draw skin-token
	// streams (sampler.DefaultSkinSamples of them when Samples is 0; 1 is greedy).
	SkinSampling skinSampling
	// Votes overrides the model's skeleton vote in the skeleton and rig tasks
	// (sampler.Generator.Votes; 0: sampler.DefaultVotes, 1: greedy).
	Votes int
	// KeepIdle leaves the artist's weightless joints without weight in the skin
	// task's methods (eval.SkinOptions.KeepIdle).
	KeepIdle bool
	// Reward is the rewards task's combination (rewards.WeightsFor) to rank by
	// instead of the score; empty: the score.
	Reward string
}

// evalTasks are the tasks of `rig eval` (eval_tasks.go).
var evalTasks = map[string]func(cfg evalConfig, stdout io.Writer) error{
	"skin":      evalSkin,
	"skeleton":  evalSkeletons,
	"rig":       evalRigs,
	"rewards":   evalRewards,
	"tokenizer": evalTokenizer,
	"anatomy":   evalAnatomy,
	"complete":  evalComplete,
}

// evalDirFlag collects a repeated flag; each value may also hold a comma-separated list.
type evalDirFlag []string

func (m *evalDirFlag) String() string { return strings.Join(*m, ",") }
func (m *evalDirFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			*m = append(*m, s)
		}
	}
	return nil
}

func runEval(args []string, stdout io.Writer) error {
	fs := newFlags("eval")
	var data evalDirFlag
	fs.Var(&data, "data", "folder of ground-truth rigs (repeatable); extra positionals are folders too")
	task := fs.String("task", "skin", "skin, skeleton, rig, rewards (rank agreement of the rewards), tokenizer (skin-token round trip), anatomy (anatomical skeletons) or complete (the co-pilot completes the artist's primary joints)")
	method := fs.String("method", "all", "method to score, or all registered methods")
	out := fs.String("out", "", "REPORT.md (REPORT.json is written beside it)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "assets scored in parallel")
	seed := fs.Int64("seed", 1, "seed of the deformation poses")
	limit := fs.Int("limit", 0, "score only every k-th file so that about this many remain (0: all)")
	leak := fs.Bool("leak", true, "measure influence leakage across parts (one extra geodesic field per asset)")
	keepIdle := fs.Bool("keep-idle", true, "skin task: joints the artist's skin gives no weight (a floor root, an armature node) get none in any method's skin, as rig skin --keep-idle leaves them")
	external := externalFlag{}
	fs.Var(external, "external", "skin task: NAME=DIR also scores weights another tool wrote, DIR/<asset path>.json (repeatable; tools/blender/heat.py writes Blender's bone heat)")
	split := fs.String("split", "", "all files, held-out (the held-out split, what the skeleton and rig tasks always use) or train (the rest); default all for the skin task, held-out for tokenizer and anatomy, train for tokenizer --tune")
	list := fs.Bool("list", false, "print the files --split and --limit choose, one a line, and score nothing")
	baseline := fs.String("baseline", "", "skin task: also compare every other method with this one file by file (mean difference in deformation, 95% bootstrap interval, files lower/higher)")
	quiet := fs.Bool("quiet", false, "no progress output")
	half := fs.String("half", "report", "rewards task: the half of the families to rank on, report (held out from reward tuning) or tune")
	reward := fs.String("reward", "", "rewards task: rank by this combination of the rewards instead of the score (a version such as v3, or name=w,...)")
	skeleton := fs.Bool("skeleton", false, "rewards task: rank skeletons (the artist's, classical, perturbed), each skinned by the first --method (default geodesic), against CD-J2J")
	var from evalDirFlag
	fs.Var(&from, "from", "skin task: merge these earlier REPORT.json files (repeatable) and write their summary and paired tables instead of scoring")
	skinSamples := fs.Int("skin-samples", 0, "skin task: skin-token streams the tokens and model=PATH methods average (0: 8; 1: greedy)")
	skinTemp := fs.Float64("skin-temperature", 0, "skin task: temperature of the skin-token streams after the first, greedy one (0: 1)")
	votes := fs.Int("votes", 0, "skeleton and rig tasks: skeletons the model samples for its vote (0: rig auto's default, 1: greedy)")
	synthetic := fs.Int("synthetic", -1, "tokenizer task: held-out synthetic creatures per kind (default 2); anatomy task: synthetic bipeds to fit, and with no --data only those (default 0)")
	var tokOpt tokenizerEval
	tokOpt.flags(fs)
	var anaOpt anatomyEval
	anaOpt.flags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *split == "" {
		*split = eval.DefaultSplit(*task, tokOpt.Tune)
	}
	if len(from) > 0 {
		if *task != "skin" || len(data) > 0 || len(pos) > 0 || *out == "" || len(external) > 0 {
			return fmt.Errorf("%w: --from merges skin reports: use it with --task skin and --out, without --data or --external", errUsage)
		}
		rep, err := eval.MergeSkinReports(from)
		if err != nil {
			return err
		}
		return writeSkinReport(rep, evalConfig{Out: *out, Seed: rep.Seed, Baseline: *baseline}, stdout)
	}
	data = append(data, pos...)
	if err := notStdio(*out, "REPORT.md and REPORT.json beside it"); err != nil {
		return err
	}
	if len(data) == 0 && *task == "anatomy" && *synthetic > 0 && *out != "" {
		return evalAnatomy(evalConfig{Out: *out, Methods: strings.Split(*method, ","), Progress: progressOut(*quiet),
			Task: evalTaskFlags{Anatomy: anaOpt, Synthetic: *synthetic}}, stdout)
	}
	if len(data) == 0 || (*out == "" && !*list) {
		return fmt.Errorf("%w: need --data DIR and --out REPORT.md", errUsage)
	}
	if *votes < 0 || *votes > 64 {
		return fmt.Errorf("%w: --votes %d: want 0..64", errUsage, *votes)
	}
	if *baseline != "" && *task != "skin" {
		return fmt.Errorf("%w: --baseline compares skin methods; it needs --task skin", errUsage)
	}
	if *reward != "" && *task != "rewards" {
		return fmt.Errorf("%w: --reward recombines the rewards; it needs --task rewards", errUsage)
	}
	if *skeleton && *task != "rewards" {
		return fmt.Errorf("%w: --skeleton ranks skeletons by the rewards; it needs --task rewards", errUsage)
	}
	if len(external) > 0 && *task != "skin" {
		return fmt.Errorf("%w: --external scores skin weights; it needs --task skin", errUsage)
	}
	run, ok := evalTasks[*task]
	if !ok {
		return fmt.Errorf("%w: unknown task %q (available: %v)", errUsage, *task, slices.Sorted(maps.Keys(evalTasks)))
	}
	files, err := selectEvalFiles(data, *split, *limit, *task == "anatomy" && !anaOpt.KindReport && anaOpt.QuadStress == "")
	if err != nil {
		return err
	}
	if *list {
		for _, f := range files {
			fmt.Fprintln(stdout, f.Path)
		}
		return nil
	}
	cfg := evalConfig{Files: files, Methods: strings.Split(*method, ","), Out: *out,
		Workers: max(1, *workers), Seed: *seed, Leak: *leak, Progress: progressOut(*quiet), Baseline: *baseline,
		Task: evalTaskFlags{External: external, Half: *half, Skeleton: *skeleton, Tokenizer: tokOpt, Anatomy: anaOpt, Synthetic: *synthetic, SkinSampling: skinSampling{Samples: *skinSamples, Temperature: *skinTemp}, Votes: *votes, KeepIdle: *keepIdle, Reward: *reward}}
	return run(cfg, stdout)
}

// selectEvalFiles lists the evaluation files under the folders and keeps the
// split's part (all, held-out or train), the humanoids when humanoids is set (so
// that limit counts them), and every k-th file so that about limit remain.
func selectEvalFiles(data []string, split string, limit int, humanoids bool) ([]eval.File, error) {
	files, err := eval.ListFiles(data)
	if err != nil {
		return nil, err
	}
	switch split {
	case "all", "held-out", "train":
	default:
		return nil, fmt.Errorf("%w: --split %q: want all, held-out or train", errUsage, split)
	}
	return eval.SelectFiles(files, split, limit, humanoids), nil
}

// writeEvalReport writes every eval report: the markdown md to out (its folder is
// created) and, when js is not nil, js beside it as REPORT.json; then it prints the
// markdown, and the two paths when there is a JSON file.
func writeEvalReport(out, md string, js []byte, stdout io.Writer) error {
	if err := atomicfile.WriteFile(out, []byte(md)); err != nil {
		return err
	}
	if js == nil {
		fmt.Fprint(stdout, md)
		return nil
	}
	jsonPath := strings.TrimSuffix(out, filepath.Ext(out)) + ".json"
	if err := atomicfile.WriteFile(jsonPath, js); err != nil {
		return err
	}
	fmt.Fprint(stdout, md)
	fmt.Fprintf(stdout, "\nwrote %s and %s\n", out, jsonPath)
	return nil
}
