package train

import (
	mrand "math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/rigmodel"
)

// TestLengthBatch checks that batches by length use every example of the stream
// once, in batches of the asked size, and pad far less than batches in stream
// order.
func TestLengthBatch(t *testing.T) {
	for _, n := range []int{1, 3, 8} {
		lengths := func(k int64) int { return 100 + int(k*7919%1000) }
		stream := newOrderedStream(2, 4, 0, func(k int64) *rigmodel.Example {
			return &rigmodel.Example{Name: string(rune('a' + k%26)), Tokens: make([]int, lengths(k)), SkeletonLen: int(k)}
		})
		lb := &lengthBatch{}
		rng := mrand.New(mrand.NewSource(1))
		seen := map[int]bool{}
		padSorted, padOrder := 0, 0
		const steps = 50
		for s := 0; s < steps; s++ {
			batch := lb.next(n, stream, rng)
			if len(batch) != n {
				t.Fatalf("batch of %d, want %d", len(batch), n)
			}
			var ls []int
			for _, ex := range batch {
				if seen[ex.SkeletonLen] {
					t.Fatalf("example %d used twice", ex.SkeletonLen)
				}
				seen[ex.SkeletonLen] = true
				ls = append(ls, len(ex.Tokens))
			}
			for _, l := range ls {
				padSorted += slices.Max(ls) - l
			}
			var inOrder []int
			for k := s * n; k < (s+1)*n; k++ {
				inOrder = append(inOrder, lengths(int64(k)))
			}
			for _, l := range inOrder {
				padOrder += slices.Max(inOrder) - l
			}
		}
		stream.close()
		if n > 1 && padSorted*2 > padOrder {
			t.Errorf("batch %d: %d padding tokens by length, %d in stream order: want under half", n, padSorted, padOrder)
		}
		if len(seen) != steps*n {
			t.Errorf("batch %d: %d distinct examples in %d batches", n, len(seen), steps)
		}
	}
}
