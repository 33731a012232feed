package nn

import (
	"errors"
	"fmt"
	"math"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// FSQ is finite scalar quantization (Mentzer et al., 2023): each of D dimensions is
// bounded with tanh to L levels, rounded, and scaled to [-1, 1]. The gradient passes
// straight through the rounding. With Levels [8,8,8,8,8] a vector is one of 32,768
// codes, numbered by Index.
type FSQ[F Float] struct {
	Levels []int

	halfL, offset, shift []float64
	halfWidth            []int
	z, y, dz             []F
	shape                tensor.Shape
}

// fsqEps keeps tanh's open range from landing exactly on a rounding boundary.
const fsqEps = 1e-3

// NewFSQ returns a quantizer with the given levels per dimension (each ≥ 2).
func NewFSQ[F Float](levels []int) (*FSQ[F], error) {
	if len(levels) == 0 {
		return nil, errors.New("nn: fsq: no levels")
	}
	q := &FSQ[F]{Levels: append([]int(nil), levels...)}
	size := 1
	for d, l := range levels {
		if l < 2 {
			return nil, fmt.Errorf("nn: fsq: dimension %d has %d levels, need at least 2", d, l)
		}
		if size > math.MaxInt32/l {
			return nil, fmt.Errorf("nn: fsq: codebook of levels %v is too large", levels)
		}
		size *= l
		half := float64(l-1) * (1 + fsqEps) / 2
		off := 0.0
		if l%2 == 0 {
			off = 0.5
		}
		q.halfL = append(q.halfL, half)
		q.offset = append(q.offset, off)
		q.shift = append(q.shift, math.Atanh(off/half))
		q.halfWidth = append(q.halfWidth, l/2)
	}
	return q, nil
}

// dim is the number of quantized dimensions.
func (q *FSQ[F]) dim() int { return len(q.Levels) }

// codebookSize is the number of distinct codes, the product of the levels.
func (q *FSQ[F]) codebookSize() int {
	n := 1
	for _, l := range q.Levels {
		n *= l
	}
	return n
}

// bound maps z to the continuous range that rounds onto the levels of dimension d.
func (q *FSQ[F]) bound(z float64, d int) float64 {
	return math.Tanh(z+q.shift[d])*q.halfL[d] - q.offset[d]
}

// Forward quantizes z (..., D) to codes (..., D) with values k/⌊L/2⌋ in [-1, 1].
func (q *FSQ[F]) Forward(z *tensor.Dense) *tensor.Dense {
	n, _ := rows(z, q.dim(), "FSQ.Forward")
	q.shape = z.Shape().Clone()
	q.z = engine.Data[F](z)
	q.y = grow(q.y, len(q.z))
	D := q.dim()
	for i := 0; i < n; i++ {
		for d := 0; d < D; d++ {
			q.y[i*D+d] = F(math.RoundToEven(q.bound(float64(q.z[i*D+d]), d)) / float64(q.halfWidth[d]))
		}
	}
	return engine.FromSlice(q.y, q.shape...)
}

// Backward takes d loss/d codes and returns d loss/d z, treating the rounding as the
// identity (straight-through estimator).
func (q *FSQ[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	g := engine.Data[F](dy)
	q.dz = grow(q.dz, len(g))
	D := q.dim()
	for i, gv := range g {
		d := i % D
		t := math.Tanh(float64(q.z[i]) + q.shift[d])
		q.dz[i] = gv * F((1-t*t)*q.halfL[d]/float64(q.halfWidth[d]))
	}
	return engine.FromSlice(q.dz, q.shape...)
}

// Indices returns the code number of each row of codes (..., D), in
// [0, codebookSize). Dimension 0 is the least significant digit.
func (q *FSQ[F]) Indices(codes *tensor.Dense) ([]int, error) {
	s := codes.Shape()
	if len(s) == 0 || s[len(s)-1] != q.dim() {
		return nil, fmt.Errorf("nn: fsq: codes of shape %v, last dimension must be %d", []int(s), q.dim())
	}
	c := engine.Data[F](codes)
	D := q.dim()
	out := make([]int, len(c)/D)
	for i := range out {
		idx, basis := 0, 1
		for d := 0; d < D; d++ {
			hw := q.halfWidth[d]
			digit := int(math.Round(float64(c[i*D+d])*float64(hw))) + hw
			if digit < 0 || digit >= q.Levels[d] {
				return nil, fmt.Errorf("nn: fsq: row %d dimension %d: value %v is not one of %d levels", i, d, c[i*D+d], q.Levels[d])
			}
			idx += digit * basis
			basis *= q.Levels[d]
		}
		out[i] = idx
	}
	return out, nil
}

// Codes returns the code vectors (N, D) of the given code numbers.
func (q *FSQ[F]) Codes(indices []int) (*tensor.Dense, error) {
	D, size := q.dim(), q.codebookSize()
	out := make([]F, len(indices)*D)
	for i, idx := range indices {
		if idx < 0 || idx >= size {
			return nil, fmt.Errorf("nn: fsq: code number %d at %d outside [0, %d)", idx, i, size)
		}
		for d := 0; d < D; d++ {
			digit := idx % q.Levels[d]
			idx /= q.Levels[d]
			out[i*D+d] = F(float64(digit-q.halfWidth[d]) / float64(q.halfWidth[d]))
		}
	}
	return engine.FromSlice(out, len(indices), D), nil
}
