package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinWindow is how long an idle pool helper keeps polling for the next job before
// it parks, and how long a caller polls for its helpers to finish before it
// blocks, in nanoseconds. Atomic and variable only so that tests and benchmarks
// can try other settings while helpers run.
var spinWindow atomic.Int64

func init() { spinWindow.Store(int64(200 * time.Microsecond)) }

// The pool: helper goroutines that live for the whole process and run the pieces
// of parallel work (GEMM tasks, ParallelFor chunks) beside the calling goroutine.
//
// Why: a goroutine started per call (or a parked one) needs a sleeping OS thread
// woken and scheduled, 60 µs to several ms on this machine, which a product of a
// few hundred microseconds cannot hide, while OpenBLAS's own threads busy-wait
// between calls. A pool helper that has just finished a job polls for the next one
// for spinWindow before it parks on its channel, so back-to-back calls find it
// running and hand it work through an atomic store, with no system call. While
// polling it yields its P at every turn (runtime.Gosched), so other goroutines of
// the process (the elementwise kernels between GEMMs) are not held up by it; it is
// not locked to its thread, as a locked goroutine that yields must hand its thread
// over through the kernel. Helpers only poll when GOMAXPROCS > 1, and at most
// GOMAXPROCS-1 of them; the others park at once.
//
// The pool starts with no helpers and grows, the first time a call asks for more
// helpers than it has, to the number asked (workers-1 of the largest engine used);
// the helpers are never stopped. Parked, a helper costs a goroutine stack and
// nothing else.
//
// Every job is split into a fixed list of pieces before it is published, and each
// piece is run exactly once (claimed through an atomic counter) and writes its own
// part of the output, so which goroutine runs which piece, and whether a helper
// joins in at all, changes nothing in the result. A caller always runs pieces of
// its own job too, so a job completes even when no helper is free (busy with
// another caller's job, or not scheduled by the OS).
var pool workPool

type workPool struct {
	job     atomic.Pointer[poolJob]       // the latest published job
	helpers atomic.Pointer[[]*poolHelper] // grows only, under mu
	mu      sync.Mutex
}

type poolHelper struct {
	parked atomic.Bool   // set by the helper before it blocks on wake
	wake   chan struct{} // capacity 1; sent to by whoever clears parked
}

// poolJob is one parallel call: pieces 0..n-1 of fn, asked of the first helpers
// pool helpers. avoid is the caller's CPU, which a helper that finds itself on it
// leaves (see avoidCPU), or -1.
type poolJob struct {
	n, helpers, avoid int
	fn                func(piece int)
	next, done        atomic.Int64
	fin               chan struct{} // capacity 1; sent to by whoever finishes the last piece
}

// run calls fn(0), ..., fn(n-1), spread over the calling goroutine and up to
// workers-1 pool helpers, and returns when all have returned. With avoid ≥ 0,
// helpers keep off that CPU (the caller's) while they work on this job.
func (p *workPool) run(workers, n, avoid int, fn func(piece int)) {
	helpers := min(workers, n) - 1
	if helpers <= 0 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	hs := p.grow(helpers)
	j := &poolJob{n: n, helpers: helpers, avoid: avoid, fn: fn, fin: make(chan struct{}, 1)}
	p.job.Store(j)
	for _, h := range hs[:helpers] {
		if h.parked.Load() && h.parked.CompareAndSwap(true, false) {
			h.wake <- struct{}{}
		}
	}
	j.work()
	if j.done.Load() == int64(n) {
		return
	}
	// The helpers hold the last pieces: poll for them a while (they are about the
	// size of the caller's own), then block.
	if runtime.GOMAXPROCS(0) > 1 {
		start := time.Now()
		for i := 1; j.done.Load() < int64(n); i++ {
			runtime.Gosched()
			if i%16 == 0 && time.Since(start) > time.Duration(spinWindow.Load()) {
				break
			}
		}
	}
	if j.done.Load() < int64(n) {
		<-j.fin
	}
}

// work runs pieces of j until none is left.
func (j *poolJob) work() {
	for {
		i := int(j.next.Add(1)) - 1
		if i >= j.n {
			return
		}
		j.fn(i)
		if j.done.Add(1) == int64(j.n) {
			j.fin <- struct{}{} // the only send: capacity 1, never blocks
		}
	}
}

// grow returns the helpers, starting more so that there are at least n.
func (p *workPool) grow(n int) []*poolHelper {
	if hs := p.helpers.Load(); hs != nil && len(*hs) >= n {
		return *hs
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var hs []*poolHelper
	if old := p.helpers.Load(); old != nil {
		hs = *old
	}
	if len(hs) >= n {
		return hs
	}
	hs = append([]*poolHelper(nil), hs...)
	for len(hs) < n {
		h := &poolHelper{wake: make(chan struct{}, 1)}
		go p.serve(h, len(hs))
		hs = append(hs, h)
	}
	p.helpers.Store(&hs)
	return hs
}

// serve is helper number idx's loop: wait for a job it has not seen, work on it
// if the job asks for it, repeat.
func (p *workPool) serve(h *poolHelper, idx int) {
	var seen *poolJob
	for {
		j := p.await(h, idx, seen)
		seen = j
		if idx >= j.helpers {
			continue
		}
		if j.avoid >= 0 && currentCPU() == j.avoid {
			restore := avoidCPU(j.avoid)
			j.work()
			restore()
			continue
		}
		j.work()
	}
}

// await returns the first published job other than seen: polling for spinWindow
// (helpers idx < GOMAXPROCS-1 only), then parked on h.wake.
func (p *workPool) await(h *poolHelper, idx int, seen *poolJob) *poolJob {
	if procs := runtime.GOMAXPROCS(0); idx < procs-1 {
		start := time.Now()
		for i := 1; ; i++ {
			if j := p.job.Load(); j != seen {
				return j
			}
			runtime.Gosched()
			if i%16 == 0 && time.Since(start) > time.Duration(spinWindow.Load()) {
				break
			}
		}
	}
	// Park. A publisher that finds parked set clears it and sends one wake-up;
	// a job published between the poll above and the Store is caught by the
	// check after it, and whichever of the helper and a publisher clears parked
	// first decides whether the wake-up is sent (and must be received).
	h.parked.Store(true)
	if j := p.job.Load(); j != seen {
		if h.parked.CompareAndSwap(true, false) {
			return j
		}
		<-h.wake
		return p.job.Load()
	}
	<-h.wake
	// Jobs are never reused, so the job now published is one not yet seen.
	return p.job.Load()
}
