package eval

import (
	"fmt"
	"math/rand/v2"
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

// SkinPaired compares one method with the baseline over one split.
type SkinPaired struct {
	// Metric is what is compared: pairedDeform (the whole mesh) or pairedJoints
	// (the joint regions, skin_joints.go).
	Metric   string `json:"metric,omitempty"`
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

// The metrics of the paired comparisons.
const (
	pairedDeform = "deformation"
	pairedJoints = "joint regions"
)

// pairedValue is a result's value of a paired metric; ok is false when the result
// has none.
func pairedValue(r SkinResult, metric string) (float64, bool) {
	if r.Error != "" || r.Metrics == nil {
		return 0, false
	}
	if metric == pairedJoints {
		if r.Joints == nil {
			return 0, false
		}
		return r.Joints.Deform, true
	}
	return r.Metrics.DeformMean, true
}

// pairSkin returns the paired comparison of method against baseline on metric over
// the files of results that keep accepts and both scored; ok is false when there
// are none.
func pairSkin(results []SkinResult, metric, method, baseline, split string, keep func(string) bool, seed int64) (SkinPaired, bool) {
	base := map[string]float64{}
	for _, r := range results {
		if v, ok := pairedValue(r, metric); ok && r.Method == baseline && keep(r.Category) {
			base[r.File] = v
		}
	}
	p := SkinPaired{Metric: metric, Method: method, Baseline: baseline, Split: split}
	var d []float64
	for _, r := range results {
		v, ok := pairedValue(r, metric)
		if r.Method != method || !ok || !keep(r.Category) {
			continue
		}
		b, ok := base[r.File]
		if !ok {
			continue
		}
		x := v - b
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
func pairedMarkdown(ps []SkinPaired) string {
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### paired against %s\n\n", ps[0].Baseline)
	b.WriteString("Deformation ×100 (of the whole mesh, or of the joint regions) of each method minus the baseline's on the same file, over the files both scored; the interval is a 95% bootstrap over files. An interval that contains 0 is a tie at this sample size.\n\n")
	b.WriteString("| split | metric | method | files | mean difference | 95% interval | files lower / higher |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|\n")
	for _, p := range ps {
		metric := p.Metric
		if metric == "" {
			metric = pairedDeform
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %+.3f | [%+.3f, %+.3f] | %d / %d |\n",
			p.Split, metric, p.Method, p.Files, p.MeanDiff, p.Low, p.High, p.Lower, p.Higher)
	}
	return b.String()
}
