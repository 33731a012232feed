package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/sampler"
)

// The skeleton and rig tasks (`rig eval --task skeleton|rig`): METRICS.md skeleton
// metrics (and, for whole rigs, rewards and validity) over the held-out split of a
// folder of ground-truth rigs.

// SkeletonPredictor predicts a skeleton (world space) for a character's mesh.
type SkeletonPredictor func(c *character.Character) (*character.Skeleton, error)

// Row is one asset of an evaluation.
type Row struct {
	File     string                  `json:"file"`
	Family   string                  `json:"family"`
	Method   string                  `json:"method"`
	Skeleton *metrics.SkeletonResult `json:"skeleton,omitempty"`
	// Score is the rewards' combined score of the predicted rig (task rig), and
	// GTScore that of the artist's rig on the same mesh.
	Score   *float64 `json:"score,omitempty"`
	GTScore *float64 `json:"gt_score,omitempty"`
	// Rewards are the predicted rig's rewards (task rig), from which the score of
	// each reward version's combination is computed (Summary.VersionScores).
	Rewards map[string]float64 `json:"rewards,omitempty"`
	Valid   *bool              `json:"valid,omitempty"`
	Seconds float64            `json:"seconds"`
	Error   string             `json:"error,omitempty"`
}

// Report is a whole evaluation: rows per method and asset, and a summary per
// method.
type Report struct {
	Task    string             `json:"task"`
	Split   string             `json:"split"`
	Rows    []Row              `json:"rows"`
	Summary map[string]Summary `json:"summary"`
}

// Summary averages one method's rows (failures excluded, and counted).
type Summary struct {
	Assets int `json:"assets"`
	Failed int `json:"failed"`
	skeletonMeans
	Score   float64        `json:"score,omitempty"`
	GTScore float64        `json:"gt_score,omitempty"`
	Valid   int            `json:"valid,omitempty"`
	Methods map[string]int `json:"methods,omitempty"` // final methods (task rig)
	// VersionScores is the mean score of the predicted rigs under each reward
	// version's combination (rewards.WeightsFor), task rig: what training on one
	// version's score would see against another's.
	VersionScores map[string]float64 `json:"version_scores,omitempty"`
	MedianS       float64            `json:"median_s"`
	tally
}

// skeletonMeans are the mean skeleton metrics of a method's rows.
type skeletonMeans struct {
	CDJ2J      float64 `json:"cd_j2j"`
	CDJ2B      float64 `json:"cd_j2b"`
	CDB2B      float64 `json:"cd_b2b"`
	PredJoints float64 `json:"pred_joints"`
	GTJoints   float64 `json:"gt_joints"`
}

// tally holds what summarize divides by: the rows' times and the rows with a score.
type tally struct {
	seconds     []float64
	scoreN, gtN int
}

// Skeletons is the skeleton task: each predictor on every ground-truth rig of the
// held-out split of files (all files when no split applies), skeletons compared as
// METRICS.md says.
func Skeletons(files []File, methods map[string]SkeletonPredictor, progress io.Writer) *Report {
	items, fam, split := heldOutItems(files)
	rep := compareSkeletons(items, fam, assets.Options{}.Loader(), methods, progress)
	rep.Split = split
	return rep
}

// Rigs is the rig task: each rigger on every ground-truth mesh of the held-out split
// of files (all files when no split applies).
func Rigs(files []File, riggers map[string]autorig.Rigger, progress io.Writer) *Report {
	items, fam, split := heldOutItems(files)
	rep := compareRigs(items, fam, assets.Options{}.Loader(), riggers, progress)
	rep.Split = split
	return rep
}

