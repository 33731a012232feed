package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skinning"
)

func init() {
	register(&command{
		name:    "eval",
		usage:   "--data DIR... --task skin|skeleton|rig|rewards|tokenizer|anatomy [--method geodesic|heat|rigid|tokens|all] [--external NAME=DIR] --out REPORT.md",
		summary: "score methods against ground-truth rigs (markdown + JSON report)",
		run:     runEval,
	})
}

// evalConfig is what every eval task receives: the files, the methods and how to
// run them, and in Task the flags only some tasks read.
type evalConfig struct {
	Files    []evalFile
	Methods  []string // as given by --method, "all" expanded by the task
	Out      string   // REPORT.md; the JSON goes beside it
	Workers  int
	Seed     int64
	Leak     bool
	Progress io.Writer
	// Baseline, when set, adds paired comparisons of every other method with it
	// (eval_paired.go).
	Baseline string
	Task     evalTaskFlags
}

// evalTaskFlags are the settings of single tasks, apart so that evalConfig shows
// what every task shares.
type evalTaskFlags struct {
	// External maps a method name to a folder of weights another tool wrote
	// (eval_external.go); the skin task scores them beside Methods.
	External map[string]string
	// skin holds the skin task's methods: skinMethods, plus "model" for a
	// --method model=PATH checkpoint.
	skin map[string]skinMethod
	// Half is the rewards task's half of the families (dataset.ReportHalf unless
	// --half says otherwise).
	Half string
	// Tokenizer and Anatomy hold the flags of those tasks (eval_tokenizer.go,
	// eval_anatomy.go).
	Tokenizer tokenizerEval
	Anatomy   anatomyEval
	// Synthetic is the number of synthetic creatures the tokenizer (per kind) and
	// anatomy (bipeds) tasks add; -1 leaves it to the task.
	Synthetic int
	// SkinSampling is how the skin task's tokens and model methods draw skin-token
	// streams (rigmodel.DefaultSkinSamples of them when Samples is 0; 1 is greedy).
	SkinSampling skinSampling
	// Votes overrides the model's skeleton vote in the skeleton and rig tasks
	// (rigmodel.Generator.Votes; 0: rigmodel.DefaultVotes, 1: greedy).
	Votes int
}

// evalFile is one ground-truth asset and its manifest category ("" if unknown).
type evalFile struct {
	Path     string `json:"file"`
	Category string `json:"category"`
	Rel      string `json:"-"` // path under its --data folder
}

// evalTasks are the tasks of `rig eval`; the model adds "skeleton" and "rig".
var evalTasks = map[string]func(cfg evalConfig, stdout io.Writer) error{
	"skin": evalSkin,
}

