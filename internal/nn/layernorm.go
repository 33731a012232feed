package nn

import (
	"math"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
	"gorgonia.org/tensor"
)

// LayerNorm normalizes each row of C features to zero mean and unit variance, then
// scales and shifts: y = (x - mean)/sqrt(var + Eps)·Weight + Bias.
type LayerNorm[F Float] struct {
	C      int
	Eps    float64
	Weight *Param[F] // (C), initialized to 1
	Bias   *Param[F] // (C), initialized to 0

	eng engine.Engine
	act layerNormCache[F]
}

// layerNormCache is what Forward keeps for Backward and the buffers both reuse.
type layerNormCache[F Float] struct {
	x          []F
	mean, rstd []F // (N)
	y, dx      []F
	grad       []F // (2C) this pass's bias and weight gradients
	scratch    []F // reduceRows' partial sums
	shape      tensor.Shape
}

// NewLayerNorm returns a LayerNorm over c features with Eps 1e-5.
func NewLayerNorm[F Float](name string, c int) *LayerNorm[F] {
	l := &LayerNorm[F]{C: c, Eps: 1e-5, Weight: NewParam[F](join(name, "weight"), c), Bias: NewParam[F](join(name, "bias"), c), eng: engine.Default()}
	for i := range l.Weight.w {
		l.Weight.w[i] = 1
	}
	return l
}

// Params returns the weight and bias.
func (l *LayerNorm[F]) Params() []*Param[F] { return []*Param[F]{l.Weight, l.Bias} }

// Forward normalizes x (..., C).
func (l *LayerNorm[F]) Forward(x *tensor.Dense) *tensor.Dense {
	n, _ := rows(x, l.C, "LayerNorm.Forward")
	l.act.shape = x.Shape().Clone()
	return engine.FromSlice(l.forward(engine.Data[F](x), n), l.act.shape...)
}

// Backward takes dy (..., C) and returns dx (..., C).
func (l *LayerNorm[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	rows(dy, l.C, "LayerNorm.Backward")
	return engine.FromSlice(l.backward(engine.Data[F](dy)), l.act.shape...)
}

func (l *LayerNorm[F]) forward(x []F, n int) []F {
	l.act.x = x
	l.act.y = grow(l.act.y, n*l.C)
	l.act.mean, l.act.rstd = grow(l.act.mean, n), grow(l.act.rstd, n)
	l.apply(l.eng, x, n, l.act.y, l.act.mean, l.act.rstd)
	return l.act.y
}

// apply normalizes x (n, C) into y, recording each row's mean and reciprocal
// standard deviation when mean and rstd are not nil.
func (l *LayerNorm[F]) apply(e engine.Engine, x []F, n int, y, mean, rstd []F) {
	e.ParallelFor(n, func(lo, hi int) { l.rows(x, y, lo, hi, mean, rstd) })
}

// Rows normalizes the rows of x (len(x)/C of them) into y, which may be x, on the
// calling goroutine: for inference code that parallelizes at a higher level and
// keeps no activations for a backward pass.
func (l *LayerNorm[F]) Rows(x, y []F) {
	if xs, ok := any(x).([]float32); ok {
		// rows' operations in fastmath's kernel (vectorized C in a cgo build), the
		// statistics summed in lanes rather than in index order.
		fastmath.LayerNormRows(xs, any(y).([]float32), any(l.Weight.w).([]float32), any(l.Bias.w).([]float32), l.C, l.Eps)
		return
	}
	l.rows(x, y, 0, len(x)/l.C, nil, nil)
}

// rows normalizes rows lo..hi of x into y; statistics are accumulated in float64.
func (l *LayerNorm[F]) rows(x, y []F, lo, hi int, mean, rstd []F) {
	c := l.C
	w, b := l.Weight.w, l.Bias.w
	for i := lo; i < hi; i++ {
		xi, yi := x[i*c:(i+1)*c], y[i*c:(i+1)*c]
		var s float64
		for _, v := range xi {
			s += float64(v)
		}
		m := s / float64(c)
		var v2 float64
		for _, v := range xi {
			d := float64(v) - m
			v2 += d * d
		}
		rs := 1 / math.Sqrt(v2/float64(c)+l.Eps)
		fm, frs := F(m), F(rs)
		for j, v := range xi {
			yi[j] = (v-fm)*frs*w[j] + b[j]
		}
		if mean != nil {
			mean[i], rstd[i] = fm, frs
		}
	}
}

func (l *LayerNorm[F]) backward(dy []F) []F {
	c, n := l.C, len(l.act.mean)
	l.act.dx = grow(l.act.dx, n*c)
	w := l.Weight.w
	// Parameter gradients are sums over rows: partial sums of [db | dw] per block
	// of rows (reduce.go).
	dw, db := l.Weight.g, l.Bias.g
	l.act.grad = grow(l.act.grad, 2*c)
	clear(l.act.grad)
	reduceRows(l.eng, n, l.act.grad, &l.act.scratch, func(lo, hi int, acc []F) {
		adb, adw := acc[:c], acc[c:]
		for i := lo; i < hi; i++ {
			xi, di := l.act.x[i*c:(i+1)*c], dy[i*c:(i+1)*c]
			m, rs := l.act.mean[i], l.act.rstd[i]
			for j := range xi {
				adb[j] += di[j]
				adw[j] += (xi[j] - m) * rs * di[j]
			}
		}
	})
	for j := 0; j < c; j++ {
		db[j] += l.act.grad[j]
		dw[j] += l.act.grad[c+j]
	}
	l.eng.ParallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xi, di, dxi := l.act.x[i*c:(i+1)*c], dy[i*c:(i+1)*c], l.act.dx[i*c:(i+1)*c]
			m, rs := l.act.mean[i], l.act.rstd[i]
			// dx = rs·(g - mean(g) - xhat·mean(g·xhat)) with g = dy·w.
			var sg, sgx F
			for j := range xi {
				g := di[j] * w[j]
				sg += g
				sgx += g * (xi[j] - m) * rs
			}
			sg /= F(c)
			sgx /= F(c)
			for j := range xi {
				xhat := (xi[j] - m) * rs
				dxi[j] = rs * (di[j]*w[j] - sg - xhat*sgx)
			}
		}
	})
	return l.act.dx
}
