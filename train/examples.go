package train

import (
	"sync"
)

// Training examples are slow to make: augmenting a character and encoding its skin
// tokens takes about 0.4 s of one core, and the training loop needs two of them per
// step. An orderedStream makes them on worker goroutines ahead of the loop, while the
// loop runs the model's step.
//
// The k-th example of a stream is a pure function of k (build(k) seeds its own
// random source from k), and the stream hands them out in index order, so the
// examples, and with them the training run, are the same whatever the number of
// workers and however the goroutines are scheduled.

// orderedStream hands out build(first), build(first+1), ... in order, made by
// workers goroutines at most ahead items in advance.
type orderedStream[T any] struct {
	out  chan chan T // one future per item, in index order
	stop chan struct{}
	once sync.Once
}

// newOrderedStream starts the workers; close stops them.
func newOrderedStream[T any](workers, ahead int, first int64, build func(k int64) T) *orderedStream[T] {
	workers, ahead = max(workers, 1), max(ahead, 1)
	s := &orderedStream[T]{out: make(chan chan T, ahead), stop: make(chan struct{})}
	type job struct {
		k   int64
		res chan T
	}
	jobs := make(chan job, ahead)
	go func() {
		defer close(jobs)
		for k := first; ; k++ {
			res := make(chan T, 1)
			// The futures channel holds at most ahead examples not yet taken, which
			// bounds how far the workers run ahead of the loop.
			select {
			case s.out <- res:
			case <-s.stop:
				return
			}
			select {
			case jobs <- job{k, res}:
			case <-s.stop:
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for j := range jobs {
				j.res <- build(j.k)
			}
		}()
	}
	return s
}

// next returns the next item, waiting for it to be made.
func (s *orderedStream[T]) next() T { return <-<-s.out }

// close stops the stream; a worker busy with an item finishes it and exits.
func (s *orderedStream[T]) close() { s.once.Do(func() { close(s.stop) }) }

// makeOrdered returns build(0), ..., build(n-1) made by workers goroutines.
func makeOrdered[T any](n, workers int, build func(k int64) T) []T {
	s := newOrderedStream(workers, 2*workers, 0, func(k int64) T {
		if k >= int64(n) {
			var zero T
			return zero // workers run ahead of the last one taken
		}
		return build(k)
	})
	defer s.close()
	out := make([]T, n)
	for i := range out {
		out[i] = s.next()
	}
	return out
}
