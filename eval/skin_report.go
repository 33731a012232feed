package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/skinning"
)

// SkinSummary aggregates one method over one split.
type SkinSummary struct {
	Method          string `json:"method"`
	Split           string `json:"split"`
	Assets          int    `json:"assets"`
	Usable          int    `json:"usable"`
	Failed          int    `json:"failed"`
	EmptyBoneAssets int    `json:"assets_with_empty_bones"`
	OrphanAssets    int    `json:"assets_with_orphans"`
	skinMeans
	MedianSeconds float64 `json:"median_seconds"`
	leakMeans
	jointMeans
}

// jointMeans sum the joint-region scores of the usable results that have them.
type jointMeans struct {
	JointAssets int `json:"joint_assets"`
	// JointDeform is the mean joint-region deformation (×100) over those assets.
	JointDeform      float64 `json:"joint_deform"`
	Regions          int     `json:"joint_regions"`
	TornRegions      int     `json:"torn_regions"`
	CollapsedRegions int     `json:"collapsed_regions"`
}

// add counts one result's joint regions.
func (j *jointMeans) add(r *JointRegionResult) {
	if r == nil {
		return
	}
	j.JointAssets++
	j.JointDeform += r.Deform
	j.Regions += r.Regions
	j.TornRegions += r.Torn
	j.CollapsedRegions += r.Collapsed
}

// skinMeans are the mean skin metrics of the usable results.
type skinMeans struct {
	DeformMean float64 `json:"deform_mean"`
	DeformMax  float64 `json:"deform_max"`
	L1         float64 `json:"l1"`
	Precision  float64 `json:"precision"`
	Recall     float64 `json:"recall"`
}

// leakMeans is the mean leakage of the results that measured it.
type leakMeans struct {
	LeakMeasured  bool    `json:"leak_measured"`
	LeakWeight    float64 `json:"leak_weight"`
	LeakyVertices float64 `json:"leaky_vertex_fraction"`
}

// skinSplits are the report's splits, in order: the characters, the props, all.
var skinSplits = []struct {
	name string
	keep func(category string) bool
}{
	{"characters", isCharacter},
	{"props", func(c string) bool { return !isCharacter(c) }},
	{"all", func(string) bool { return true }},
}

// Summarize sets the summaries of every method (and of the ground truth's leakage)
// per split and, when baseline names one of the methods, the paired comparison of
// every other method with it per split.
func (rep *SkinReport) Summarize(baseline string) {
	rep.Summaries, rep.Paired = nil, nil
	for _, sp := range skinSplits {
		for _, m := range append(append([]string(nil), rep.Methods...), GroundTruthMethod) {
			s := summarizeSkin(rep.Results, m, sp.name, sp.keep)
			if s.Assets > 0 {
				rep.Summaries = append(rep.Summaries, s)
			}
		}
	}
	if baseline == "" {
		return
	}
	for _, metric := range []string{pairedDeform, pairedJoints} {
		for _, sp := range skinSplits {
			for _, m := range rep.Methods {
				if m == baseline {
					continue
				}
				if p, ok := pairSkin(rep.Results, metric, m, baseline, sp.name, sp.keep, rep.Seed); ok {
					rep.Paired = append(rep.Paired, p)
				}
			}
		}
	}
}

func summarizeSkin(results []SkinResult, method, split string, keep func(string) bool) SkinSummary {
	s := SkinSummary{Method: method, Split: split}
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
		s.jointMeans.add(r.Joints)
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
	if s.JointAssets > 0 {
		s.JointDeform /= float64(s.JointAssets)
	}
	if leaks > 0 {
		s.LeakMeasured = true
		s.LeakWeight /= float64(leaks)
		s.LeakyVertices /= float64(leaks)
	}
	return s
}