// plannedEvalTasks are documented tasks whose implementation is not in this build.
var plannedEvalTasks = []string{"skeleton", "rig"}

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
	task := fs.String("task", "skin", "skin, skeleton, rig, rewards (rank agreement of the rewards), tokenizer (skin-token round trip) or anatomy (anatomical skeletons)")
	method := fs.String("method", "all", "method to score, or all registered methods")
	out := fs.String("out", "", "REPORT.md (REPORT.json is written beside it)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "assets scored in parallel")
	seed := fs.Int64("seed", 1, "seed of the deformation poses")
	limit := fs.Int("limit", 0, "score only every k-th file so that about this many remain (0: all)")
	leak := fs.Bool("leak", true, "measure influence leakage across parts (one extra geodesic field per asset)")
	external := externalFlag{}
	fs.Var(external, "external", "skin task: NAME=DIR also scores weights another tool wrote, DIR/<asset path>.json (repeatable; tools/blender/heat.py writes Blender's bone heat)")
	split := fs.String("split", "", "all files, held-out (the held-out split, what the skeleton and rig tasks always use) or train (the rest); default all for the skin task, held-out for tokenizer and anatomy, train for tokenizer --tune")
	list := fs.Bool("list", false, "print the files --split and --limit choose, one a line, and score nothing")
	baseline := fs.String("baseline", "", "skin task: also compare every other method with this one file by file (mean difference in deformation, 95% bootstrap interval, files lower/higher)")
	quiet := fs.Bool("quiet", false, "no progress output")
	half := fs.String("half", "report", "rewards task: the half of the families to rank on, report (held out from reward tuning) or tune")
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
		*split = defaultEvalSplit(*task, tokOpt.Tune)
	}
	if len(from) > 0 {
		if *task != "skin" || len(data) > 0 || len(pos) > 0 || *out == "" || len(external) > 0 {
			return fmt.Errorf("%w: --from merges skin reports: use it with --task skin and --out, without --data or --external", errUsage)
		}
		rep, err := loadSkinReports(from)
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
	if len(external) > 0 && *task != "skin" {
		return fmt.Errorf("%w: --external scores skin weights; it needs --task skin", errUsage)
	}
	run, ok := evalTasks[*task]
	if !ok {
		for _, p := range plannedEvalTasks {
			if p == *task {
				return fmt.Errorf("task %q is not available yet in this build (available: %v)", *task, evalTaskNames())
			}
		}
		return fmt.Errorf("%w: unknown task %q (available: %v)", errUsage, *task, evalTaskNames())
	}
	files, err := selectEvalFiles(data, *split, *limit, *task == "anatomy" && !anaOpt.KindReport)
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
		Task: evalTaskFlags{External: external, Half: *half, Tokenizer: tokOpt, Anatomy: anaOpt, Synthetic: *synthetic, SkinSampling: skinSampling{Samples: *skinSamples, Temperature: *skinTemp}, Votes: *votes}}
	return run(cfg, stdout)
}

// selectEvalFiles lists the evaluation files under the folders, keeps the split's
// part (all, held-out or train), the humanoids when humanoids is set (so that limit
// counts them), and every k-th file so that about limit remain.
func selectEvalFiles(data []string, split string, limit int, humanoids bool) ([]evalFile, error) {
	var files []evalFile
	for _, d := range data {
		f, err := listEvalFiles(d)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("eval: no .glb or .gltf files under %v", data)
	}
	switch split {
	case "all":
	case "held-out", "train":
		files = splitFiles(files, split == "held-out")
	default:
		return nil, fmt.Errorf("%w: --split %q: want all, held-out or train", errUsage, split)
	}
	if humanoids {
		files = humanoidFiles(files)
	}
	if limit > 0 && len(files) > limit {
		step := (len(files) + limit - 1) / limit
		var kept []evalFile
		for i := 0; i < len(files); i += step {
			kept = append(kept, files[i])
		}
		files = kept
	}
	return files, nil
}

// defaultEvalSplit is the split a task scores when --split is not given: the
// reports of the tokenizer and the anatomy are on the held-out split, and tuning
// the tokenizer's decode settings never sees it.
func defaultEvalSplit(task string, tune bool) string {
	switch {
	case task == "tokenizer" && tune:
		return "train"
	case task == "tokenizer", task == "anatomy":
		return "held-out"
	}
	return "all"
}

func evalTaskNames() []string {
	n := make([]string, 0, len(evalTasks))
	for k := range evalTasks {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// listEvalFiles returns the rigs under dir, sorted, with categories from
// dir/manifest.jsonl when it exists.
func listEvalFiles(dir string) ([]evalFile, error) {
	cats := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl")); err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var row evalFile
			if json.Unmarshal(sc.Bytes(), &row) == nil && row.Path != "" {
				cats[filepath.Clean(row.Path)] = row.Category
			}
		}
	}
	var out []evalFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if d.IsDir() || (ext != ".glb" && ext != ".gltf") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, evalFile{Path: p, Category: cats[filepath.Clean(rel)], Rel: rel})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("eval: list %s: %w", dir, err)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out, nil
}

