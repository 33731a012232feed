package train

import (
	"errors"
	"fmt"
	"math"

	"github.com/rigkit/rigkit/rigmodel"
)

// Average returns a new model whose every parameter is the weighted mean of
// the models' parameters (weights nil: equal weights; else one positive weight per
// model, normalized to sum to 1). Checkpoints of one training trajectory, for
// example a run and the run warm-started from it, sit in one basin of the loss, and
// their mean predicts skin weights that vary less from file to file than either
// (docs/model.md). Every model must have the same Config; the inputs are not changed.
func Average(models []*rigmodel.Model, weights []float64) (*rigmodel.Model, error) {
	if len(models) == 0 {
		return nil, errors.New("average: no models")
	}
	w, err := averageWeights(len(models), weights)
	if err != nil {
		return nil, err
	}
	out, err := rigmodel.NewModel(models[0].Cfg, 1)
	if err != nil {
		return nil, fmt.Errorf("average: %w", err)
	}
	dst := out.Params()
	for i, m := range models {
		if m.Cfg != models[0].Cfg {
			return nil, fmt.Errorf("average: model %d has config %+v, model 0 has %+v", i, m.Cfg, models[0].Cfg)
		}
		src := m.Params()
		for k, p := range dst {
			if src[k].Name != p.Name {
				return nil, fmt.Errorf("average: model %d has parameter %q where model 0 has %q", i, src[k].Name, p.Name)
			}
			d, s := p.Value.Data().([]float32), src[k].Value.Data().([]float32)
			if i == 0 {
				clear(d) // NewModel's random initialization
			}
			for e := range d {
				d[e] += float32(w[i]) * s[e]
			}
		}
	}
	return out, nil
}

// averageWeights checks the weights of n models and normalizes them to sum to 1.
func averageWeights(n int, weights []float64) ([]float64, error) {
	if weights == nil {
		weights = make([]float64, n)
		for i := range weights {
			weights[i] = 1
		}
	}
	if len(weights) != n {
		return nil, fmt.Errorf("average: %d weights for %d models", len(weights), n)
	}
	sum := 0.0
	for i, x := range weights {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("average: weight %d is %g, want a positive number", i, x)
		}
		sum += x
	}
	out := make([]float64, n)
	for i, x := range weights {
		out[i] = x / sum
	}
	return out, nil
}
