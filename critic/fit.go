package critic

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rigkit/rigkit/dataset"
)

// Fitting (`rig train-critic`; eval.CriticCandidates builds the candidates):
// per character of the tune half, candidates with their CD-J2J to the artist's
// skeleton and their features; the weights order every pair whose CD-J2J differ
// by MinGap or more. The report half is read only for its pair accuracy.

// MinGap (cube units) is the least CD-J2J difference of a training pair:
// closer pairs are ties the critic need not order.
const MinGap = 0.01

// Candidate is one skeleton of a character.
type Candidate struct {
	Name string    `json:"name"`
	CD   float64   `json:"cd_j2j"` // CD-J2J to the artist's skeleton, cube units
	F    []float64 `json:"features"`
}

// Character is one character's candidates, or why it has none.
type Character struct {
	File  string      `json:"file"`
	Half  string      `json:"half"`
	Cands []Candidate `json:"candidates"`
	Err   string      `json:"error,omitempty"`
}

// FitOptions configure Fit.
type FitOptions struct {
	L2       float64  // ridge penalty on the standardized weights (0: 1)
	Features []string // the features fitted (none: all); the others weigh 0
	FullAt   float64  // the logit from which the critic gives full credit (Model.FullAt)
	Seed     int64    // the seed the candidates were drawn with, for the record
}

// Report says what Fit fitted and how well it orders pairs.
type Report struct {
	Model      *Model
	Characters map[string]int // per half, the characters with candidates
	Accuracy   map[string]float64
	// MeanLogit is, per half and candidate kind, the critic's mean logit.
	MeanLogit map[string]map[string]float64
	Failed    []string
}

// Fit fits the critic on the tune half's characters of chars over
// opt.Features and measures both halves' pair accuracy.
func Fit(chars []Character, opt FitOptions) (*Report, error) {
	if opt.L2 <= 0 {
		opt.L2 = 1
	}
	use, err := featureMask(opt.Features)
	if err != nil {
		return nil, err
	}
	rep := &Report{Characters: map[string]int{}, Accuracy: map[string]float64{}, MeanLogit: map[string]map[string]float64{}}
	if err := checkCandidates(chars); err != nil {
		return nil, err
	}
	var tune []Character
	for _, c := range chars {
		if c.Err != "" {
			rep.Failed = append(rep.Failed, c.File+": "+c.Err)
			continue
		}
		rep.Characters[c.Half]++
		if c.Half == dataset.TuneHalf {
			tune = append(tune, c)
		}
	}
	if len(tune) == 0 {
		return nil, fmt.Errorf("train critic: no character of the tune half gave candidates (%d failed)", len(rep.Failed))
	}
	model, pairs := fit(tune, opt.L2, use)
	model.FullAt = opt.FullAt
	rep.Model = model
	for _, half := range []string{dataset.TuneHalf, dataset.ReportHalf} {
		rep.Accuracy[half], rep.MeanLogit[half] = accuracy(model, chars, half)
	}
	model.Training = Training{
		Characters: rep.Characters[dataset.TuneHalf], Candidates: countCandidates(tune), Pairs: pairs,
		Seed: opt.Seed, L2: opt.L2, PairAccuracy: rep.Accuracy[dataset.TuneHalf],
		HeldOutPairAccuracy: rep.Accuracy[dataset.ReportHalf],
		Hardware:            fmt.Sprintf("%d CPU cores (%s/%s), no GPU", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH),
		Attribution:         dataset.Attribution,
	}
	return rep, nil
}

// checkCandidates refuses candidates whose features are not FeatureNames' count
// of finite numbers or whose CD-J2J is not a finite number, naming the file: a
// CANDIDATES.json from another build or hand-edited must fail, not panic.
func checkCandidates(chars []Character) error {
	for _, c := range chars {
		for _, cand := range c.Cands {
			ok := len(cand.F) == len(FeatureNames) && finite(cand.CD)
			for _, v := range cand.F {
				ok = ok && finite(v)
			}
			if !ok {
				return fmt.Errorf("train critic: %s, candidate %q: want %d finite features and a finite CD-J2J, have %d features", c.File, cand.Name, len(FeatureNames), len(cand.F))
			}
		}
	}
	return nil
}

// featureMask marks the features named (all when none is).
func featureMask(names []string) ([]bool, error) {
	use := make([]bool, len(FeatureNames))
	for i := range use {
		use[i] = len(names) == 0
	}
	for _, n := range names {
		i := slices.Index(FeatureNames, n)
		if i < 0 {
			return nil, fmt.Errorf("train critic: unknown feature %q (features: %s)", n, strings.Join(FeatureNames, ", "))
		}
		use[i] = true
	}
	return use, nil
}

// pairs calls fn for every pair of a character's candidates (indices into
// c.Cands) whose CD-J2J differ by MinGap or more, better first, with the pair's
// weight: each character weighs alike however many pairs it has.
func pairs(c Character, fn func(better, worse int, w float64)) {
	ordered := func(i, j int) bool { return c.Cands[i].CD+MinGap <= c.Cands[j].CD }
	count := 0
	for i := range c.Cands {
		for j := range c.Cands {
			if ordered(i, j) {
				count++
			}
		}
	}
	for i := range c.Cands {
		for j := range c.Cands {
			if ordered(i, j) {
				fn(i, j, 1/float64(count))
			}
		}
	}
}

