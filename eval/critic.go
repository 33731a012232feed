package eval

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/vecmath"
)

// The learned critic (`rig train-critic`): per character of the tune half, the
// artist's deforming skeleton, jittered copies of it at several strengths, the
// broken ones of the skeleton ranking (a limb dropped, the legs merged, extra
// leaves) and the classical and template skeletons `rig auto` builds; a linear
// ranker over rewards.CriticFeatures is fitted so that of two candidates the one
// nearer the artist's (CD-J2J) scores higher. The report half is never read, so
// the skeleton ranking's figures there stay out of sample.

// CriticOptions configure TrainCritic.
type CriticOptions struct {
	Seed     int64
	Workers  int
	L2       float64  // ridge penalty on the standardized weights (0: 1)
	Features []string // the features fitted (none: all); the others weigh 0
	FullAt   float64  // the logit from which the critic gives full credit (rewards.Critic.FullAt)
	Progress io.Writer
}

// criticJitters are the jitter strengths, in % of the height, of the training
// candidates: finer than the ranking's 2/5/10 so that the critic learns the
// order of small displacements too.
var criticJitters = []float64{1, 2, 3, 5, 7, 10, 15}

// criticMinGap (cube units) is the least CD-J2J difference of a training pair:
// closer pairs are ties the critic need not order.
const criticMinGap = 0.01

// criticCandidate is one skeleton of a training character.
type criticCandidate struct {
	Name string    `json:"name"`
	CD   float64   `json:"cd_j2j"` // CD-J2J to the artist's skeleton, cube units
	F    []float64 `json:"features"`
}

// CriticCharacter is one character's candidates, or why it has none.
type CriticCharacter = criticCharacter

type criticCharacter struct {
	File  string            `json:"file"`
	Half  string            `json:"half"`
	Cands []criticCandidate `json:"candidates"`
	Err   string            `json:"error,omitempty"`
}

// CriticReport says what TrainCritic fitted and how well it orders pairs.
type CriticReport struct {
	Critic     *rewards.Critic
	Characters map[string]int // per half, the characters with candidates
	Accuracy   map[string]float64
	// MeanLogit is, per half and candidate kind, the critic's mean logit.
	MeanLogit map[string]map[string]float64
	Failed    []string
	// Candidates are every character's candidates with CD-J2J and features, for
	// refitting offline (`rig train-critic --candidates`).
	Candidates []CriticCharacter `json:"characters"`
}

// TrainCritic builds the candidates of both halves' creature files and fits
// the critic on the tune half's (FitCritic); the report half's are read only
// for the pair accuracy figure.
func TrainCritic(files []File, opt CriticOptions) (*CriticReport, error) {
	start := time.Now()
	var chars []CriticCharacter
	for _, half := range []string{dataset.TuneHalf, dataset.ReportHalf} {
		held, _, err := rankHeldOut(files, half)
		if err != nil {
			return nil, err
		}
		for _, c := range criticCharacters(held, opt) {
			c.Half = half
			chars = append(chars, c)
		}
	}
	rep, err := FitCritic(chars, opt)
	if err != nil {
		return nil, err
	}
	rep.Critic.Training.Seconds = math.Round(time.Since(start).Seconds())
	return rep, nil
}

