// Package fuzzbound makes fuzz targets fail on what a recover or an error hides: a
// call that allocates more than a bound, or one that runs far longer than any input
// of its size should. A decoder that survives a hostile input by allocating
// gigabytes, or by looping for minutes, passes a plain fuzz target; under
// fuzzbound.Check it fails with the input saved.
package fuzzbound

import (
	"runtime/metrics"
	"testing"
	"time"
)

// Bound is what one call may cost.
type Bound struct {
	// Alloc is the most bytes the call may allocate on the heap (counted by
	// runtime/metrics, /gc/heap/allocs:bytes, so it is an upper bound on how far
	// the call grows the live heap).
	Alloc uint64
	// Time is the most wall time the call may take. Keep it far above the normal
	// cost (seconds, not milliseconds): fuzz workers share the cores.
	Time time.Duration
}

// Check runs f and fails t when it allocates or takes more than b allows. Run it
// inside the fuzz function; other goroutines of the process allocate little while
// a fuzz worker runs one input.
func Check(t testing.TB, b Bound, f func()) {
	t.Helper()
	before := Allocated()
	start := time.Now()
	f()
	elapsed := time.Since(start)
	alloc := Allocated() - before
	if b.Alloc > 0 && alloc > b.Alloc {
		t.Fatalf("allocated %d bytes, bound %d", alloc, b.Alloc)
	}
	if b.Time > 0 && elapsed > b.Time {
		t.Fatalf("took %v, bound %v", elapsed, b.Time)
	}
}

// Allocated returns the bytes allocated on the heap by this process so far.
func Allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
