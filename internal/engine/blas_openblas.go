//go:build cgo && !purego

package engine

/*
#cgo LDFLAGS: -lopenblas

// Declared here rather than taken from cblas.h so that the build needs only the
// library; the enums are passed as the int values the CBLAS ABI defines.
void cblas_sgemm(int order, int transA, int transB, int m, int n, int k,
	float alpha, const float *a, int lda, const float *b, int ldb,
	float beta, float *c, int ldc);
void cblas_dgemm(int order, int transA, int transB, int m, int n, int k,
	double alpha, const double *a, int lda, const double *b, int ldb,
	double beta, double *c, int ldc);
void openblas_set_num_threads(int n);

static void rk_sgemm(int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
	const float *b, int ldb, float beta, float *c, int ldc) {
	cblas_sgemm(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
static void rk_dgemm(int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
	const double *b, int ldb, double beta, double *c, int ldc) {
	cblas_dgemm(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
*/
import "C"

import (
	"fmt"
	"math"
	"sync"
)

const blasBackend = "openblas"

func init() {
	// rigkit splits work across goroutines itself; OpenBLAS's own threads would
	// oversubscribe the cores.
	C.openblas_set_num_threads(1)
}

func cint(name string, v int) C.int {
	if v > math.MaxInt32 {
		panic(fmt.Sprintf("engine: gemm: %s=%d exceeds the 32-bit BLAS interface", name, v))
	}
	return C.int(v)
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func sgemmSerial(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	C.rk_sgemm(cbool(tA), cbool(tB), cint("m", m), cint("n", n), cint("k", k), C.float(alpha),
		(*C.float)(&a[0]), cint("lda", lda), (*C.float)(&b[0]), cint("ldb", ldb), C.float(beta),
		(*C.float)(&c[0]), cint("ldc", ldc))
}

func dgemmSerial(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	C.rk_dgemm(cbool(tA), cbool(tB), cint("m", m), cint("n", n), cint("k", k), C.double(alpha),
		(*C.double)(&a[0]), cint("lda", lda), (*C.double)(&b[0]), cint("ldb", ldb), C.double(beta),
		(*C.double)(&c[0]), cint("ldc", ldc))
}

var referenceMu sync.Mutex

// referenceSgemm calls cblas_sgemm directly with OpenBLAS running the given number
// of its own threads: the yardstick the engine's benchmarks compare against.
func referenceSgemm(threads int, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	referenceMu.Lock()
	defer referenceMu.Unlock()
	C.openblas_set_num_threads(C.int(threads))
	defer C.openblas_set_num_threads(1)
	sgemmSerial(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
