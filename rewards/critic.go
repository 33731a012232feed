package rewards

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Critic is the learned artist-likeness term: a linear ranker over
// CriticFeatures, fitted on the training split's artist skeletons against
// perturbed, classical and template ones so that a skeleton nearer the
// artist's (CD-J2J) scores higher (`rig train-critic`, docs/rewards.md
// "Learned critic"). Its score is min(1, 2σ(logit − FullAt)) for the logit
// Σ w_i (f_i − mean_i)/scale_i: a skeleton that looks hand-made enough earns
// full credit, so a search that pleases the critic alone gains nothing over
// it, while one that looks procedural or jittered pays.
type Critic struct {
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	Weights  []float64 `json:"weights"`
	FullAt   float64   `json:"full_at"`
	// Training says what the weights were fitted on, for the record.
	Training CriticTraining `json:"training"`
}

// CriticTraining is the provenance of a fitted Critic.
type CriticTraining struct {
	Command    string  `json:"command"`
	Data       string  `json:"data"`
	Characters int     `json:"characters"`
	Candidates int     `json:"candidates"`
	Pairs      int     `json:"pairs"`
	Seed       int64   `json:"seed"`
	L2         float64 `json:"l2"`
	// PairAccuracy is the share of training pairs the fitted critic orders as
	// CD-J2J does; HeldOutPairAccuracy the same on the held-out split.
	PairAccuracy        float64 `json:"pair_accuracy"`
	HeldOutPairAccuracy float64 `json:"held_out_pair_accuracy"`
	Seconds             float64 `json:"seconds"`
	Hardware            string  `json:"hardware"`
}

//go:embed critic.json
var criticJSON []byte

var (
	defaultCriticOnce sync.Once
	defaultCritic     *Critic
	defaultCriticErr  error
)

// DefaultCritic returns the shipped critic (rewards/critic.json).
func DefaultCritic() (*Critic, error) {
	defaultCriticOnce.Do(func() {
		defaultCritic, defaultCriticErr = ParseCritic(criticJSON)
	})
	return defaultCritic, defaultCriticErr
}

// ParseCritic reads a critic's JSON and checks that it matches
// CriticFeatureNames, with finite weights and positive scales.
func ParseCritic(data []byte) (*Critic, error) {
	var c Critic
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("critic: %w", err)
	}
	if !slices.Equal(c.Features, CriticFeatureNames) {
		return nil, fmt.Errorf("critic: features %v, want %v", c.Features, CriticFeatureNames)
	}
	n := len(CriticFeatureNames)
	if !finite(c.FullAt) {
		return nil, fmt.Errorf("critic: full_at %g is not finite", c.FullAt)
	}
	if len(c.Mean) != n || len(c.Scale) != n || len(c.Weights) != n {
		return nil, fmt.Errorf("critic: %d features but %d means, %d scales, %d weights", n, len(c.Mean), len(c.Scale), len(c.Weights))
	}
	for i := 0; i < n; i++ {
		if !finite(c.Mean[i]) || !finite(c.Weights[i]) || !(c.Scale[i] > 0) || !finite(c.Scale[i]) {
			return nil, fmt.Errorf("critic: feature %s has mean %g, scale %g, weight %g", c.Features[i], c.Mean[i], c.Scale[i], c.Weights[i])
		}
	}
	return &c, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Logit returns Σ w_i (f_i − mean_i)/scale_i, the critic's ranking value before
// the squashing; non-finite features count as the training mean.
func (c *Critic) Logit(f []float64) float64 {
	s := 0.0
	for i, w := range c.Weights {
		if i < len(f) && finite(f[i]) {
			s += w * (f[i] - c.Mean[i]) / c.Scale[i]
		}
	}
	return s
}

// Score is min(1, 2σ(Logit(f) − FullAt)), in (0, 1].
func (c *Critic) Score(f []float64) float64 {
	return math.Min(1, 2/(1+math.Exp(-(c.Logit(f)-c.FullAt))))
}

// CriticDetails are the critic's features of the scored skeleton and their
// contributions to its logit, largest magnitude first, so that a report says
// why a skeleton looks hand-made or not.
type CriticDetails struct {
	Logit float64 `json:"logit"`
	// Features are the skeleton's CriticFeatures, in CriticFeatureNames order.
	Features      []float64            `json:"features"`
	Contributions []CriticContribution `json:"contributions"`
}

// CriticContribution is one feature's value and its share of the logit.
type CriticContribution struct {
	Feature string  `json:"feature"`
	Value   float64 `json:"value"`
	Logit   float64 `json:"logit"`
}

// critic scores the rig's skeleton by the shipped critic (1 when none loads,
// so that a broken build does not zero every rig; TestDefaultCritic fails then).
func (p *Prepared) critic(r *rig) (float64, *CriticDetails) {
	c, err := DefaultCritic()
	if err != nil {
		return 1, nil
	}
	f := p.criticFeatures(deformingJoints(r))
	det := &CriticDetails{Logit: c.Logit(f), Features: f}
	for i, w := range c.Weights {
		det.Contributions = append(det.Contributions, CriticContribution{
			Feature: c.Features[i], Value: f[i], Logit: w * (f[i] - c.Mean[i]) / c.Scale[i]})
	}
	slices.SortFunc(det.Contributions, func(a, b CriticContribution) int {
		return cmpAbsDesc(a.Logit, b.Logit)
	})
	return c.Score(f), det
}

// deformingJoints is the rig's skeleton without the joints that neither carry
// weight nor lead to one that does (IK targets, helper leaves), the skeleton
// the critic was fitted on: joints that move nothing neither help nor hurt it.
func deformingJoints(r *rig) *rigJoints {
	n := len(r.pos)
	keep := make([]bool, n)
	for j := n - 1; j >= 0; j-- { // children after parents
		keep[j] = keep[j] || r.mass[j] > 0
		if p := r.parents[j]; keep[j] && p >= 0 {
			keep[p] = true
		}
	}
	index := make([]int, n)
	out := &rigJoints{}
	for j := 0; j < n; j++ {
		index[j] = -1
		if !keep[j] {
			continue
		}
		index[j] = len(out.pos)
		p := r.parents[j] // kept, as every kept joint's parent is
		if p >= 0 {
			p = index[p]
		}
		out.parents = append(out.parents, p)
		out.pos = append(out.pos, r.pos[j])
	}
	if len(out.pos) == 0 || len(out.pos) == n {
		return &r.rigJoints
	}
	out.children = make([][]int, len(out.pos))
	for j, p := range out.parents {
		if p >= 0 {
			out.children[p] = append(out.children[p], j)
		}
	}
	return out
}

func cmpAbsDesc(a, b float64) int {
	switch {
	case math.Abs(a) > math.Abs(b):
		return -1
	case math.Abs(a) < math.Abs(b):
		return 1
	}
	return 0
}