// isCharacter reports whether a manifest category is a character (biped, quadruped,
// winged, creature) rather than a prop.
func isCharacter(category string) bool {
	c := strings.ToLower(category)
	for _, k := range []string{"biped", "quadruped", "winged", "creature"} {
		if strings.Contains(c, k) {
			return true
		}
	}
	return false
}

// skinEvalResult is one method on one asset.
type skinEvalResult struct {
	File     string               `json:"file"`
	Category string               `json:"category,omitempty"`
	Method   string               `json:"method"`
	Error    string               `json:"error,omitempty"`
	Seconds  float64              `json:"seconds"`
	Metrics  *metrics.SkinResult  `json:"metrics,omitempty"`
	Leak     *skinning.LeakReport `json:"leak,omitempty"`
}

// skinEvalSummary aggregates one method over one split.
type skinEvalSummary struct {
	Method          string  `json:"method"`
	Split           string  `json:"split"`
	Assets          int     `json:"assets"`
	Usable          int     `json:"usable"`
	Failed          int     `json:"failed"`
	EmptyBoneAssets int     `json:"assets_with_empty_bones"`
	OrphanAssets    int     `json:"assets_with_orphans"`
	DeformMean      float64 `json:"deform_mean"`
	DeformMax       float64 `json:"deform_max"`
	L1              float64 `json:"l1"`
	Precision       float64 `json:"precision"`
	Recall          float64 `json:"recall"`
	MedianSeconds   float64 `json:"median_seconds"`
	LeakMeasured    bool    `json:"leak_measured"`
	LeakWeight      float64 `json:"leak_weight"`
	LeakyVertices   float64 `json:"leaky_vertex_fraction"`
}

type skinEvalReport struct {
	Task      string            `json:"task"`
	Seed      int64             `json:"seed"`
	Methods   []string          `json:"methods"`
	Summaries []skinEvalSummary `json:"summaries"`
	Paired    []skinPaired      `json:"paired,omitempty"`
	Results   []skinEvalResult  `json:"results"`
}

const groundTruthMethod = "ground truth"

func evalSkin(cfg evalConfig, stdout io.Writer) error {
	var methods []string
	cfg.Task.skin = maps.Clone(skinMethods)
	samples := cfg.Task.SkinSampling
	if samples.Samples <= 0 {
		samples.Samples = rigmodel.DefaultSkinSamples
	}
	if _, ok := cfg.Task.skin["tokens"]; ok {
		cfg.Task.skin["tokens"] = tokensSkin(samples)
	}
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
				return fmt.Errorf("model %s: %w", path, err)
			}
			cfg.Task.skin["model"] = fn
			methods = append(methods, "model")
			continue
		}
		fn, err := lookupSkinMethod(cfg.Task.skin, m)
		if err != nil {
			return err
		}
		cfg.Task.skin[m] = fn
		methods = append(methods, m)
	}
	methods = append(methods, slices.Sorted(maps.Keys(cfg.Task.External))...)
	results := make([][]skinEvalResult, len(cfg.Files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	bar := progress.New(cfg.Progress, "eval skin", len(cfg.Files))
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = evalSkinAsset(cfg.Files[i], methods, cfg)
				bar.Add(1, 0)
			}
		}()
	}
	for i := range cfg.Files {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	bar.Finish()

	rep := skinEvalReport{Task: "skin", Seed: cfg.Seed, Methods: methods}
	for _, r := range results {
		rep.Results = append(rep.Results, r...)
	}
	return writeSkinReport(rep, cfg, stdout)
}

