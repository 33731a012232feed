package nn

import "github.com/rigkit/rigkit/internal/engine"

// reduceBlock is how many rows one partial sum of reduceRows covers.
const reduceBlock = 64

// reduceRows accumulates a sum over n rows into dst (its length is the sum's width):
// add(lo, hi, acc) adds the contributions of rows [lo, hi) into acc. The rows are
// cut into fixed blocks of reduceBlock, each summed into its own zeroed slice of
// scratch by whichever worker takes the block, then the blocks are added into dst
// in order. So the result does not depend on the number of workers, every worker
// reads whole rows (contiguous memory), and no two workers write the same cache
// line. (Cutting the columns among workers instead, as parameter-gradient
// reductions first did, made 16 workers write neighbouring elements of dst for every
// row: a quarter of a training step's time on 16 cores went to that false sharing.)
func reduceRows[F Float](e engine.Engine, n int, dst []F, scratch *[]F, add func(lo, hi int, acc []F)) {
	width := len(dst)
	if n <= 0 || width == 0 {
		return
	}
	nb := (n + reduceBlock - 1) / reduceBlock
	buf := grow(*scratch, nb*width)
	*scratch = buf
	clear(buf)
	e.ParallelFor(nb, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			add(b*reduceBlock, min((b+1)*reduceBlock, n), buf[b*width:(b+1)*width])
		}
	})
	for b := 0; b < nb; b++ {
		part := buf[b*width : (b+1)*width]
		for j, v := range part {
			dst[j] += v
		}
	}
}
