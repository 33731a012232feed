// Package nn holds rigkit's neural-network layers with explicit forward and backward
// passes (in the style of llm.c), the Transformer and point-encoder building blocks,
// the AdamW optimizer, and safetensors checkpoints.
//
// Every layer is generic over float32 (training, inference) and float64 (gradient
// checks). A layer's Forward caches what its Backward needs and returns a tensor that
// the layer owns: it stays valid until the next Forward of the same layer. Backward
// returns the gradient with respect to the input and adds the gradients of the
// layer's parameters into their Grad tensors, so gradients accumulate until ZeroGrad.
// Shapes are written in comments as (B, T, C): batch, time, channels. A layer is not
// safe for concurrent use; the layers parallelize internally through their engine
// (engine.Default when they were built).
package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// Float is the element type of layers and tensors: float32 or float64.
type Float = engine.Float

// Param is one trainable tensor with its gradient.
type Param[F Float] struct {
	// Name is the parameter's full dotted name, e.g. "blocks.0.attn.qkv.weight";
	// it is the tensor's name in checkpoints.
	Name string
	// Value holds the parameter; Grad the accumulated gradient of the same shape.
	Value, Grad *tensor.Dense
	w, g        []F
}

// NewParam returns a zero parameter of the given shape.
func NewParam[F Float](name string, shape ...int) *Param[F] {
	p := &Param[F]{Name: name, Value: engine.New[F](shape...), Grad: engine.New[F](shape...)}
	p.w, p.g = engine.Data[F](p.Value), engine.Data[F](p.Grad)
	return p
}

// Data returns the backing slice of Value.
func (p *Param[F]) Data() []F { return p.w }

// GradData returns the backing slice of Grad.
func (p *Param[F]) GradData() []F { return p.g }

// Shape returns the parameter's shape.
func (p *Param[F]) Shape() []int { return p.Value.Shape().Clone() }

// Size is the number of elements.
func (p *Param[F]) Size() int { return len(p.w) }

// Module is anything with trainable parameters.
type Module[F Float] interface {
	// Params lists the module's parameters in a fixed order, with unique names.
	Params() []*Param[F]
}

// ZeroGrad clears the gradients of all of m's parameters.
func ZeroGrad[F Float](m Module[F]) {
	for _, p := range m.Params() {
		clear(p.g)
	}
}

// NumParams counts the scalar parameters of m.
func NumParams[F Float](m Module[F]) int {
	n := 0
	for _, p := range m.Params() {
		n += p.Size()
	}
	return n
}

// join builds a dotted parameter name.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// fillNormal sets w to normal(0, std) values.
func fillNormal[F Float](w []F, std float64, rng *rand.Rand) {
	for i := range w {
		w[i] = F(rng.NormFloat64() * std)
	}
}

// grow returns buf resized to n elements, reallocating only when it is too small.
// The contents are not cleared.
func grow[F Float](buf []F, n int) []F {
	if cap(buf) < n {
		return make([]F, n)
	}
	return buf[:n]
}

// rows returns the product of all dimensions but the last, and the last, checking
// that the last equals want (when want > 0).
func rows(t *tensor.Dense, want int, what string) (n, c int) {
	s := t.Shape()
	if len(s) == 0 {
		panic(fmt.Sprintf("nn: %s: scalar input", what))
	}
	c = s[len(s)-1]
	if want > 0 && c != want {
		panic(fmt.Sprintf("nn: %s: input shape %v, last dimension must be %d", what, []int(s), want))
	}
	return s.TotalSize() / max(c, 1), c
}

// withLast returns shape s with its last dimension replaced by c.
func withLast(s tensor.Shape, c int) []int {
	out := s.Clone()
	out[len(out)-1] = c
	return out
}

// add sets dst[i] += src[i] in parallel.
func add[F Float](e engine.Engine, dst, src []F) {
	e.ParallelFor(len(dst), func(lo, hi int) {
		d, s := dst[lo:hi], src[lo:hi]
		for i := range d {
			d[i] += s[i]
		}
	})
}

// residual returns dst = x + y in a reused buffer (resized to len(x)), in parallel.
func residual[F Float](e engine.Engine, dst, x, y []F) []F {
	dst = grow(dst, len(x))
	e.ParallelFor(len(x), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = x[i] + y[i]
		}
	})
	return dst
}
