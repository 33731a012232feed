package engine

import (
	"fmt"
	"sync"
)

// parallelFlops is the product size (m*n*k) below which a GEMM is not worth
// splitting across goroutines.
const parallelFlops = 1 << 18

// CPU is the host engine: BLAS GEMM (OpenBLAS via cgo, or gonum with the purego
// tag) run single-threaded per call and split across Workers goroutines.
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
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	fn(0, n/workers)
	wg.Wait()
}

// split returns how many row (or column) blocks a GEMM of the given size should be
// split into, keeping blocks a multiple of align rows.
func (e *CPU) split(rows, m, n, k int) int {
	if e.workers == 1 || m*n*k < parallelFlops {
		return 1
	}
	p := e.workers
	const align = 16
	if rows/align < p {
		p = rows / align
	}
	if p < 1 {
		p = 1
	}
	return p
}

// gemmParts runs a GEMM as p independent pieces over rows of C (or columns when
// there are more columns than rows), each piece on its own goroutine.
func gemmParts[F Float](e *CPU, serial func(tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int),
	tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	byRows := m >= n
	rows := m
	if !byRows {
		rows = n
	}
	p := e.split(rows, m, n, k)
	if p == 1 {
		serial(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	parallelFor(p, p, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			r0 := (rows * w / p) &^ 15
			r1 := (rows * (w + 1) / p) &^ 15
			if w == p-1 {
				r1 = rows
			}
			if r1 <= r0 {
				continue
			}
			if byRows {
				aOff := r0 * lda // op(A) rows are rows of A
				if tA {
					aOff = r0 // op(A) rows are columns of A
				}
				serial(tA, tB, r1-r0, n, k, alpha, a[aOff:], lda, b, ldb, beta, c[r0*ldc:], ldc)
			} else {
				bOff := r0 // op(B) columns are columns of B
				if tB {
					bOff = r0 * ldb // op(B) columns are rows of B
				}
				serial(tA, tB, m, r1-r0, k, alpha, a, lda, b[bOff:], ldb, beta, c[r0:], ldc)
			}
		}
	})
}

func batchedParts[F Float](e *CPU, serial func(tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int),
	tA, tB bool, m, n, k int, alpha F, a []F, lda, strideA int, b []F, ldb, strideB int, beta F, c []F, ldc, strideC int, batch int) {
	if batch < 0 || strideA < 0 || strideB < 0 || strideC < 0 {
		panic(fmt.Sprintf("engine: batched gemm: negative batch %d or stride (%d, %d, %d)", batch, strideA, strideB, strideC))
	}
	if batch == 0 {
		return
	}
	// Check the last item; earlier ones lie inside it.
	last := batch - 1
	checkGemm(tA, tB, m, n, k, lda, len(a)-last*strideA, ldb, len(b)-last*strideB, ldc, len(c)-last*strideC)
	one := func(i int, run func(tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int)) {
		run(tA, tB, m, n, k, alpha, a[i*strideA:], lda, b[i*strideB:], ldb, beta, c[i*strideC:], ldc)
	}
	if batch < e.workers && m*n*k >= parallelFlops {
		for i := 0; i < batch; i++ {
			one(i, func(tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
				gemmParts(e, serial, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			})
		}
		return
	}
	workers := e.workers
	if batch*m*n*k < parallelFlops {
		workers = 1
	}
	parallelFor(workers, batch, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			one(i, serial)
		}
	})
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C in float32.
func (e *CPU) Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(tA, tB, m, n, k, lda, len(a), ldb, len(b), ldc, len(c))
	gemmParts(e, sgemmSerial, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm computes C = alpha*op(A)*op(B) + beta*C in float64.
func (e *CPU) Dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkGemm(tA, tB, m, n, k, lda, len(a), ldb, len(b), ldc, len(c))
	gemmParts(e, dgemmSerial, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
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