// compareSkeletons runs each predictor on every ground-truth rig and compares the
// skeletons (METRICS.md, in ground truth's normalized frame).
func compareSkeletons(items []dataset.BatchItem, fam map[string]dataset.File, load func(string) (*character.Character, error), methods map[string]SkeletonPredictor, progressTo io.Writer) *Report {
	rep := &Report{Task: "skeleton"}
	names := sortedKeys(methods)
	bar := progress.New(progressTo, "eval skeleton", len(items)*len(names))
	failed := 0
	for _, it := range items {
		gt, err := load(it.Path)
		for _, name := range names {
			row := Row{File: it.Path, Family: fam[it.Path].Family, Method: name}
			if err != nil || !gt.Rigged() {
				row.Error = fmt.Sprintf("ground truth: %v", errOr(err, "not rigged"))
			} else {
				in := &character.Character{Name: gt.Name, Mesh: gt.Mesh}
				t := time.Now()
				sk, perr := methods[name](in)
				row.Seconds = time.Since(t).Seconds()
				if perr != nil {
					row.Error = perr.Error()
				} else {
					m := metrics.SkeletonMetrics(gt.Skeleton, sk, character.NormalizationOf(gt.Mesh))
					row.Skeleton = &m
				}
			}
			if row.Error != "" {
				failed++
			}
			rep.Rows = append(rep.Rows, row)
			bar.Add(1, failed)
		}
	}
	bar.Finish()
	rep.summarize()
	return rep
}