// Markdown renders the summary table of each split, the paired comparisons and the
// failures.
func (rep *SkinReport) Markdown() string {
	var b strings.Builder
	files := map[string]bool{}
	for _, r := range rep.Results {
		files[r.File] = true
	}
	fmt.Fprintf(&b, "# rig eval --task skin\n\n%d files; metrics of shared/METRICS.md (seed %d, %d poses up to 45°; deformation ×100 in normalized units).\n",
		len(files), rep.Seed, metrics.DeformPoses)
	if rep.KeepIdle {
		b.WriteString("Joints the artist's skin gives no weight (a floor root, an armature node) get none in any method's skin, as `rig skin --keep-idle` leaves them.\n")
	}
	if slices.ContainsFunc(rep.Summaries, func(s SkinSummary) bool { return s.LeakMeasured }) {
		fmt.Fprintf(&b, "Leak: mean weight per vertex on bones whose geodesic distance through the solid (voxels, 128 along the longest axis) exceeds %g× the straight-line distance; leaky %%: vertices with more than %g of it.\n",
			skinning.LeakDetour, skinning.LeakyVertexWeight)
	}
	titles := map[string]string{
		"characters": "characters only (biped, quadruped, winged, creature)",
		"props":      "props (everything else)",
		"all":        "all assets (props included)",
	}
	for _, split := range []string{"characters", "props", "all"} {
		var rows []SkinSummary
		for _, s := range rep.Summaries {
			if s.Split == split {
				rows = append(rows, s)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s: %d assets\n\n", titles[split], rows[0].Assets)
		b.WriteString("| method | usable | unmatched/failed | assets with empty bones | deformation mean ×100 | joint regions ×100 | torn / collapsed regions | deformation max ×100 | L1 | precision | recall | median s | orphan assets | leak | leaky % |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range rows {
			b.WriteString(skinRow(s))
		}
	}
	var failures []string
	for _, r := range rep.Results {
		if r.Error != "" {
			failures = append(failures, fmt.Sprintf("- %s (%s): %s", r.File, r.Method, oneLine(r.Error)))
		}
	}
	b.WriteString(pairedMarkdown(rep.Paired))
	if len(failures) > 0 {
		b.WriteString("\n### failures\n\n" + strings.Join(failures, "\n") + "\n")
	}
	return b.String()
}

// skinRow is one summary's table row; the ground truth has its leakage alone.
func skinRow(s SkinSummary) string {
	leak := "–"
	leaky := "–"
	if s.LeakMeasured {
		leak = fmt.Sprintf("%.4f", s.LeakWeight)
		leaky = fmt.Sprintf("%.2f", 100*s.LeakyVertices)
	}
	if s.Method == GroundTruthMethod {
		return fmt.Sprintf("| %s | | | | | | | | | | | | | %s | %s |\n", s.Method, leak, leaky)
	}
	joints, broken := "–", "–"
	if s.JointAssets > 0 {
		joints = fmt.Sprintf("%.2f", s.JointDeform)
		broken = fmt.Sprintf("%d / %d of %d", s.TornRegions, s.CollapsedRegions, s.Regions)
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %.2f | %s | %s | %.2f | %.3f | %.3f | %.3f | %.3f | %d | %s | %s |\n",
		s.Method, s.Usable, s.Failed, s.EmptyBoneAssets, s.DeformMean, joints, broken, s.DeformMax, s.L1, s.Precision, s.Recall, s.MedianSeconds, s.OrphanAssets, leak, leaky)
}

// oneLine folds a message's whitespace and line breaks into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// MergeSkinReports merges earlier skin reports (their JSON) into one, unsummarized,
// for `rig eval --from`. They must share the pose seed; a file scored by the same
// method in two reports must have the same metrics there.
func MergeSkinReports(paths []string) (*SkinReport, error) {
	rep := &SkinReport{Task: "skin"}
	seen := map[[2]string]SkinResult{}
	for i, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("eval --from: %w", err)
		}
		var r SkinReport
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("eval --from %s: not a skin report: %w", path, err)
		}
		if r.Task != "skin" {
			return nil, fmt.Errorf("eval --from %s: task %q, want a skin report", path, r.Task)
		}
		if i == 0 {
			rep.Seed = r.Seed
		} else if r.Seed != rep.Seed {
			return nil, fmt.Errorf("eval --from %s: pose seed %d, but %s has %d; reports to merge must share it", path, r.Seed, paths[0], rep.Seed)
		}
		for _, m := range r.Methods {
			if !slices.Contains(rep.Methods, m) {
				rep.Methods = append(rep.Methods, m)
			}
		}
		for _, res := range r.Results {
			if res.Method == GroundTruthMethod {
				continue
			}
			k := [2]string{res.File, res.Method}
			if old, ok := seen[k]; ok {
				if !sameSkinResult(old, res) {
					return nil, fmt.Errorf("eval --from %s: %s by %s differs from an earlier report's", path, res.File, res.Method)
				}
				continue
			}
			seen[k] = res
			rep.Results = append(rep.Results, res)
		}
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("eval --from %v: no results", paths)
	}
	return rep, nil
}

func sameSkinResult(a, b SkinResult) bool {
	if a.Error != b.Error || (a.Metrics == nil) != (b.Metrics == nil) {
		return false
	}
	return a.Metrics == nil || (a.Metrics.DeformMean == b.Metrics.DeformMean && a.Metrics.L1 == b.Metrics.L1)
}
