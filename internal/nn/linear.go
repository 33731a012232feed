package nn

import (
	"math"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
	"gorgonia.org/tensor"
)

// Linear is y = x·Wᵀ + b with W of shape (Out, In), as in PyTorch.
type Linear[F Float] struct {
	In, Out int
	Weight  *Param[F] // (Out, In)
	Bias    *Param[F] // (Out), nil without bias

	eng     engine.Engine
	x       []F // cached input (N, In), not copied
	n       int
	y, dx   []F
	scratch []F // reduceRows' partial sums of the bias gradient
	shape   tensor.Shape
}

// NewLinear returns a Linear layer named name (its parameters are name.weight and
// name.bias) with weights drawn from N(0, 1/In) and zero bias.
func NewLinear[F Float](name string, in, out int, bias bool, rng *rand.Rand) *Linear[F] {
	l := &Linear[F]{In: in, Out: out, Weight: NewParam[F](join(name, "weight"), out, in), eng: engine.Default()}
	fillNormal(l.Weight.w, 1/math.Sqrt(float64(in)), rng)
	if bias {
		l.Bias = NewParam[F](join(name, "bias"), out)
	}
	return l
}

// Params returns the weight and, if present, the bias.
func (l *Linear[F]) Params() []*Param[F] {
	if l.Bias == nil {
		return []*Param[F]{l.Weight}
	}
	return []*Param[F]{l.Weight, l.Bias}
}

// Forward maps x (..., In) to y (..., Out).
func (l *Linear[F]) Forward(x *tensor.Dense) *tensor.Dense {
	n, _ := rows(x, l.In, "Linear.Forward")
	l.shape = x.Shape().Clone()
	y := l.forward(engine.Data[F](x), n)
	return engine.FromSlice(y, withLast(l.shape, l.Out)...)
}

// Backward takes dy (..., Out) and returns dx (..., In).
func (l *Linear[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	rows(dy, l.Out, "Linear.Backward")
	dx := l.backward(engine.Data[F](dy))
	return engine.FromSlice(dx, l.shape...)
}

// forward caches x (n, In) and returns y (n, Out) in a layer-owned buffer.
func (l *Linear[F]) forward(x []F, n int) []F {
	l.x, l.n = x, n
	l.y = grow(l.y, n*l.Out)
	l.apply(l.eng, x, n, l.y)
	return l.y
}

// apply computes y (n, Out) = x (n, In)·Wᵀ + b without caching anything.
func (l *Linear[F]) apply(e engine.Engine, x []F, n int, y []F) {
	l.Rows(e, x, n, y, false)
}

// Rows sets y (n, Out) = x (n, In)·Wᵀ + b, or adds it to y when accumulate, keeping
// nothing for a backward pass: inference code that manages its own buffers calls it.
func (l *Linear[F]) Rows(e engine.Engine, x []F, n int, y []F, accumulate bool) {
	beta := F(0)
	if accumulate {
		beta = 1
	}
	if l.Bias != nil {
		b := l.Bias.w
		ys, isF32 := any(y).([]float32)
		bs, _ := any(b).([]float32)
		e.ParallelFor(n, func(lo, hi int) {
			if isF32 && accumulate {
				fastmath.AddRows(ys[lo*l.Out:hi*l.Out], bs) // vectorized C in a cgo build
				return
			}
			for i := lo; i < hi; i++ {
				row := y[i*l.Out : (i+1)*l.Out]
				if !accumulate {
					copy(row, b)
					continue
				}
				for j, v := range b {
					row[j] += v
				}
			}
		})
		beta = 1
	}
	engine.Gemm(e, false, true, n, l.Out, l.In, 1, x, l.In, l.Weight.w, l.In, beta, y, l.Out)
}

// backward accumulates dW, db from dy (n, Out) and returns dx (n, In).
func (l *Linear[F]) backward(dy []F) []F {
	n := l.n
	// dW (Out, In) += dyᵀ (Out, n) · x (n, In)
	engine.Gemm(l.eng, true, false, l.Out, l.In, n, 1, dy, l.Out, l.x, l.In, 1, l.Weight.g, l.In)
	if l.Bias != nil {
		out := l.Out
		reduceRows(l.eng, n, l.Bias.g, &l.scratch, func(lo, hi int, acc []F) {
			for i := lo; i < hi; i++ {
				for j, v := range dy[i*out : (i+1)*out] {
					acc[j] += v
				}
			}
		})
	}
	// dx (n, In) = dy (n, Out) · W (Out, In)
	l.dx = grow(l.dx, n*l.In)
	engine.Gemm(l.eng, false, false, n, l.In, l.Out, 1, dy, l.Out, l.Weight.w, l.In, 0, l.dx, l.In)
	return l.dx
}