// FitCritic fits the critic on the tune half's characters of chars (those
// TrainCritic built, or a CANDIDATES.json it wrote) over opt.Features (all
// when empty; the others weigh 0) and measures both halves' pair accuracy.
func FitCritic(chars []CriticCharacter, opt CriticOptions) (*CriticReport, error) {
	if opt.L2 <= 0 {
		opt.L2 = 1
	}
	use, err := criticFeatureMask(opt.Features)
	if err != nil {
		return nil, err
	}
	rep := &CriticReport{Characters: map[string]int{}, Accuracy: map[string]float64{}, MeanLogit: map[string]map[string]float64{}, Candidates: chars}
	var tune []criticCharacter
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
	critic, pairs := fitCritic(tune, opt.L2, use)
	critic.FullAt = opt.FullAt
	rep.Critic = critic
	for _, half := range []string{dataset.TuneHalf, dataset.ReportHalf} {
		rep.Accuracy[half], rep.MeanLogit[half] = criticAccuracy(critic, chars, half)
	}
	critic.Training = rewards.CriticTraining{
		Characters: rep.Characters[dataset.TuneHalf], Candidates: countCandidates(tune), Pairs: pairs,
		Seed: opt.Seed, L2: opt.L2, PairAccuracy: rep.Accuracy[dataset.TuneHalf],
		HeldOutPairAccuracy: rep.Accuracy[dataset.ReportHalf],
		Hardware:            fmt.Sprintf("%d CPU cores (%s/%s), no GPU", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH),
	}
	return rep, nil
}

// criticFeatureMask marks the features named (all when none is).
func criticFeatureMask(names []string) ([]bool, error) {
	use := make([]bool, len(rewards.CriticFeatureNames))
	for i := range use {
		use[i] = len(names) == 0
	}
	for _, n := range names {
		i := slices.Index(rewards.CriticFeatureNames, n)
		if i < 0 {
			return nil, fmt.Errorf("train critic: unknown feature %q (features: %s)", n, strings.Join(rewards.CriticFeatureNames, ", "))
		}
		use[i] = true
	}
	return use, nil
}

