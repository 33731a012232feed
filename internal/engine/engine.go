// Package engine provides the tensors and the compute engines that rigkit's neural
// layers run on. Tensors are gorgonia.org/tensor Dense values backed by []float32 or
// []float64; an Engine supplies matrix products (plain and strided-batched, row-major,
// with transpose flags and no copies) and a parallel loop for elementwise kernels.
//
// The default engine is "cpu": OpenBLAS sgemm/dgemm through cgo, with OpenBLAS held
// single-threaded and the work split across goroutines. Built with the purego tag (or
// with CGO_ENABLED=0) it falls back to gonum's pure-Go BLAS. Built with the cuda tag,
// Get("cuda") loads libcuda and cuBLAS at run time and falls back to cpu with a clear
// message when no driver is present.
//
// Layers take their engine from Default when they are built, so a program picks
// one with SetDefault before constructing models:
//
//	e, err := engine.Get("cuda") // cpu, plus an error saying why, if CUDA is missing
//	if err != nil {
//		log.Print(err)
//	}
//	engine.SetDefault(e)
//
// Status of the cuda engine: it needs no CUDA headers or libraries at build time
// (the few driver and cuBLAS entry points are declared by hand and resolved with
// dlsym), so `go build -tags cuda ./...` works anywhere cgo does. It runs GEMMs
// through cuBLAS, staging operands from host memory into device buffers it keeps;
// small products, elementwise kernels and ParallelFor stay on the host, and NVRTC
// kernels are not written. Its tests (cuda_test.go) passed on an NVIDIA H200
// (docs/engine.md, "CUDA").
package engine

import (
	"fmt"
	"runtime"
	"sync"

	"gorgonia.org/tensor"
)

// Float is the element type of rigkit tensors: float32 for training and inference,
// float64 for gradient checks.
type Float interface {
	float32 | float64
}

// Engine computes row-major matrix products and runs parallel loops.
//
// Every Gemm computes C = alpha*op(A)*op(B) + beta*C where op(A) is m×k, op(B) is k×n
// and C is m×n, all row-major with leading dimensions lda, ldb, ldc. transA (transB)
// means A (B) is stored as k×m (n×k). Slices are used in place: no copies are made.
// Shape errors are programming errors and panic with a message naming the operand.
type Engine interface {
	// Name identifies the engine ("cpu", "cpu-purego", "cuda").
	Name() string
	// Workers is the number of goroutines the engine splits work across.
	Workers() int
	// Serial returns an engine that runs every call on the calling goroutine, for
	// use inside ParallelFor bodies.
	Serial() Engine
	// ParallelFor splits [0, n) into contiguous chunks and runs fn on each chunk
	// concurrently, returning when all are done.
	ParallelFor(n int, fn func(lo, hi int))

	Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	// SgemmStridedBatched runs batch independent products; the i-th uses
	// a[i*strideA:], b[i*strideB:] and c[i*strideC:].
	SgemmStridedBatched(transA, transB bool, m, n, k int, alpha float32, a []float32, lda, strideA int, b []float32, ldb, strideB int, beta float32, c []float32, ldc, strideC int, batch int)
	// DgemmStridedBatched is the float64 form of SgemmStridedBatched.
	DgemmStridedBatched(transA, transB bool, m, n, k int, alpha float64, a []float64, lda, strideA int, b []float64, ldb, strideB int, beta float64, c []float64, ldc, strideC int, batch int)
}

var (
	defaultMu     sync.Mutex
	defaultEngine Engine
)

// Default returns the process-wide engine: the one installed by SetDefault, or else
// a cpu engine using GOMAXPROCS workers.
func Default() Engine {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultEngine == nil {
		defaultEngine = NewCPU(runtime.GOMAXPROCS(0))
	}
	return defaultEngine
}

// SetDefault installs e as the process-wide engine returned by Default.
func SetDefault(e Engine) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	defaultEngine = e
}

