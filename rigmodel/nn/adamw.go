package nn

import (
	"math"
)

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter), with a learning
// rate that warms up linearly for Warmup steps and then follows a cosine down to
// MinLR at TotalSteps. Weight decay applies to matrices and embedding tables
// (parameters of rank ≥ 2), not to biases or norm gains.
type AdamW[F Float] struct {
	LR           float64 // peak learning rate
	MinLR        float64
	Warmup       int
	TotalSteps   int // 0 keeps LR constant after warm-up
	Beta1, Beta2 float64
	Eps          float64
	WeightDecay  float64

	step int
	m, v map[*Param[F]][]F
}

// NewAdamW returns an optimizer with peak rate lr, betas (0.9, 0.95), eps 1e-8 and
// weight decay 0.1, no warm-up and no decay; set the fields to change them.
func NewAdamW[F Float](lr float64) *AdamW[F] {
	return &AdamW[F]{LR: lr, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
		m: map[*Param[F]][]F{}, v: map[*Param[F]][]F{}}
}

// Steps is the number of updates taken.
func (o *AdamW[F]) Steps() int { return o.step }

// LRAt is the learning rate of update number step (from 0).
func (o *AdamW[F]) LRAt(step int) float64 {
	if step < o.Warmup {
		return o.LR * float64(step+1) / float64(o.Warmup)
	}
	if o.TotalSteps <= o.Warmup {
		return o.LR
	}
	frac := math.Min(1, float64(step-o.Warmup)/float64(o.TotalSteps-o.Warmup))
	return o.MinLR + 0.5*(o.LR-o.MinLR)*(1+math.Cos(math.Pi*frac))
}

// Step updates params from their gradients (it does not clear them).
func (o *AdamW[F]) Step(params []*Param[F]) {
	lr := o.LRAt(o.step)
	o.step++
	b1, b2 := o.Beta1, o.Beta2
	c1 := 1 - math.Pow(b1, float64(o.step))
	c2 := 1 - math.Pow(b2, float64(o.step))
	for _, p := range params {
		m, ok := o.m[p]
		if !ok {
			m, o.v[p] = make([]F, p.Size()), make([]F, p.Size())
			o.m[p] = m
		}
		v := o.v[p]
		decay := 0.0
		if len(p.Value.Shape()) >= 2 {
			decay = o.WeightDecay
		}
		w, g := p.w, p.g
		for i := range w {
			gi := float64(g[i])
			mi := b1*float64(m[i]) + (1-b1)*gi
			vi := b2*float64(v[i]) + (1-b2)*gi*gi
			m[i], v[i] = F(mi), F(vi)
			wi := float64(w[i])
			wi -= lr * (mi/c1/(math.Sqrt(vi/c2)+o.Eps) + decay*wi)
			w[i] = F(wi)
		}
	}
}

// ClipGradNorm scales all gradients down so their global L2 norm is at most
// maxNorm, and returns the norm before clipping.
func ClipGradNorm[F Float](params []*Param[F], maxNorm float64) float64 {
	var ss float64
	for _, p := range params {
		for _, g := range p.g {
			ss += float64(g) * float64(g)
		}
	}
	norm := math.Sqrt(ss)
	if norm > maxNorm && norm > 0 {
		s := F(maxNorm / norm)
		for _, p := range params {
			for i := range p.g {
				p.g[i] *= s
			}
		}
	}
	return norm
}
