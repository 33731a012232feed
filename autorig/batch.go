// Package autorig is the `rig auto` pipeline: a policy that rigs one mesh with the
// model or the classical rigger, whichever the rewards score higher (ModelRigger),
// and a stateless, resumable, sharded batch over many meshes (Batch) that writes a
// rigged GLB and a JSON report per input.
package autorig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets/format"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/sampler"
)

// This file is the `rig auto` machinery: a stateless, resumable batch over many
// meshes. Each asset is loaded, rigged by a Rigger, scored, and written atomically as
// DIR/<name>.glb beside DIR/<name>.json; a finished asset (JSON with status "ok" and
// its GLB present) is skipped on the next run, so the same command can run as a
// Kubernetes Indexed Job or a Slurm array with --shard k/n.

// Rigger rigs one character. Implementations must not modify their input.
type Rigger interface {
	// Rig returns a rigged copy of c (in c's own world frame) and what produced it.
	Rig(c *character.Character) (*character.Character, *RigInfo, error)
}

// RigInfo says how a rig was produced, for the JSON report. Method is always the
// method that produced the final skeleton and skin, never the one that was tried.
type RigInfo struct {
	// Method names what produced the rig, e.g. "tokenrig", "tokenrig-skeleton+geodesic",
	// "classical-skeleton+geodesic".
	Method string `json:"method"`
	// Fallback says why the preferred method was not used ("" when it was).
	Fallback string `json:"fallback,omitempty"`
	// SampleStats says how the model's streams were drawn (zero for classical
	// methods).
	SampleStats
	// ClassicalScore is the classical rig's score when it was built for comparison
	// or as the fallback.
	ClassicalScore *float64 `json:"classical_score,omitempty"`
	// ClassicalTokensScore is the score of the classical skeleton skinned by the
	// model's skin tokens, when the model writes them and the classical rig was built.
	ClassicalTokensScore *float64 `json:"classical_tokens_score,omitempty"`
	// Anatomy says what kind, up axis and symmetry the kept classical rig's
	// skeleton was fitted for (nil when no anatomical skeleton was made).
	Anatomy *anatomy.Report `json:"anatomy,omitempty"`
	// Naming says how many of the kept model rig's joints took the template's
	// names (nil for classical rigs, whose joints all have them).
	Naming *anatomy.Naming `json:"naming,omitempty"`
	// Warnings are problems the rig was made in spite of.
	Warnings []string `json:"warnings,omitempty"`
	// Completion lists the given and added joints of a completed partial skeleton
	// (`rig auto --skeleton`, package copilot).
	Completion any `json:"completion,omitempty"`
	// TimingsMS breaks the rig's wall time into stages (encode, generate, decode, ...).
	TimingsMS map[string]float64 `json:"timings_ms,omitempty"`
	// Score and Rewards are the final rig's score and reward report when the rigger
	// already computed them (the batch then does not score again).
	Score   *float64 `json:"-"`
	Rewards any      `json:"-"`
}

// SampleStats says how a model rig's token streams were drawn; its fields are
// RigInfo's in the JSON report.
type SampleStats struct {
	// Samples is how many token streams were sampled.
	Samples int `json:"samples,omitempty"`
	// Votes is how many skeletons the first stream's vote drew (0: greedy).
	Votes int `json:"votes,omitempty"`
	// Tokens is the length of the kept token stream.
	Tokens int `json:"tokens,omitempty"`
	// TokensPerSecond is the samples' tokens per second of generation (the
	// skeletons a vote discards are drawn in that time but not counted).
	TokensPerSecond float64 `json:"tokens_per_second,omitempty"`
	// SampleScores are the combined reward scores of every sample, in sampling order.
	SampleScores []float64 `json:"sample_scores,omitempty"`
}

// Scorer scores a finished rig: the combined score and a JSON-able detail report.
type Scorer func(c *character.Character) (score float64, details any, err error)

