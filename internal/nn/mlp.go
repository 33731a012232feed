package nn

import (
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// MLP is the transformer feed-forward block: Linear(C, Hidden) → GELU →
// Linear(Hidden, C).
type MLP[F Float] struct {
	Up   *Linear[F]
	Act  *GELU[F]
	Down *Linear[F]

	shape tensor.Shape
}

// NewMLP returns an MLP over c channels with the given hidden width.
func NewMLP[F Float](name string, c, hidden int, rng *rand.Rand) *MLP[F] {
	return &MLP[F]{
		Up:   NewLinear[F](join(name, "up"), c, hidden, true, rng),
		Act:  NewGELU[F](),
		Down: NewLinear[F](join(name, "down"), hidden, c, true, rng),
	}
}

// Params returns the parameters of both projections.
func (m *MLP[F]) Params() []*Param[F] { return append(m.Up.Params(), m.Down.Params()...) }

// Forward maps x (..., C) to (..., C).
func (m *MLP[F]) Forward(x *tensor.Dense) *tensor.Dense {
	n, _ := rows(x, m.Up.In, "MLP.Forward")
	m.shape = x.Shape().Clone()
	return engine.FromSlice(m.forward(engine.Data[F](x), n), m.shape...)
}

// Backward takes dy (..., C) and returns dx (..., C).
func (m *MLP[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	return engine.FromSlice(m.backward(engine.Data[F](dy)), m.shape...)
}

func (m *MLP[F]) forward(x []F, n int) []F {
	h := m.Up.forward(x, n)
	return m.Down.forward(m.Act.forward(h), n)
}

func (m *MLP[F]) backward(dy []F) []F {
	return m.Up.backward(m.Act.backward(m.Down.backward(dy)))
}

// apply maps x (n, C) to a new (n, C) slice without caching, with the layers on a
// decoder's packed weights sp, or on e's GEMMs when sp is nil (stepPanels.apply).
func (m *MLP[F]) apply(e engine.Engine, x []F, n int, sp *stepPanels[F]) []F {
	h := make([]F, n*m.Up.Out)
	sp.apply(m.Up, e, x, n, h)
	geluApply(e, h, h, nil)
	y := make([]F, n*m.Down.Out)
	sp.apply(m.Down, e, h, n, y)
	return y
}
