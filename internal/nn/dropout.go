package nn

import (
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// dropout zeroes each element with probability P during training and scales the
// rest by 1/(1-P); with Train false (or P zero) it is the identity.
type dropout[F Float] struct {
	P     float64
	Train bool
	Rng   *rand.Rand

	mask  []F // scale per element, 0 or 1/(1-P)
	y, dx []F
	shape tensor.Shape
}

// newDropout returns a dropout layer in training mode.
func newDropout[F Float](p float64, rng *rand.Rand) *dropout[F] {
	return &dropout[F]{P: p, Train: true, Rng: rng}
}

func (d *dropout[F]) active() bool { return d != nil && d.Train && d.P > 0 }

// Forward applies dropout to x (any shape).
func (d *dropout[F]) Forward(x *tensor.Dense) *tensor.Dense {
	d.shape = x.Shape().Clone()
	return engine.FromSlice(d.forward(engine.Data[F](x)), d.shape...)
}

// Backward passes dy through the mask of the last Forward.
func (d *dropout[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	return engine.FromSlice(d.backward(engine.Data[F](dy)), d.shape...)
}

func (d *dropout[F]) forward(x []F) []F {
	if !d.active() {
		return x
	}
	d.mask, d.y = grow(d.mask, len(x)), grow(d.y, len(x))
	keep := F(1 / (1 - d.P))
	for i, v := range x {
		if d.Rng.Float64() < d.P {
			d.mask[i], d.y[i] = 0, 0
		} else {
			d.mask[i], d.y[i] = keep, v*keep
		}
	}
	return d.y
}

func (d *dropout[F]) backward(dy []F) []F {
	if !d.active() {
		return dy
	}
	d.dx = grow(d.dx, len(dy))
	for i, g := range dy {
		d.dx[i] = g * d.mask[i]
	}
	return d.dx
}
