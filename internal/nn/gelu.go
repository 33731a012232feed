package nn

import (
	"math"

	"github.com/rigkit/rigkit/internal/fastmath"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// geluK is sqrt(2/π), the constant of the tanh approximation of GELU.
const geluK = 0.7978845608028654

// GELU is the tanh approximation of the Gaussian error linear unit:
// y = x/2·(1 + tanh(sqrt(2/π)·(x + 0.044715x³))).
type GELU[F Float] struct {
	eng   engine.Engine
	x     []F
	t     []F // tanh term of each element, kept for Backward
	y, dx []F
	shape tensor.Shape
}

// NewGELU returns a GELU activation.
func NewGELU[F Float]() *GELU[F] { return &GELU[F]{eng: engine.Default()} }

// Params returns nothing: GELU has no parameters.
func (g *GELU[F]) Params() []*Param[F] { return nil }

// Forward applies GELU elementwise to x (any shape).
func (g *GELU[F]) Forward(x *tensor.Dense) *tensor.Dense {
	g.shape = x.Shape().Clone()
	return engine.FromSlice(g.forward(engine.Data[F](x)), g.shape...)
}

// Backward takes dy and returns dx, both of the input's shape.
func (g *GELU[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	return engine.FromSlice(g.backward(engine.Data[F](dy)), g.shape...)
}

func (g *GELU[F]) forward(x []F) []F {
	g.x = x
	g.y = grow(g.y, len(x))
	g.t = grow(g.t, len(x))
	geluApply(g.eng, x, g.y, g.t)
	return g.y
}

// geluApply sets y = GELU(x), and t to the tanh term when t is not nil.
func geluApply[F Float](e engine.Engine, x, y, t []F) {
	e.ParallelFor(len(x), func(lo, hi int) {
		switch xs := any(x[lo:hi]).(type) {
		case []float32:
			var ts []float32
			if t != nil {
				ts = any(t[lo:hi]).([]float32)
			}
			gelu32(xs, any(y[lo:hi]).([]float32), ts)
		case []float64:
			ys := any(y[lo:hi]).([]float64)
			for i, v := range xs {
				th := math.Tanh(geluK * (v + 0.044715*v*v*v))
				ys[i] = 0.5 * v * (1 + th)
				if t != nil {
					any(t).([]float64)[lo+i] = th
				}
			}
		}
	})
}

func (g *GELU[F]) backward(dy []F) []F {
	g.dx = grow(g.dx, len(dy))
	x, th, dx := g.x, g.t, g.dx
	g.eng.ParallelFor(len(dy), func(lo, hi int) {
		switch xs := any(x[lo:hi]).(type) {
		case []float32:
			fastmath.GELUTanhBackward(xs, any(th[lo:hi]).([]float32), any(dy[lo:hi]).([]float32), any(dx[lo:hi]).([]float32))
		case []float64:
			ds, out, ts := any(dy[lo:hi]).([]float64), any(dx[lo:hi]).([]float64), any(th[lo:hi]).([]float64)
			for i, v := range xs {
				t := ts[i]
				du := geluK * (1 + 3*0.044715*v*v)
				out[i] = ds[i] * (0.5*(1+t) + 0.5*v*(1-t*t)*du)
			}
		}
	})
	return dx
}

// gelu32 is GELU on fastmath's kernels (C in a cgo build, bit for bit the Go loop's
// results): into y, and with t, keeping each tanh for the backward pass.
func gelu32(x, y, t []float32) {
	y = y[:len(x)]
	if t == nil {
		copy(y, x)
		fastmath.GELUInPlace(y)
		return
	}
	fastmath.GELUTanh(x, y, t[:len(x)])
}
