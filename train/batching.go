package train

import (
	"math/rand"

	"github.com/rigkit/rigkit/rigmodel"
)

// A batch is padded to its longest stream, and skin streams range from a few
// hundred tokens (a 20-joint creature) to 1,251 (78 joints), so a batch of
// random examples spends much of its step on padding. With the cached code set
// the skin phase draws its batches from a buffer of lengthBuffer·Batch fresh
// examples instead: a random example and the ones closest to it in length,
// each example used once. Which examples a step sees is still random (the
// anchor is), only who shares a batch is sorted.

// lengthBuffer is how many batches of examples the buffer holds.
const lengthBuffer = 4

// lengthBatch is a buffer of fresh examples that hands out batches of similar
// stream lengths.
type lengthBatch struct {
	buf []*rigmodel.Example
}

// next fills the buffer from the stream and takes a batch of n: a random anchor
// and the n-1 examples nearest to it in length (ties by buffer position).
func (lb *lengthBatch) next(n int, stream *orderedStream[*rigmodel.Example], rng *rand.Rand) []*rigmodel.Example {
	for len(lb.buf) < lengthBuffer*n {
		lb.buf = append(lb.buf, stream.next())
	}
	anchor := len(lb.buf[rng.Intn(len(lb.buf))].Tokens)
	taken := make([]bool, len(lb.buf))
	batch := make([]*rigmodel.Example, 0, n)
	for len(batch) < n {
		best := -1
		for i, ex := range lb.buf {
			if !taken[i] && (best < 0 || absDiff(len(ex.Tokens), anchor) < absDiff(len(lb.buf[best].Tokens), anchor)) {
				best = i
			}
		}
		taken[best] = true
		batch = append(batch, lb.buf[best])
	}
	kept := lb.buf[:0]
	for i, ex := range lb.buf {
		if !taken[i] {
			kept = append(kept, ex)
		}
	}
	lb.buf = kept
	return batch
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}