// compareRigs rigs every ground-truth mesh with each rigger and reports the skeleton
// metrics, the rewards' score (next to the artist's rig's), validity, and which
// method produced each rig.
func compareRigs(items []dataset.BatchItem, fam map[string]dataset.File, load func(string) (*character.Character, error), riggers map[string]autorig.Rigger, progressTo io.Writer) *Report {
	rep := &Report{Task: "rig"}
	names := sortedKeys(riggers)
	bar := progress.New(progressTo, "eval rig", len(items)*len(names))
	failed := 0
	for _, it := range items {
		gt, err := load(it.Path)
		var gtScore *float64
		if err == nil && gt.Rigged() {
			if r, serr := rewards.Score(gt, rewards.Options{Motion: animation.ClipPoses}); serr == nil {
				gtScore = &r.Score
			}
		}
		for _, name := range names {
			row := Row{File: it.Path, Family: fam[it.Path].Family, Method: name, GTScore: gtScore}
			if err != nil || !gt.Rigged() {
				row.Error = fmt.Sprintf("ground truth: %v", errOr(err, "not rigged"))
			} else {
				in := &character.Character{Name: gt.Name, Mesh: gt.Mesh, Materials: gt.Materials}
				t := time.Now()
				rig, info, rerr := riggers[name].Rig(in)
				row.Seconds = time.Since(t).Seconds()
				if rerr != nil {
					row.Error = rerr.Error()
				} else {
					valid := sampler.CheckRig(rig) == nil
					row.Valid = &valid
					row.Method = name + ":" + info.Method
					m := metrics.SkeletonMetrics(gt.Skeleton, rig.Skeleton, character.NormalizationOf(gt.Mesh))
					row.Skeleton = &m
					if r, serr := rewards.Score(rig, rewards.Options{Motion: animation.ClipPoses}); serr == nil {
						row.Score, row.Rewards = &r.Score, r.Rewards
					}
				}
			}
			if row.Error != "" {
				failed++
			}
			rep.Rows = append(rep.Rows, row)
			bar.Add(1, failed)
		}
	}
	bar.Finish()
	rep.summarize()
	return rep
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

func (rep *Report) summarize() {
	rep.Summary = map[string]Summary{}
	for _, r := range rep.Rows {
		key, final, _ := strings.Cut(r.Method, ":")
		s := rep.Summary[key]
		s.Assets++
		if r.Error != "" {
			s.Failed++
			rep.Summary[key] = s
			continue
		}
		if final != "" {
			if s.Methods == nil {
				s.Methods = map[string]int{}
			}
			s.Methods[final]++
		}
		if r.Skeleton != nil && !math.IsInf(r.Skeleton.CDJ2J, 0) {
			s.CDJ2J += r.Skeleton.CDJ2J
			s.CDJ2B += r.Skeleton.CDJ2B
			s.CDB2B += r.Skeleton.CDB2B
			s.PredJoints += float64(r.Skeleton.PredJoints)
			s.GTJoints += float64(r.Skeleton.GTJoints)
		}
		if r.Score != nil {
			s.Score += *r.Score
			s.scoreN++
			s.addVersionScores(r)
		}
		if r.GTScore != nil {
			s.GTScore += *r.GTScore
			s.gtN++
		}
		if r.Valid != nil && *r.Valid {
			s.Valid++
		}
		s.seconds = append(s.seconds, r.Seconds)
		rep.Summary[key] = s
	}
	for k, s := range rep.Summary {
		n := float64(s.Assets - s.Failed)
		if n > 0 {
			s.CDJ2J /= n
			s.CDJ2B /= n
			s.CDB2B /= n
			s.PredJoints /= n
			s.GTJoints /= n
		}
		if s.scoreN > 0 {
			s.Score /= float64(s.scoreN)
			for v := range s.VersionScores {
				s.VersionScores[v] /= float64(s.scoreN)
			}
		}
		if s.gtN > 0 {
			s.GTScore /= float64(s.gtN)
		}
		if len(s.seconds) > 0 {
			sort.Float64s(s.seconds)
			s.MedianS = s.seconds[len(s.seconds)/2]
		}
		rep.Summary[k] = s
	}
}

// addVersionScores adds a scored row's score under each reward version's
// combination; an unscorable rig (score 0) scores 0 under all of them.
func (s *Summary) addVersionScores(r Row) {
	if r.Rewards == nil {
		return
	}
	if s.VersionScores == nil {
		s.VersionScores = map[string]float64{}
	}
	for _, v := range rewards.RewardVersions() {
		score := 0.0
		if w, err := rewards.WeightsFor(v); err == nil && *r.Score > 0 {
			score = rewards.CombineWith(r.Rewards, w)
		}
		s.VersionScores[v] += score
	}
}

// Markdown renders the summary table (distances ×10⁻², as papers report them).
func (rep *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### task %s, %s\n\n", rep.Task, rep.Split)
	if rep.Task == "rig" {
		b.WriteString("| method | assets | failed | valid | CD-J2J ×10⁻² | CD-J2B ×10⁻² | CD-B2B ×10⁻² | joints (pred / GT) | reward score (pred / GT) | final methods | median s |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	} else {
		b.WriteString("| method | assets | failed | CD-J2J ×10⁻² | CD-J2B ×10⁻² | CD-B2B ×10⁻² | joints (pred / GT) | median s |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	}
	for _, k := range sortedKeys(rep.Summary) {
		s := rep.Summary[k]
		if rep.Task == "rig" {
			var ms []string
			for _, m := range sortedKeys(s.Methods) {
				ms = append(ms, fmt.Sprintf("%s: %d", m, s.Methods[m]))
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.2f | %.2f | %.2f | %.1f / %.1f | %.3f / %.3f | %s | %.2f |\n",
				k, s.Assets, s.Failed, s.Valid, 100*s.CDJ2J, 100*s.CDJ2B, 100*s.CDB2B, s.PredJoints, s.GTJoints, s.Score, s.GTScore, strings.Join(ms, ", "), s.MedianS)
		} else {
			fmt.Fprintf(&b, "| %s | %d | %d | %.2f | %.2f | %.2f | %.1f / %.1f | %.2f |\n",
				k, s.Assets, s.Failed, 100*s.CDJ2J, 100*s.CDJ2B, 100*s.CDB2B, s.PredJoints, s.GTJoints, s.MedianS)
		}
	}
	b.WriteString(rep.versionScoresMarkdown())
	return b.String()
}

// versionScoresMarkdown lists each method's mean score under every reward
// version's combination ("" when no row was scored).
func (rep *Report) versionScoresMarkdown() string {
	var lines []string
	for _, k := range sortedKeys(rep.Summary) {
		vs := rep.Summary[k].VersionScores
		if len(vs) == 0 {
			continue
		}
		var parts []string
		for _, v := range sortedKeys(vs) {
			parts = append(parts, fmt.Sprintf("%s %.3f", v, vs[v]))
		}
		lines = append(lines, fmt.Sprintf("- %s: %s", k, strings.Join(parts, ", ")))
	}
	if len(lines) == 0 {
		return ""
	}
	return "\nMean score of the predicted rigs under each reward version's weights (the rewards of this build):\n\n" + strings.Join(lines, "\n") + "\n"
}

// JSON renders the whole report.
func (rep *Report) JSON() []byte {
	data, _ := json.MarshalIndent(rep, "", "  ")
	return append(data, '\n')
}
