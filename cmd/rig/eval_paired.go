package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
)

// Paired comparisons of skin methods. On a few dozen files the spread between files
// is larger than the gap between good methods, so a table of means cannot say which
// of two methods is better. Comparing them file by file on the same files can: the
// differences carry no between-file spread, and a bootstrap over files gives an
// interval for their mean.

// pairedResamples is the number of bootstrap resamples behind each interval.
const pairedResamples = 10000

// skinPaired compares one method with the baseline over one split.
type skinPaired struct {
	Method   string `json:"method"`
	Baseline string `json:"baseline"`
	Split    string `json:"split"`
	// Files is the number of files both scored.
	Files int `json:"files"`
	// MeanDiff is the mean over those files of method − baseline deformation
	// (×100): negative means the method deforms closer to the artist's rig.
	MeanDiff float64 `json:"mean_diff"`
	// Low and High bound the 95% percentile bootstrap interval of MeanDiff
	// (resampling files, pairedResamples times, seeded).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Lower and Higher count files where the method's deformation is below and
	// above the baseline's.
	Lower  int `json:"lower"`
	Higher int `json:"higher"`
}

// pairSkin returns the paired comparison of method against baseline over the files
// of results that keep accepts and both scored; ok is false when there are none.
func pairSkin(results []skinEvalResult, method, baseline, split string, keep func(string) bool, seed int64) (skinPaired, bool) {
	base := map[string]float64{}
	for _, r := range results {
		if r.Method == baseline && r.Error == "" && r.Metrics != nil && keep(r.Category) {
			base[r.File] = r.Metrics.DeformMean
		}
	}
	p := skinPaired{Method: method, Baseline: baseline, Split: split}
	var d []float64
	for _, r := range results {
		if r.Method != method || r.Error != "" || r.Metrics == nil || !keep(r.Category) {
			continue
		}
		b, ok := base[r.File]
		if !ok {
			continue
		}
		x := r.Metrics.DeformMean - b
		d = append(d, x)
		switch {
		case x < 0:
			p.Lower++
		case x > 0:
			p.Higher++
		}
	}
	if len(d) == 0 {
		return p, false
	}
	p.Files = len(d)
	for _, x := range d {
		p.MeanDiff += x
	}
	p.MeanDiff /= float64(len(d))
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9a1ed))
	means := make([]float64, pairedResamples)
	for i := range means {
		s := 0.0
		for range d {
			s += d[rng.IntN(len(d))]
		}
		means[i] = s / float64(len(d))
	}
	slices.Sort(means)
	p.Low = means[pairedResamples*25/1000]
	p.High = means[pairedResamples*975/1000-1]
	return p, true
}

// pairedMarkdown is the report's section of paired comparisons ("" if none).
func pairedMarkdown(ps []skinPaired) string {
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### paired against %s\n\n", ps[0].Baseline)
	b.WriteString("Deformation ×100 of each method minus the baseline's on the same file, over the files both scored; the interval is a 95% bootstrap over files. An interval that contains 0 is a tie at this sample size.\n\n")
	b.WriteString("| split | method | files | mean difference | 95% interval | files lower / higher |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "| %s | %s | %d | %+.3f | [%+.3f, %+.3f] | %d / %d |\n",
			p.Split, p.Method, p.Files, p.MeanDiff, p.Low, p.High, p.Lower, p.Higher)
	}
	return b.String()
}

// loadSkinReports merges earlier skin reports (their JSON) into one, for `rig eval
// --from`. They must share the pose seed; a file scored by the same method in two
// reports must have the same metrics there.
func loadSkinReports(paths []string) (skinEvalReport, error) {
	rep := skinEvalReport{Task: "skin"}
	seen := map[[2]string]skinEvalResult{}
	for i, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return rep, fmt.Errorf("eval --from: %w", err)
		}
		var r skinEvalReport
		if err := json.Unmarshal(data, &r); err != nil {
			return rep, fmt.Errorf("eval --from %s: not a skin report: %w", path, err)
		}
		if r.Task != "skin" {
			return rep, fmt.Errorf("eval --from %s: task %q, want a skin report", path, r.Task)
		}
		if i == 0 {
			rep.Seed = r.Seed
		} else if r.Seed != rep.Seed {
			return rep, fmt.Errorf("eval --from %s: pose seed %d, but %s has %d; reports to merge must share it", path, r.Seed, paths[0], rep.Seed)
		}
		for _, m := range r.Methods {
			if !slices.Contains(rep.Methods, m) {
				rep.Methods = append(rep.Methods, m)
			}
		}
		for _, res := range r.Results {
			if res.Method == groundTruthMethod {
				continue
			}
			k := [2]string{res.File, res.Method}
			if old, ok := seen[k]; ok {
				if !sameSkinResult(old, res) {
					return rep, fmt.Errorf("eval --from %s: %s by %s differs from an earlier report's", path, res.File, res.Method)
				}
				continue
			}
			seen[k] = res
			rep.Results = append(rep.Results, res)
		}
	}
	if len(rep.Results) == 0 {
		return rep, fmt.Errorf("eval --from %v: no results", paths)
	}
	return rep, nil
}

func sameSkinResult(a, b skinEvalResult) bool {
	if a.Error != b.Error || (a.Metrics == nil) != (b.Metrics == nil) {
		return false
	}
	return a.Metrics == nil || (a.Metrics.DeformMean == b.Metrics.DeformMean && a.Metrics.L1 == b.Metrics.L1)
}