// criticCharacters builds every file's candidates with opt.Workers workers.
func criticCharacters(files []File, opt CriticOptions) []criticCharacter {
	out := make([]criticCharacter, len(files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < max(1, opt.Workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = criticCharacterOf(files[i], opt.Seed+int64(i))
				mu.Lock()
				done++
				if opt.Progress != nil {
					fmt.Fprintf(opt.Progress, "\rtrain critic: %d/%d characters", done, len(files))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if opt.Progress != nil {
		fmt.Fprintln(opt.Progress)
	}
	return out
}

// criticCharacterOf makes one file's candidates and their features.
func criticCharacterOf(f File, seed int64) criticCharacter {
	out := criticCharacter{File: f.Path}
	gt, prep, err := loadRigged(f.Path)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	gt.Skeleton = deformingSkeleton(gt)
	norm := character.NormalizationOf(gt.Mesh)
	add := func(name string, sk *character.Skeleton, err error) {
		if err != nil || sk == nil {
			return
		}
		feat, err := prep.CriticFeatures(sk)
		if err != nil {
			return
		}
		cd := metrics.Chamfer(cubeJoints(gt.Skeleton, norm), cubeJoints(sk, norm))
		out.Cands = append(out.Cands, criticCandidate{Name: name, CD: cd, F: feat})
	}
	add(skeletonTruth, gt.Skeleton, nil)
	for _, pct := range criticJitters {
		add(fmt.Sprintf("jitter%g", pct), jitterSkeleton(gt.Skeleton, pct/100*2/norm.Scale, seed), nil)
	}
	for _, name := range []string{"drop_limb", "merge_legs", "extra_joints"} {
		sk, err := perturbSkeleton(gt.Skeleton, name, 2/norm.Scale, seed)
		add(name, sk, err)
	}
	sk, err := classical.Skeleton(&gt.Mesh, autorig.ClassicalOptions(&gt.Mesh))
	add("classical", sk, err)
	if err == nil {
		sk, _, err = anatomy.Fit(&gt.Mesh, sk, anatomy.Options{})
		add("classical-anatomy", sk, err)
	}
	if len(out.Cands) < 2 {
		out.Err = "fewer than two candidates"
	}
	return out
}

// criticPairs calls fn for every pair of a character's candidates whose CD-J2J
// differ by criticMinGap or more, better first, with the pair's weight: each
// character weighs alike however many pairs it has.
func criticPairs(c criticCharacter, fn func(better, worse criticCandidate, w float64)) {
	type pair struct{ a, b int }
	var ps []pair
	for i := range c.Cands {
		for j := range c.Cands {
			if c.Cands[i].CD+criticMinGap <= c.Cands[j].CD {
				ps = append(ps, pair{i, j})
			}
		}
	}
	for _, p := range ps {
		fn(c.Cands[p.a], c.Cands[p.b], 1/float64(len(ps)))
	}
}

// fitCritic standardizes the features over the candidates and fits the weights
// by Newton's method on the ridge-penalized pairwise logistic loss.
func fitCritic(chars []criticCharacter, l2 float64, use []bool) (*rewards.Critic, int) {
	n := len(rewards.CriticFeatureNames)
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
		criticPairs(c, func(better, worse criticCandidate, w float64) {
			a, b := z(better.F), z(worse.F)
			for i := range a {
				a[i] -= b[i]
			}
			xs = append(xs, a)
			ws = append(ws, w)
		})
	}
	weights := newtonLogistic(xs, ws, l2, n)
	return &rewards.Critic{Features: rewards.CriticFeatureNames, Mean: mean, Scale: scale, Weights: weights}, len(xs)
}

// featureMoments are the mean and standard deviation (at least 1e-6) of every
// feature over all candidates.
func featureMoments(chars []criticCharacter, n int) (mean, scale []float64) {
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
		grad := make([]float64, n)
		hess := mat.NewDense(n, n, nil)
		for k, x := range xs {
			m := dot(x, beta)
			p := 1 / (1 + math.Exp(-m)) // probability the pair is ordered right
			w := ws[k] / total
			for i := range x {
				grad[i] += w * (p - 1) * x[i]
				for j := range x {
					hess.Set(i, j, hess.At(i, j)+w*p*(1-p)*x[i]*x[j])
				}
			}
		}
		for i := range grad {
			grad[i] += l2 / total * beta[i] / float64(len(xs))
			hess.Set(i, i, hess.At(i, i)+l2/total/float64(len(xs)))
		}
		var step mat.VecDense
		if err := step.SolveVec(hess, mat.NewVecDense(n, grad)); err != nil {
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

// criticAccuracy is the weighted share of half's pairs the critic orders as
// CD-J2J does, and the mean logit per candidate kind.
func criticAccuracy(c *rewards.Critic, chars []criticCharacter, half string) (float64, map[string]float64) {
	right, total := 0.0, 0.0
	sum, count := map[string]float64{}, map[string]float64{}
	for _, ch := range chars {
		if ch.Half != half || ch.Err != "" {
			continue
		}
		for _, cand := range ch.Cands {
			sum[cand.Name] += c.Logit(cand.F)
			count[cand.Name]++
		}
		criticPairs(ch, func(better, worse criticCandidate, w float64) {
			if c.Logit(better.F) > c.Logit(worse.F) {
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

// cubeJoints are sk's joint positions in the cube: CD-J2J is their Chamfer
// distance (metrics.SkeletonMetrics also samples bones, which costs seconds here).
func cubeJoints(sk *character.Skeleton, norm character.Normalization) []vecmath.Vec3 {
	p := sk.Positions()
	for i := range p {
		p[i] = norm.Point(p[i])
	}
	return p
}

func countCandidates(chars []criticCharacter) int {
	n := 0
	for _, c := range chars {
		n += len(c.Cands)
	}
	return n
}

// Markdown renders the report: the pair accuracy per half, the mean logit per
// candidate kind and the fitted weights.
func (r *CriticReport) Markdown() string {
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
	for i, name := range r.Critic.Features {
		fmt.Fprintf(&b, "| %s | %+.3f | %.4g | %.4g |\n", name, r.Critic.Weights[i], r.Critic.Mean[i], r.Critic.Scale[i])
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "\n%d files gave no candidates: %s\n", len(r.Failed), strings.Join(r.Failed, "; "))
	}
	return b.String()
}