// writeSkinReport summarizes rep's results (and pairs them with cfg.Baseline) and
// writes the markdown and JSON reports.
func writeSkinReport(rep skinEvalReport, cfg evalConfig, stdout io.Writer) error {
	methods := rep.Methods
	if cfg.Baseline != "" && !slices.Contains(methods, cfg.Baseline) {
		return fmt.Errorf("%w: --baseline %q is not one of the report's methods %v", errUsage, cfg.Baseline, methods)
	}
	splits := []struct {
		name string
		keep func(string) bool
	}{
		{"characters", isCharacter},
		{"props", func(c string) bool { return !isCharacter(c) }},
		{"all", func(string) bool { return true }},
	}
	for _, sp := range splits {
		for _, m := range append(append([]string(nil), methods...), groundTruthMethod) {
			s := summarizeSkin(rep.Results, m, sp.name, sp.keep)
			if s.Assets > 0 {
				rep.Summaries = append(rep.Summaries, s)
			}
		}
	}
	if cfg.Baseline != "" {
		for _, sp := range splits {
			for _, m := range methods {
				if m == cfg.Baseline {
					continue
				}
				if p, ok := pairSkin(rep.Results, m, cfg.Baseline, sp.name, sp.keep, cfg.Seed); ok {
					rep.Paired = append(rep.Paired, p)
				}
			}
		}
	}
	js, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return fmt.Errorf("eval: encode report: %w", err)
	}
	return writeEvalReport(cfg.Out, skinMarkdown(rep, cfg), js, stdout)
}

// evalSkinAsset scores every method on one asset (plus ground truth's own leakage).
func evalSkinAsset(f evalFile, methods []string, cfg evalConfig) []skinEvalResult {
	fail := func(m string, err error) skinEvalResult {
		return skinEvalResult{File: f.Path, Category: f.Category, Method: m, Error: err.Error()}
	}
	var out []skinEvalResult
	gt, _, err := assets.Load(f.Path, assets.Options{})
	if err == nil && !gt.Rigged() {
		err = fmt.Errorf("%s: no skeleton or skin", f.Path)
	}
	if err != nil {
		for _, m := range methods {
			out = append(out, fail(m, err))
		}
		return out
	}
	var field *skinning.Field
	if cfg.Leak {
		field, _ = skinning.NewField(gt, skinning.FieldOptions{Resolution: skinning.DefaultMaxResolution, Cutoff: -1, Workers: 1})
	}
	for _, m := range methods {
		var w *character.Skin // on gt's vertices and joints
		var secs float64
		if dir, ok := cfg.Task.External[m]; ok {
			w, secs, err = externalSkin(gt, externalSkinPath(dir, f))
		} else {
			in := gt.Clone()
			in.Skin = nil
			t0 := time.Now()
			var skin *character.Skin
			skin, err = cfg.Task.skin[m](in)
			secs = time.Since(t0).Seconds()
			if err == nil {
				pred := gt.Clone()
				pred.Skin = skin
				w, err = metrics.MatchSkin(gt, pred)
			}
		}
		var res metrics.SkinResult
		if err == nil {
			res, err = metrics.SkinMetrics(gt, w, cfg.Seed)
		}
		if err != nil {
			out = append(out, fail(m, err))
			continue
		}
		r := skinEvalResult{File: f.Path, Category: f.Category, Method: m, Seconds: secs, Metrics: &res}
		if field != nil {
			l := field.Leakage(w)
			r.Leak = &l
		}
		out = append(out, r)
	}
	if field != nil {
		l := field.Leakage(gt.Skin)
		out = append(out, skinEvalResult{File: f.Path, Category: f.Category, Method: groundTruthMethod, Leak: &l})
	}
	return out
}

