package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"gorgonia.org/tensor"
)

// embedding maps integer ids to rows of a (Vocab, C) table.
type embedding[F Float] struct {
	Vocab, C int
	Weight   *Param[F] // (Vocab, C)

	ids []int
	y   []F
}

// newEmbedding returns an embedding table initialized from N(0, 0.02²).
func newEmbedding[F Float](name string, vocab, c int, rng *rand.Rand) *embedding[F] {
	e := &embedding[F]{Vocab: vocab, C: c, Weight: NewParam[F](join(name, "weight"), vocab, c)}
	fillNormal(e.Weight.w, 0.02, rng)
	return e
}

// Params returns the table.
func (e *embedding[F]) Params() []*Param[F] { return []*Param[F]{e.Weight} }

// Forward looks up ids (N) and returns their rows (N, C). It fails on an id
// outside [0, Vocab).
func (e *embedding[F]) Forward(ids []int) (*tensor.Dense, error) {
	y, err := e.forward(ids)
	if err != nil {
		return nil, err
	}
	return engine.FromSlice(y, len(ids), e.C), nil
}

// Backward adds dy (N, C) into the rows of the table gradient that Forward read.
func (e *embedding[F]) Backward(dy *tensor.Dense) {
	rows(dy, e.C, "Embedding.Backward")
	e.backward(engine.Data[F](dy))
}

func (e *embedding[F]) forward(ids []int) ([]F, error) {
	c := e.C
	e.ids = ids
	e.y = grow(e.y, len(ids)*c)
	for i, id := range ids {
		if id < 0 || id >= e.Vocab {
			return nil, fmt.Errorf("nn: embedding: id %d at position %d outside [0, %d)", id, i, e.Vocab)
		}
		copy(e.y[i*c:(i+1)*c], e.Weight.w[id*c:(id+1)*c])
	}
	return e.y, nil
}

func (e *embedding[F]) backward(dy []F) {
	c, g := e.C, e.Weight.g
	for i, id := range e.ids {
		row, src := g[id*c:(id+1)*c], dy[i*c:(i+1)*c]
		for j := range row {
			row[j] += src[j]
		}
	}
}