// AssetReport is the JSON written to DIR/<name>.json for one input.
type AssetReport struct {
	Input string `json:"input"`
	Name  string `json:"name"`
	Outcome
	Output string `json:"output,omitempty"`
	AssetSize
	Info    *RigInfo `json:"rig,omitempty"`
	Score   *float64 `json:"score,omitempty"`
	Rewards any      `json:"rewards,omitempty"`
	// Scene says what the output replaced or dropped of the input's scene.
	Scene any `json:"scene,omitempty"`
	// TimingsMS has the stages around the rigger: load, rig, score, write, total.
	TimingsMS map[string]float64 `json:"timings_ms"`
	Finished  time.Time          `json:"finished"`
}

// Outcome is how an asset's run ended; its fields are AssetReport's in the JSON
// report.
type Outcome struct {
	// Status is "ok", "suspect" (written, but the anatomical skeleton fails its own
	// checks, or the rig scores under Batch.SuspectBelow: the reasons are in
	// Suspect) or "failed".
	Status string `json:"status"`
	// Suspect lists why a written rig is suspect: the anatomy's reasons (also in
	// rig.anatomy.suspect) and a score under Batch.SuspectBelow.
	Suspect []string `json:"suspect,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// AssetSize is how large a rigged asset is; its fields are AssetReport's in the
// JSON report.
type AssetSize struct {
	Vertices int `json:"vertices,omitempty"`
	Joints   int `json:"joints,omitempty"`
}

// Batch configures a batch run. Inputs may be mesh files (.glb, .gltf, .obj), folders
// (searched recursively for them; other files are skipped and listed with the
// reason) or manifests (.txt with one path per line, or .jsonl with a "file" field
// per row; relative paths are relative to the manifest). Any other file is an error.
type Batch struct {
	Inputs []string
	OutDir string
	// Shard and Shards select every asset whose index (in the sorted input list) is
	// Shard modulo Shards. Shards 0 means 1.
	Shard, Shards int
	// Workers rigs this many assets concurrently; 0 means GOMAXPROCS.
	Workers int
	// Force re-rigs assets that are already finished.
	Force  bool
	Rigger Rigger
	Judge
	// Isolate, when its Command is set, rigs each item in a child process (see
	// batch_worker.go), so that a fatal error or a hang ends only that child.
	Isolate Isolation
	IO      BatchIO
	// Progress receives a progress bar (stderr in the binary; a plain line every few
	// seconds when it is not a terminal); nil for none.
	Progress io.Writer
	// Log receives the files skipped in input folders and one line per failed asset
	// as it fails (stderr in the binary), so that every outcome is reported even when
	// no report file can be written; nil for none. Both are in the summary too.
	Log io.Writer
}

// Judge scores each rig of a batch for its report and flags the poor ones.
type Judge struct {
	// Score scores each rig for its report; nil skips scoring.
	Score Scorer
	// SuspectBelow is the score under which a written rig's status is "suspect"
	// (0: none): the binary sets the rigger's floor, the score under which it
	// would not keep a model's rig, so that a classical rig no better than that is
	// not reported ok (a blocky Minecraft-style zombie whose arms are stubs scores
	// 0.29; the held-out split's artists' rigs score 0.7-0.8).
	SuspectBelow float64
}

// BatchIO is the file I/O of a batch run, apart so that the binary can keep each
// input's scene and tests can read from memory and inject write failures.
type BatchIO struct {
	// Load reads an input (in the binary assets.Options{KeepScene: true}.Loader(),
	// which keeps its scene).
	Load func(path string) (*character.Character, error)
	// Encode writes a rigged output as GLB and returns what the asset's JSON
	// reports under "scene" (in the binary assets.Encode: what the output replaced
	// or dropped of its input's scene; nil for none); the batch writes the bytes to
	// DIR/<name>.glb through WriteFile.
	Encode func(w io.Writer, c *character.Character) (any, error)
	// WriteFile writes the rigged GLBs, the JSON reports and the summary (default
	// atomicfile.WriteFile: a reader never sees half a file).
	WriteFile func(path string, data []byte) error
}

// BatchSummary counts what a batch run did.
type BatchSummary struct {
	Shard    string         `json:"shard"`
	Total    int            `json:"total"` // assets in this shard
	Done     int            `json:"done"`
	Skipped  int            `json:"skipped"` // already finished before this run
	Failed   int            `json:"failed"`
	Methods  map[string]int `json:"methods"` // rigs per method
	Failures []string       `json:"failures,omitempty"`
	// Suspect counts the rigs written whose anatomical skeleton fails its own
	// checks (status "suspect"; they count in Done too).
	Suspect      int      `json:"suspect"`
	SuspectFiles []string `json:"suspect_files,omitempty"`
	// SkippedFiles are the files of input folders that are not meshes rigkit reads,
	// with the reason (the same list in every shard).
	SkippedFiles []dataset.SkippedInput `json:"skipped_files,omitempty"`
	WallS        float64                `json:"wall_s"`
}

// ShardIndexVars are the environment variables "--shard auto/N" reads its index
// from, in order: a Kubernetes Indexed Job's completion index, then a Slurm array
// task id (minus SLURM_ARRAY_TASK_MIN, so that --array=1-N works too).
var ShardIndexVars = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// ParseShard parses "k/n" (0 ≤ k < n), or "auto/n" with k from the environment
// (ShardIndexVars).
func ParseShard(s string) (k, n int, err error) {
	return ParseShardEnv(s, os.Getenv)
}

// ParseShardEnv is ParseShard with the environment read through getenv.
func ParseShardEnv(s string, getenv func(string) string) (k, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if ok && a == "auto" {
		a, err = shardIndexFromEnv(getenv)
		if err != nil {
			return 0, 0, fmt.Errorf("shard %q: %w", s, err)
		}
		s = a + "/" + b
	}
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("shard %q: want k/n with 0 <= k < n", s)
	}
	return k, n, nil
}

// shardIndexFromEnv returns the first ShardIndexVars value that is set.
func shardIndexFromEnv(getenv func(string) string) (string, error) {
	for _, v := range ShardIndexVars {
		val := strings.TrimSpace(getenv(v))
		if val == "" {
			continue
		}
		i, err := strconv.Atoi(val)
		if err != nil {
			return "", fmt.Errorf("%s=%q is not an integer", v, val)
		}
		if v == "SLURM_ARRAY_TASK_ID" {
			if lo, err := strconv.Atoi(strings.TrimSpace(getenv("SLURM_ARRAY_TASK_MIN"))); err == nil {
				i -= lo
			}
		}
		return strconv.Itoa(i), nil
	}
	return "", fmt.Errorf("auto needs one of %s in the environment (a Kubernetes Indexed Job or a Slurm array sets it)", strings.Join(ShardIndexVars, ", "))
}

// Finished reports whether DIR/<name>.json says "ok" and DIR/<name>.glb exists.
func Finished(dir, name string) bool {
	data, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		return false
	}
	var r struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(data, &r) != nil || (r.Status != "ok" && r.Status != "suspect") {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, name+".glb"))
	return err == nil
}

// Run rigs every input of this shard that is not finished yet and returns the
// summary, also written as DIR/summary-<k>-of-<n>.json. A failed asset is reported in
// its JSON and in the summary; the others go on. Run returns an error only when the
// batch itself cannot run (bad inputs, unwritable output folder).
func (b *Batch) Run() (*BatchSummary, error) {
	start := time.Now()
	if b.Rigger == nil || b.IO.Load == nil || b.IO.Encode == nil {
		return nil, errors.New("batch: Rigger, IO.Load and IO.Encode are required")
	}
	shards := max(b.Shards, 1)
	if b.Shard < 0 || b.Shard >= shards {
		return nil, fmt.Errorf("batch: shard %d of %d out of range", b.Shard, shards)
	}
	if err := checkOutputOutsideInputs(b.OutDir, b.Inputs, b.Force); err != nil {
		return nil, err
	}
	all, skipped, err := dataset.DiscoverInputs(b.Inputs)
	if err != nil {
		return nil, err
	}
	all, skipped = dropOutputs(all, skipped, b.OutDir, b.Inputs)
	all = avoidSummaryNames(all)
	dataset.LogSkipped(b.Log, skipped)
	if len(all) == 0 {
		return nil, fmt.Errorf("batch: no mesh files (%s) in %v", strings.Join(format.MeshExtensions, ", "), b.Inputs)
	}
	if err := checkOutputFolder(b.OutDir); err != nil {
		return nil, err
	}
	b.setDefaults()
	summaryFile := fmt.Sprintf("summary-%d-of-%d.json", b.Shard, shards)
	var mine []dataset.BatchItem
	for i, it := range all {
		if i%shards == b.Shard {
			mine = append(mine, it)
		}
	}
	removeStaleTemps(b.OutDir, mine, summaryFile)
	sum := &BatchSummary{Shard: fmt.Sprintf("%d/%d", b.Shard, shards), Total: len(mine), Methods: map[string]int{}, SkippedFiles: skipped}
	var todo []dataset.BatchItem
	for _, it := range mine {
		if !b.Force && Finished(b.OutDir, it.Name) {
			sum.Skipped++
			continue
		}
		todo = append(todo, it)
	}
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(todo)))
	bar := progress.New(b.Progress, "rig auto", len(todo))
	var mu sync.Mutex
	jobs := make(chan dataset.BatchItem)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range jobs {
				rep := b.rigItem(it)
				mu.Lock()
				if rep.Status == "ok" || rep.Status == "suspect" {
					sum.Done++
					sum.Methods[rep.Info.Method]++
					if rep.Status == "suspect" {
						sum.Suspect++
						sum.SuspectFiles = append(sum.SuspectFiles, it.Path)
						if b.Log != nil {
							fmt.Fprintf(b.Log, "rig auto: suspect: %s: %s\n", it.Path, strings.Join(rep.Suspect, "; "))
						}
					}
				} else {
					sum.Failed++
					sum.Failures = append(sum.Failures, it.Path+": "+rep.Error)
					if b.Log != nil {
						fmt.Fprintf(b.Log, "rig auto: failed: %s: %s\n", it.Path, firstLines(rep.Error, 1))
					}
				}
				bar.Add(1, sum.Failed)
				mu.Unlock()
			}
		}()
	}
	for _, it := range todo {
		jobs <- it
	}
	close(jobs)
	wg.Wait()
	bar.Finish()
	sort.Strings(sum.Failures)
	sort.Strings(sum.SuspectFiles)
	sum.WallS = time.Since(start).Seconds()
	data, _ := json.MarshalIndent(sum, "", "  ")
	if err := b.IO.WriteFile(filepath.Join(b.OutDir, summaryFile), append(data, '\n')); err != nil {
		return sum, fmt.Errorf("batch: summary not written: %w", err)
	}
	return sum, nil
}

// one rigs a single asset and writes its outputs; it never panics.
func (b *Batch) one(it dataset.BatchItem) (rep *AssetReport) {
	t0 := time.Now()
	rep = &AssetReport{Input: it.Path, Name: it.Name, Outcome: Outcome{Status: "failed"}, TimingsMS: map[string]float64{}}
	lap := func(stage string, t time.Time) { rep.TimingsMS[stage] = ms(time.Since(t)) }
	defer func() {
		if r := recover(); r != nil {
			rep.Status = "failed"
			rep.Error = fmt.Sprintf("panic: %v\n%s", r, firstLines(string(debug.Stack()), 12))
		}
		rep.TimingsMS["total"] = ms(time.Since(t0))
		rep.Finished = time.Now().UTC()
		if rep.Status == "failed" {
			// The failure report is best effort: the summary and the log list the
			// failure anyway, and say when its report could not be written.
			data, _ := json.MarshalIndent(rep, "", "  ")
			if err := b.IO.WriteFile(filepath.Join(b.OutDir, it.Name+".json"), append(data, '\n')); err != nil {
				rep.Error += fmt.Sprintf(" (report not written: %v)", err)
			}
		}
	}()
	if err := precheckInput(it.Path); err != nil {
		rep.Error = err.Error()
		return rep
	}
	t := time.Now()
	c, err := b.IO.Load(it.Path)
	lap("load", t)
	if err != nil {
		rep.Error = err.Error() // assets.Options{}.Loader()'s errors say "load FILE: ..."
		return rep
	}
	if err := c.Mesh.Validate(); err != nil {
		rep.Error = fmt.Sprintf("load %s: %v", it.Path, err)
		return rep
	}
	rep.Vertices = len(c.Mesh.Positions)
	t = time.Now()
	rigged, info, err := b.Rigger.Rig(c)
	lap("rig", t)
	if err != nil {
		rep.Error = fmt.Sprintf("rig: %v", err)
		return rep
	}
	rep.Info = info
	if err := sampler.CheckRig(rigged); err != nil {
		rep.Error = fmt.Sprintf("rig is invalid: %v", err)
		return rep
	}
	rep.Joints = rigged.Skeleton.NumJoints()
	if info != nil && info.Score != nil {
		rep.Score, rep.Rewards = info.Score, info.Rewards
	} else if b.Score != nil {
		t = time.Now()
		s, details, err := b.Score(rigged)
		lap("score", t)
		if err != nil {
			rep.Error = fmt.Sprintf("score: %v", err)
			return rep
		}
		rep.Score, rep.Rewards = &s, details
	}
	t = time.Now()
	out := filepath.Join(b.OutDir, it.Name+".glb")
	if replacesInput(out, it.Path) {
		rep.Error = fmt.Sprintf("write: %s is the input itself; refused to replace it (use an --out folder apart from the inputs)", out)
		return rep
	}
	if err := b.write(rep, rigged, out); err != nil {
		rep.Error = fmt.Sprintf("write: %v", err)
		return rep
	}
	lap("write", t)
	rep.Status, rep.Output = "ok", out
	if rep.Suspect = b.suspicions(rep); len(rep.Suspect) > 0 {
		rep.Status = "suspect"
	}
	rep.TimingsMS["total"] = ms(time.Since(t0))
	rep.Finished = time.Now().UTC()
	data, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = b.IO.WriteFile(filepath.Join(b.OutDir, it.Name+".json"), append(data, '\n'))
	}
	if err != nil {
		rep.Status, rep.Error = "failed", fmt.Sprintf("write report: %v", err)
	}
	return rep
}

// write encodes a rig as GLB and writes it to out through IO.WriteFile, recording
// in rep what the output replaced or dropped of its input's scene.
func (b *Batch) write(rep *AssetReport, rigged *character.Character, out string) error {
	var buf bytes.Buffer
	var err error
	if rep.Scene, err = b.IO.Encode(&buf, rigged); err != nil {
		return err
	}
	return b.IO.WriteFile(out, buf.Bytes())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// suspicions returns why a written rig is suspect: the anatomy's own reasons,
// then a score under SuspectBelow.
func (b *Batch) suspicions(rep *AssetReport) []string {
	var why []string
	if rep.Info != nil && rep.Info.Anatomy != nil && rep.Info.Anatomy.Status == "suspect" {
		why = append(why, rep.Info.Anatomy.Suspect...)
	}
	if rep.Score != nil && *rep.Score < b.SuspectBelow {
		why = append(why, fmt.Sprintf("the rig scores %.3f, under %.2f: check it before use", *rep.Score, b.SuspectBelow))
	}
	return why
}