// fit standardizes the features over the candidates and fits the weights
// by Newton's method on the ridge-penalized pairwise logistic loss.
func fit(chars []Character, l2 float64, use []bool) (*Model, int) {
	n := len(FeatureNames)
	mean, scale := featureMoments(chars, n)
	z := func(f []float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			if use[i] {
				out[i] = (f[i] - mean[i]) / scale[i]
			}
		}
		return out
	}
	var xs [][]float64
	var ws []float64
	for _, c := range chars {
		pairs(c, func(better, worse int, w float64) {
			a, b := z(c.Cands[better].F), z(c.Cands[worse].F)
			for i := range a {
				a[i] -= b[i]
			}
			xs = append(xs, a)
			ws = append(ws, w)
		})
	}
	weights := newtonLogistic(xs, ws, l2, n)
	return &Model{Features: FeatureNames, Mean: mean, Scale: scale, Weights: weights}, len(xs)
}

// featureMoments are the mean and standard deviation (at least 1e-6) of every
// feature over all candidates.
func featureMoments(chars []Character, n int) (mean, scale []float64) {
	mean, scale = make([]float64, n), make([]float64, n)
	count := 0.0
	for _, c := range chars {
		for _, cand := range c.Cands {
			for i, v := range cand.F {
				mean[i] += v
				scale[i] += v * v
			}
			count++
		}
	}
	for i := range mean {
		mean[i] /= count
		scale[i] = math.Max(1e-6, math.Sqrt(math.Max(0, scale[i]/count-mean[i]*mean[i])))
	}
	return mean, scale
}

// newtonLogistic minimizes Σ_k w_k log(1 + exp(−x_k·β)) + l2/2 |β|² (every
// pair labelled "first is better", so no intercept) by 30 Newton steps.
func newtonLogistic(xs [][]float64, ws []float64, l2 float64, n int) []float64 {
	beta := make([]float64, n)
	total := 0.0
	for _, w := range ws {
		total += w
	}
	for iter := 0; iter < 30; iter++ {
		grad, hess := make([]float64, n), make([]float64, n*n)
		for k, x := range xs {
			m := dot(x, beta)
			p := 1 / (1 + math.Exp(-m)) // probability the pair is ordered right
			w := ws[k] / total
			for i := range x {
				grad[i] += w * (p - 1) * x[i]
				for j := range x {
					hess[i*n+j] += w * p * (1 - p) * x[i] * x[j]
				}
			}
		}
		for i := range grad {
			grad[i] += l2 / total * beta[i] / float64(len(xs))
			hess[i*n+i] += l2 / total / float64(len(xs))
		}
		var step mat.VecDense
		if err := step.SolveVec(mat.NewDense(n, n, hess), mat.NewVecDense(n, grad)); err != nil {
			break
		}
		for i := range beta {
			beta[i] -= step.AtVec(i)
		}
	}
	return beta
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// accuracy is the weighted share of half's pairs the critic orders as
// CD-J2J does, and the mean logit per candidate kind.
func accuracy(c *Model, chars []Character, half string) (float64, map[string]float64) {
	right, total := 0.0, 0.0
	sum, count := map[string]float64{}, map[string]float64{}
	for _, ch := range chars {
		if ch.Half != half || ch.Err != "" {
			continue
		}
		logit := make([]float64, len(ch.Cands))
		for k, cand := range ch.Cands {
			logit[k] = c.Logit(cand.F)
			sum[cand.Name] += logit[k]
			count[cand.Name]++
		}
		pairs(ch, func(better, worse int, w float64) {
			if logit[better] > logit[worse] {
				right += w
			}
			total += w
		})
	}
	for k := range sum {
		sum[k] /= count[k]
	}
	if total == 0 {
		return 0, sum
	}
	return right / total, sum
}

func countCandidates(chars []Character) int {
	n := 0
	for _, c := range chars {
		n += len(c.Cands)
	}
	return n
}

// Markdown renders the report: the pair accuracy per half, the mean logit per
// candidate kind and the fitted weights.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Learned critic\n\n| half | characters | pairs ordered as CD-J2J |\n|---|---:|---:|\n")
	for _, h := range []string{dataset.TuneHalf, dataset.ReportHalf} {
		fmt.Fprintf(&b, "| %s | %d | %.3f |\n", h, r.Characters[h], r.Accuracy[h])
	}
	b.WriteString("\n| candidate | mean logit, tune | mean logit, report |\n|---|---:|---:|\n")
	var kinds []string
	for k := range r.MeanLogit[dataset.TuneHalf] {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		return r.MeanLogit[dataset.TuneHalf][kinds[i]] > r.MeanLogit[dataset.TuneHalf][kinds[j]]
	})
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %s | %+.2f | %+.2f |\n", k, r.MeanLogit[dataset.TuneHalf][k], r.MeanLogit[dataset.ReportHalf][k])
	}
	b.WriteString("\n| feature | weight (standardized) | mean | scale |\n|---|---:|---:|---:|\n")
	for i, name := range r.Model.Features {
		fmt.Fprintf(&b, "| %s | %+.3f | %.4g | %.4g |\n", name, r.Model.Weights[i], r.Model.Mean[i], r.Model.Scale[i])
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "\n%d files gave no candidates: %s\n", len(r.Failed), strings.Join(r.Failed, "; "))
	}
	return b.String()
}
