// Package critic is the rewards' learned critic: a linear ranker of skeletons
// over features of where the joints lie in the mesh and how the tree is built,
// fitted on artists' rigs against perturbed, classical and template ones so
// that a skeleton nearer the artist's (CD-J2J) ranks higher (`rig
// train-critic`; docs/rewards.md, "Learned critic"). The features and the
// fitting live here; the rewards score with the shipped model (critic.json).
package critic

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Model is a fitted critic. Its score is min(1, 2σ(logit − FullAt)) for the
// logit Σ w_i (f_i − mean_i)/scale_i: a skeleton that looks hand-made enough
// earns full credit, so a search that pleases the critic alone gains nothing
// over it, while one that looks procedural or jittered pays.
type Model struct {
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	Weights  []float64 `json:"weights"`
	FullAt   float64   `json:"full_at"`
	// Training says what the weights were fitted on, for the record.
	Training Training `json:"training"`
}

// Training is the provenance of a fitted Model.
type Training struct {
	Command    string  `json:"command"`
	Data       string  `json:"data"`
	Characters int     `json:"characters"`
	Candidates int     `json:"candidates"`
	Pairs      int     `json:"pairs"`
	Seed       int64   `json:"seed"`
	L2         float64 `json:"l2"`
	// PairAccuracy is the share of training pairs the fitted critic orders as
	// CD-J2J does; HeldOutPairAccuracy the same on the report half.
	PairAccuracy        float64 `json:"pair_accuracy"`
	HeldOutPairAccuracy float64 `json:"held_out_pair_accuracy"`
	Seconds             float64 `json:"seconds"`
	Hardware            string  `json:"hardware"`
	// Attribution credits the authors of the data (dataset.Attribution).
	Attribution string `json:"attribution"`
}

//go:embed critic.json
var shippedJSON []byte

var shipped = sync.OnceValues(func() (*Model, error) { return Parse(shippedJSON) })

// Shipped returns the shipped critic (critic/critic.json).
func Shipped() (*Model, error) { return shipped() }

// Parse reads a critic's JSON and checks that it matches FeatureNames, with
// finite weights and positive scales.
func Parse(data []byte) (*Model, error) {
	var c Model
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("critic: %w", err)
	}
	if !slices.Equal(c.Features, FeatureNames) {
		return nil, fmt.Errorf("critic: features %v, want %v", c.Features, FeatureNames)
	}
	if !finite(c.FullAt) {
		return nil, fmt.Errorf("critic: full_at %g is not finite", c.FullAt)
	}
	n := len(FeatureNames)
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
func (c *Model) Logit(f []float64) float64 {
	s := 0.0
	for i, w := range c.Weights {
		if i < len(f) && finite(f[i]) {
			s += w * (f[i] - c.Mean[i]) / c.Scale[i]
		}
	}
	return s
}

// Score is min(1, 2σ(Logit(f) − FullAt)), in (0, 1].
func (c *Model) Score(f []float64) float64 {
	return math.Min(1, 2/(1+math.Exp(-(c.Logit(f)-c.FullAt))))
}

// Details are a skeleton's features and their contributions to its logit,
// largest magnitude first, so that a report says why a skeleton looks
// hand-made or not.
type Details struct {
	Logit float64 `json:"logit"`
	// Features are the skeleton's features, in FeatureNames order.
	Features      []float64      `json:"features"`
	Contributions []Contribution `json:"contributions"`
}

// Contribution is one feature's value and its share of the logit.
type Contribution struct {
	Feature string  `json:"feature"`
	Value   float64 `json:"value"`
	Logit   float64 `json:"logit"`
}

// Explain returns the details of features f.
func (c *Model) Explain(f []float64) *Details {
	d := &Details{Logit: c.Logit(f), Features: f}
	for i, w := range c.Weights {
		d.Contributions = append(d.Contributions, Contribution{
			Feature: c.Features[i], Value: f[i], Logit: w * (f[i] - c.Mean[i]) / c.Scale[i]})
	}
	slices.SortStableFunc(d.Contributions, func(a, b Contribution) int {
		switch x, y := math.Abs(a.Logit), math.Abs(b.Logit); {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return d
}
