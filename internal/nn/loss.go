package nn

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// SoftmaxCrossEntropy is the masked mean of -log softmax(logits)[target] over rows:
// loss = Σᵢ maskᵢ·(-log pᵢ[targetᵢ]) / Σᵢ maskᵢ. Rows with mask 0 (padding, or
// positions not to be learned) contribute nothing and their targets are not read.
type SoftmaxCrossEntropy[F Float] struct {
	eng    engine.Engine
	dl     []F
	shape  tensor.Shape
	probs  []F
	target []int
	weight []F
}

// NewSoftmaxCrossEntropy returns the loss.
func NewSoftmaxCrossEntropy[F Float]() *SoftmaxCrossEntropy[F] {
	return &SoftmaxCrossEntropy[F]{eng: engine.Default()}
}

// Forward returns the loss of logits (..., V) against targets (one per row); mask
// (one weight per row, usually 0 or 1) may be nil for all ones. It fails on a
// target outside [0, V) in a row with nonzero mask.
func (l *SoftmaxCrossEntropy[F]) Forward(logits *tensor.Dense, targets []int, mask []F) (float64, error) {
	n, v := rows(logits, 0, "SoftmaxCrossEntropy.Forward")
	if len(targets) != n {
		return 0, fmt.Errorf("nn: cross-entropy: %d targets for %d rows of logits", len(targets), n)
	}
	if mask != nil && len(mask) != n {
		return 0, fmt.Errorf("nn: cross-entropy: %d mask weights for %d rows of logits", len(mask), n)
	}
	var total float64
	for i, t := range targets {
		w := 1.0
		if mask != nil {
			w = float64(mask[i])
		}
		if w == 0 {
			continue
		}
		if t < 0 || t >= v {
			return 0, fmt.Errorf("nn: cross-entropy: target %d in row %d outside [0, %d)", t, i, v)
		}
		total += w
	}
	l.shape = logits.Shape().Clone()
	l.target = targets
	l.weight = grow(l.weight, n)
	for i := range l.weight {
		w := 1.0
		if mask != nil {
			w = float64(mask[i])
		}
		if total > 0 {
			w /= total
		}
		l.weight[i] = F(w)
	}
	x := engine.Data[F](logits)
	l.probs = grow(l.probs, n*v)
	losses := make([]float64, n)
	l.eng.ParallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := l.probs[i*v : (i+1)*v]
			copy(p, x[i*v:(i+1)*v])
			softmaxRow(p)
			if l.weight[i] != 0 {
				losses[i] = -float64(l.weight[i]) * math.Log(math.Max(float64(p[targets[i]]), 1e-300))
			}
		}
	})
	var loss float64
	for _, li := range losses {
		loss += li
	}
	return loss, nil
}

// RowNLL returns −log of the probability the last Forward gave row i's target
// (its float32 softmax, floored at 1e-300 as the loss is), whatever the row's
// weight.
func (l *SoftmaxCrossEntropy[F]) RowNLL(i int) float64 {
	v := l.shape[len(l.shape)-1]
	return -math.Log(math.Max(float64(l.probs[i*v+l.target[i]]), 1e-300))
}

// Backward returns d loss / d logits, shaped like the logits.
func (l *SoftmaxCrossEntropy[F]) Backward() *tensor.Dense {
	n, v := len(l.target), l.shape[len(l.shape)-1]
	l.dl = grow(l.dl, n*v)
	l.eng.ParallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d, p, w := l.dl[i*v:(i+1)*v], l.probs[i*v:(i+1)*v], l.weight[i]
			if w == 0 {
				clear(d)
				continue
			}
			for j := range d {
				d[j] = w * p[j]
			}
			d[l.target[i]] -= w
		}
	})
	return engine.FromSlice(l.dl, l.shape...)
}