// Get returns the engine with the given name: "cpu" (or ""), or "cuda". Asking for
// cuda in a build without the cuda tag, or on a machine without a CUDA driver,
// returns the cpu engine together with a non-nil error saying why, so callers can
// log the fallback and carry on.
func Get(name string) (Engine, error) {
	switch name {
	case "", "cpu":
		return NewCPU(runtime.GOMAXPROCS(0)), nil
	case "cuda":
		e, err := newCUDA()
		if err != nil {
			return NewCPU(runtime.GOMAXPROCS(0)), fmt.Errorf("engine: cuda unavailable, using cpu: %w", err)
		}
		return e, nil
	default:
		return nil, fmt.Errorf("engine: unknown engine %q (want cpu or cuda)", name)
	}
}

// New returns a zeroed tensor of the given shape backed by a []F.
func New[F Float](shape ...int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("engine: negative dimension in shape %v", shape))
		}
		n *= d
	}
	return FromSlice(make([]F, n), shape...)
}

// FromSlice wraps data (not copied) as a tensor of the given shape.
func FromSlice[F Float](data []F, shape ...int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(data) {
		panic(fmt.Sprintf("engine: shape %v needs %d elements, slice has %d", shape, n, len(data)))
	}
	if len(shape) == 0 {
		// A gorgonia scalar hides its backing slice; keep rigkit tensors 1-D at least.
		shape = []int{len(data)}
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data))
}

// Data returns the backing slice of t, for hot loops. It panics when t is not
// backed by a []F.
func Data[F Float](t *tensor.Dense) []F {
	d, ok := t.Data().([]F)
	if !ok {
		var zero F
		panic(fmt.Sprintf("engine: tensor of %v is not backed by []%T", t.Dtype(), zero))
	}
	return d
}

// Gemm computes C = alpha*op(A)*op(B) + beta*C for either float type on e.
func Gemm[F Float](e Engine, transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	switch a := any(a).(type) {
	case []float32:
		e.Sgemm(transA, transB, m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		e.Dgemm(transA, transB, m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// GemmStridedBatched runs batch products C_i = alpha*op(A_i)*op(B_i) + beta*C_i on e,
// where X_i starts at x[i*strideX:].
func GemmStridedBatched[F Float](e Engine, transA, transB bool, m, n, k int, alpha F, a []F, lda, strideA int, b []F, ldb, strideB int, beta F, c []F, ldc, strideC int, batch int) {
	switch a := any(a).(type) {
	case []float32:
		e.SgemmStridedBatched(transA, transB, m, n, k, float32(alpha), a, lda, strideA, any(b).([]float32), ldb, strideB, float32(beta), any(c).([]float32), ldc, strideC, batch)
	case []float64:
		e.DgemmStridedBatched(transA, transB, m, n, k, float64(alpha), a, lda, strideA, any(b).([]float64), ldb, strideB, float64(beta), any(c).([]float64), ldc, strideC, batch)
	}
}

// checkGemm panics unless the slices hold the operands described by the arguments;
// it guards the C library from reading or writing out of bounds.
func checkGemm(transA, transB bool, m, n, k, lda, lenA, ldb, lenB, ldc, lenC int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("engine: gemm: negative size m=%d n=%d k=%d", m, n, k))
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	check := func(name string, rows, cols, ld, l int) {
		if rows == 0 || cols == 0 {
			return
		}
		if ld < cols {
			panic(fmt.Sprintf("engine: gemm: leading dimension of %s is %d, less than its %d columns", name, ld, cols))
		}
		if need := (rows-1)*ld + cols; l < need {
			panic(fmt.Sprintf("engine: gemm: %s is %dx%d (ld %d) and needs %d elements, has %d", name, rows, cols, ld, need, l))
		}
	}
	check("A", rowsA, colsA, lda, lenA)
	check("B", rowsB, colsB, ldb, lenB)
	check("C", m, n, ldc, lenC)
}
