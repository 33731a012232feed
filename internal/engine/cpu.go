package engine

import "fmt"

// parallelFlops is the product size (m*n*k) below which a GEMM is not worth
// splitting across goroutines.
const parallelFlops = 1 << 18

// CPU is the host engine: BLAS GEMM (OpenBLAS via cgo, or gonum with the purego
// tag) run single-threaded per call and split across Workers goroutines. A large
// product is cut into a few pieces per worker that the goroutines take as they
// become free; the helpers are the process-wide pool's goroutines, which poll for
// work for a short while after each call instead of being woken (see pool), and
// keep off the caller's CPU (see gemmPlan, gemmSplit and avoidCPU;
// docs/engine.md has the measurements behind them). ParallelFor runs its chunks on
// the same pool.
type CPU struct {
	workers int
}

// NewCPU returns a cpu engine splitting work across the given number of goroutines
// (at least one).
func NewCPU(workers int) *CPU {
	if workers < 1 {
		workers = 1
	}
	return &CPU{workers: workers}
}

// Name reports "cpu" with the BLAS backend in use.
func (e *CPU) Name() string { return "cpu-" + blasBackend }

// Workers is the number of goroutines e splits work across.
func (e *CPU) Workers() int { return e.workers }

// Serial returns a one-worker cpu engine.
func (e *CPU) Serial() Engine {
	if e.workers == 1 {
		return e
	}
	return NewCPU(1)
}

// ParallelFor splits [0, n) into at most Workers contiguous chunks and runs fn on
// them concurrently.
func (e *CPU) ParallelFor(n int, fn func(lo, hi int)) {
	parallelFor(e.workers, n, fn)
}

func parallelFor(workers, n int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers = min(workers, n)
	if workers <= 1 {
		fn(0, n)
		return
	}
	pool.run(workers, workers, -1, func(w int) { fn(w*n/workers, (w+1)*n/workers) })
}

// gemmSplit tunes how products are divided among workers: pieces is the number of
// sub-products per worker a large GEMM is cut into, each of at least minWork
// multiply-adds, and align the granularity of the cuts in rows or columns of C.
// Two pieces per worker let a worker whose core is shared with another process
// take fewer of them (a static half would hold the whole product up), at the cost
// of packing the operand every piece reads whole once more per piece. They are
// variables only so that tests and benchmarks can try other settings.
var gemmSplit = struct{ pieces, minWork, align int }{pieces: 2, minWork: 1 << 22, align: 16}

// gemmTask is one sub-product: rows [r0, r1) and columns [c0, c1) of C of batch
// item i.
type gemmTask struct{ i, r0, r1, c0, c1 int }

// gemmPlan cuts batch products of m×n (inner size k) into tasks for e's workers.
// Batch items are dealt out whole when there are enough of them; otherwise each
// item is cut along the larger of its m and n, so the operand that every piece
// reads whole (and packs again) is the smaller one.
func (e *CPU) gemmPlan(m, n, k, batch int) []gemmTask {
	if e.workers == 1 || m*n*k*batch < parallelFlops {
		tasks := make([]gemmTask, batch)
		for i := range tasks {
			tasks[i] = gemmTask{i, 0, m, 0, n}
		}
		return tasks
	}
	want := e.workers * gemmSplit.pieces
	per := 1 // pieces per item
	if batch < want && m*n*k >= parallelFlops {
		per = (want + batch - 1) / batch
		// No smaller pieces than minWork, but at least one per worker.
		per = max(min(per, m*n*k/gemmSplit.minWork), (e.workers+batch-1)/batch)
	}
	byRows := m >= n
	dim := n
	if byRows {
		dim = m
	}
	align := gemmSplit.align
	if per > dim/align {
		per = max(1, dim/align)
	}
	tasks := make([]gemmTask, 0, batch*per)
	for i := 0; i < batch; i++ {
		for w := 0; w < per; w++ {
			lo := dim * w / per / align * align
			hi := dim * (w + 1) / per / align * align
			if w == per-1 {
				hi = dim
			}
			if hi <= lo {
				continue
			}
			if byRows {
				tasks = append(tasks, gemmTask{i, lo, hi, 0, n})
			} else {
				tasks = append(tasks, gemmTask{i, 0, m, lo, hi})
			}
		}
	}
	return tasks
}

// spreadFlops is the product size (m*n*k over all tasks) from which the helper
// goroutines of a GEMM are kept off the caller's CPU (see avoidCPU); below it the
// few system calls that takes are not worth it.
const spreadFlops = 1 << 22