func summarizeSkin(results []skinEvalResult, method, split string, keep func(string) bool) skinEvalSummary {
	s := skinEvalSummary{Method: method, Split: split}
	var secs []float64
	leaks := 0
	for _, r := range results {
		if r.Method != method || !keep(r.Category) {
			continue
		}
		s.Assets++
		if r.Leak != nil {
			s.LeakWeight += r.Leak.Weight
			s.LeakyVertices += r.Leak.Fraction
			leaks++
		}
		if r.Error != "" {
			s.Failed++
			continue
		}
		if r.Metrics == nil {
			continue
		}
		m := r.Metrics
		s.Usable++
		if len(m.EmptyBones) > 0 {
			s.EmptyBoneAssets++
		}
		if m.Orphans > 0 {
			s.OrphanAssets++
		}
		s.DeformMean += m.DeformMean
		s.DeformMax += m.DeformMax
		s.L1 += m.L1
		s.Precision += m.Precision
		s.Recall += m.Recall
		secs = append(secs, r.Seconds)
	}
	if s.Usable > 0 {
		n := float64(s.Usable)
		s.DeformMean /= n
		s.DeformMax /= n
		s.L1 /= n
		s.Precision /= n
		s.Recall /= n
		sort.Float64s(secs)
		s.MedianSeconds = secs[len(secs)/2]
		if len(secs)%2 == 0 {
			s.MedianSeconds = (secs[len(secs)/2-1] + secs[len(secs)/2]) / 2
		}
	}
	if leaks > 0 {
		s.LeakMeasured = true
		s.LeakWeight /= float64(leaks)
		s.LeakyVertices /= float64(leaks)
	}
	return s
}

func skinMarkdown(rep skinEvalReport, cfg evalConfig) string {
	var b strings.Builder
	files := map[string]bool{}
	for _, r := range rep.Results {
		files[r.File] = true
	}
	fmt.Fprintf(&b, "# rig eval --task skin\n\n%d files; metrics of shared/METRICS.md (seed %d, %d poses up to 45°; deformation ×100 in normalized units).\n",
		len(files), rep.Seed, metrics.DeformPoses)
	if slices.ContainsFunc(rep.Summaries, func(s skinEvalSummary) bool { return s.LeakMeasured }) {
		fmt.Fprintf(&b, "Leak: mean weight per vertex on bones whose geodesic distance through the solid (voxels, 128 along the longest axis) exceeds %g× the straight-line distance; leaky %%: vertices with more than %g of it.\n",
			skinning.LeakDetour, skinning.LeakyVertexWeight)
	}
	titles := map[string]string{
		"characters": "characters only (biped, quadruped, winged, creature)",
		"props":      "props (everything else)",
		"all":        "all assets (props included)",
	}
	for _, split := range []string{"characters", "props", "all"} {
		var rows []skinEvalSummary
		for _, s := range rep.Summaries {
			if s.Split == split {
				rows = append(rows, s)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s: %d assets\n\n", titles[split], rows[0].Assets)
		b.WriteString("| method | usable | unmatched/failed | assets with empty bones | deformation mean ×100 | deformation max ×100 | L1 | precision | recall | median s | orphan assets | leak | leaky % |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range rows {
			leak := "–"
			leaky := "–"
			if s.LeakMeasured {
				leak = fmt.Sprintf("%.4f", s.LeakWeight)
				leaky = fmt.Sprintf("%.2f", 100*s.LeakyVertices)
			}
			if s.Method == groundTruthMethod {
				fmt.Fprintf(&b, "| %s | | | | | | | | | | | %s | %s |\n", s.Method, leak, leaky)
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.2f | %.2f | %.3f | %.3f | %.3f | %.3f | %d | %s | %s |\n",
				s.Method, s.Usable, s.Failed, s.EmptyBoneAssets, s.DeformMean, s.DeformMax, s.L1, s.Precision, s.Recall, s.MedianSeconds, s.OrphanAssets, leak, leaky)
		}
	}
	var failures []string
	for _, r := range rep.Results {
		if r.Error != "" {
			failures = append(failures, fmt.Sprintf("- %s (%s): %s", r.File, r.Method, evalOneLine(r.Error)))
		}
	}
	b.WriteString(pairedMarkdown(rep.Paired))
	if len(failures) > 0 {
		b.WriteString("\n### failures\n\n" + strings.Join(failures, "\n") + "\n")
	}
	return b.String()
}

func evalOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