// runTasks runs fn on every task, spread over up to workers goroutines (the
// calling one and pool helpers, see pool) that take tasks in order as they become
// free. With spread, the helpers run off the caller's CPU.
func runTasks(workers int, spread bool, tasks []gemmTask, fn func(gemmTask)) {
	if workers > len(tasks) {
		workers = len(tasks)
	}
	if workers <= 1 {
		for _, t := range tasks {
			fn(t)
		}
		return
	}
	caller := -1
	if spread {
		caller = currentCPU()
	}
	pool.run(workers, len(tasks), caller, func(i int) { fn(tasks[i]) })
}

// gemmRun computes batch products C_i = alpha*op(A_i)*op(B_i) + beta*C_i, X_i
// starting at x[i*strideX:], as the tasks of gemmPlan, each a single-threaded BLAS
// call on the sub-blocks of A, B and C it needs (no copies).
func gemmRun[F Float](e *CPU, serial func(tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int),
	tA, tB bool, m, n, k int, alpha F, a []F, lda, strideA int, b []F, ldb, strideB int, beta F, c []F, ldc, strideC int, batch int) {
	if k == 0 { // no product: C = beta*C, and A and B may be empty
		for i := 0; i < batch; i++ {
			scaleC(m, n, beta, c[i*strideC:], ldc)
		}
		return
	}
	if batch == 1 && (e.workers == 1 || m*n*k < parallelFlops) {
		serial(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	runTasks(e.workers, m*n*k*batch >= spreadFlops, e.gemmPlan(m, n, k, batch), func(t gemmTask) {
		aOff := t.i*strideA + t.r0*lda // rows of op(A) are rows of A
		if tA {
			aOff = t.i*strideA + t.r0 // ... or columns of A
		}
		bOff := t.i*strideB + t.c0 // columns of op(B) are columns of B
		if tB {
			bOff = t.i*strideB + t.c0*ldb // ... or rows of B
		}
		serial(tA, tB, t.r1-t.r0, t.c1-t.c0, k, alpha, a[aOff:], lda, b[bOff:], ldb, beta, c[t.i*strideC+t.r0*ldc+t.c0:], ldc)
	})
}

func batchedParts[F Float](e *CPU, serial func(tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int),
	tA, tB bool, m, n, k int, alpha F, a []F, lda, strideA int, b []F, ldb, strideB int, beta F, c []F, ldc, strideC int, batch int) {
	if batch < 0 || strideA < 0 || strideB < 0 || strideC < 0 {
		panic(fmt.Sprintf("engine: batched gemm: negative batch %d or stride (%d, %d, %d)", batch, strideA, strideB, strideC))
	}
	if batch == 0 || m == 0 || n == 0 {
		return
	}
	// Check the last item; earlier ones lie inside it.
	last := batch - 1
	checkGemm(tA, tB, m, n, k, lda, len(a)-last*strideA, ldb, len(b)-last*strideB, ldc, len(c)-last*strideC)
	gemmRun(e, serial, tA, tB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C in float32.
func (e *CPU) Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(tA, tB, m, n, k, lda, len(a), ldb, len(b), ldc, len(c))
	gemmRun(e, sgemmSerial, tA, tB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
}

// Dgemm computes C = alpha*op(A)*op(B) + beta*C in float64.
func (e *CPU) Dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkGemm(tA, tB, m, n, k, lda, len(a), ldb, len(b), ldc, len(c))
	gemmRun(e, dgemmSerial, tA, tB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
}

// SgemmStridedBatched runs batch float32 products, split across workers.
func (e *CPU) SgemmStridedBatched(tA, tB bool, m, n, k int, alpha float32, a []float32, lda, strideA int, b []float32, ldb, strideB int, beta float32, c []float32, ldc, strideC int, batch int) {
	batchedParts(e, sgemmSerial, tA, tB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
}

// DgemmStridedBatched runs batch float64 products, split across workers.
func (e *CPU) DgemmStridedBatched(tA, tB bool, m, n, k int, alpha float64, a []float64, lda, strideA int, b []float64, ldb, strideB int, beta float64, c []float64, ldc, strideC int, batch int) {
	batchedParts(e, dgemmSerial, tA, tB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
}

// scaleC sets C = beta*C, the whole product when k is zero.
func scaleC[F Float](m, n int, beta F, c []F, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}
