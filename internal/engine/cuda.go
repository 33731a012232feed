//go:build cuda && cgo

package engine

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>

// The few CUDA driver and cuBLAS entry points rigkit uses, declared by hand so that
// the build needs no CUDA headers; the libraries are opened at run time.
typedef unsigned long long rk_devptr;
typedef int (*rk_cuInit)(unsigned int);
typedef int (*rk_cuDeviceGetCount)(int *);
typedef int (*rk_cuDeviceGet)(int *, int);
typedef int (*rk_cuDevicePrimaryCtxRetain)(void **, int);
typedef int (*rk_cuCtxSetCurrent)(void *);
typedef int (*rk_cuMemAlloc)(rk_devptr *, size_t);
typedef int (*rk_cuMemFree)(rk_devptr);
typedef int (*rk_cuMemcpyHtoD)(rk_devptr, const void *, size_t);
typedef int (*rk_cuMemcpyDtoH)(void *, rk_devptr, size_t);
typedef int (*rk_cublasCreate)(void **);
typedef int (*rk_cublasSgemm)(void *, int, int, int, int, int, const float *, const float *, int,
	const float *, int, const float *, float *, int);
typedef int (*rk_cublasDgemm)(void *, int, int, int, int, int, const double *, const double *, int,
	const double *, int, const double *, double *, int);
typedef int (*rk_cublasSgemmStridedBatched)(void *, int, int, int, int, int, const float *,
	const float *, int, long long, const float *, int, long long, const float *, float *, int, long long, int);
typedef int (*rk_cublasDgemmStridedBatched)(void *, int, int, int, int, int, const double *,
	const double *, int, long long, const double *, int, long long, const double *, double *, int, long long, int);

static struct {
	void *ctx, *handle;
	rk_cuCtxSetCurrent setCurrent;
	rk_cuMemAlloc memAlloc;
	rk_cuMemFree memFree;
	rk_cuMemcpyHtoD htod;
	rk_cuMemcpyDtoH dtoh;
	rk_cublasSgemm sgemm;
	rk_cublasDgemm dgemm;
	rk_cublasSgemmStridedBatched sgemmB;
	rk_cublasDgemmStridedBatched dgemmB;
} rk_cu;

static const char *rk_dlerr(void) { const char *e = dlerror(); return e ? e : "unknown dlopen error"; }

static void *rk_open(const char **names, const char **err) {
	for (; *names; names++) {
		void *h = dlopen(*names, RTLD_NOW | RTLD_GLOBAL);
		if (h) return h;
		*err = rk_dlerr();
	}
	return NULL;
}

// rk_cuda_init loads the driver and cuBLAS, makes the primary context of device 0
// and a cuBLAS handle. It returns 0 on success, else a stage number with *err set
// (a dlerror string) or *code set (a CUDA/cuBLAS status).
static int rk_cuda_init(const char **err, int *code, int *ndev) {
	const char *cudaNames[] = {"libcuda.so.1", "libcuda.so", NULL};
	const char *blasNames[] = {"libcublas.so", "libcublas.so.12", "libcublas.so.13", "libcublas.so.11", NULL};
	void *cu = rk_open(cudaNames, err);
	if (!cu) return 1;
	rk_cuInit init = (rk_cuInit)dlsym(cu, "cuInit");
	rk_cuDeviceGetCount count = (rk_cuDeviceGetCount)dlsym(cu, "cuDeviceGetCount");
	rk_cuDeviceGet get = (rk_cuDeviceGet)dlsym(cu, "cuDeviceGet");
	rk_cuDevicePrimaryCtxRetain retain = (rk_cuDevicePrimaryCtxRetain)dlsym(cu, "cuDevicePrimaryCtxRetain");
	rk_cu.setCurrent = (rk_cuCtxSetCurrent)dlsym(cu, "cuCtxSetCurrent");
	rk_cu.memAlloc = (rk_cuMemAlloc)dlsym(cu, "cuMemAlloc_v2");
	rk_cu.memFree = (rk_cuMemFree)dlsym(cu, "cuMemFree_v2");
	rk_cu.htod = (rk_cuMemcpyHtoD)dlsym(cu, "cuMemcpyHtoD_v2");
	rk_cu.dtoh = (rk_cuMemcpyDtoH)dlsym(cu, "cuMemcpyDtoH_v2");
	if (!init || !count || !get || !retain || !rk_cu.setCurrent || !rk_cu.memAlloc || !rk_cu.memFree || !rk_cu.htod || !rk_cu.dtoh) {
		*err = "libcuda lacks a required driver entry point";
		return 2;
	}
	int r = init(0);
	if (r) { *code = r; return 3; }
	r = count(ndev);
	if (r) { *code = r; return 4; }
	if (*ndev < 1) { *err = "no CUDA device"; return 5; }
	int dev;
	r = get(&dev, 0);
	if (r) { *code = r; return 6; }
	r = retain(&rk_cu.ctx, dev);
	if (r) { *code = r; return 7; }
	r = rk_cu.setCurrent(rk_cu.ctx);
	if (r) { *code = r; return 8; }
	void *bl = rk_open(blasNames, err);
	if (!bl) return 9;
	rk_cublasCreate create = (rk_cublasCreate)dlsym(bl, "cublasCreate_v2");
	rk_cu.sgemm = (rk_cublasSgemm)dlsym(bl, "cublasSgemm_v2");
	rk_cu.dgemm = (rk_cublasDgemm)dlsym(bl, "cublasDgemm_v2");
	rk_cu.sgemmB = (rk_cublasSgemmStridedBatched)dlsym(bl, "cublasSgemmStridedBatched");
	rk_cu.dgemmB = (rk_cublasDgemmStridedBatched)dlsym(bl, "cublasDgemmStridedBatched");
	if (!create || !rk_cu.sgemm || !rk_cu.dgemm || !rk_cu.sgemmB || !rk_cu.dgemmB) {
		*err = "libcublas lacks a required entry point";
		return 10;
	}
	r = create(&rk_cu.handle);
	if (r) { *code = r; return 11; }
	return 0;
}

// Device buffers for A, B and C, kept between calls and grown when a product needs
// more (cuMemAlloc and cuMemFree per call cost more than a small product itself;
// cuMemFree also synchronizes the device). Calls are serialized by the Go side's
// mutex, so one set of buffers serves every product.
static rk_devptr rk_buf[3];
static size_t rk_cap[3];

static int rk_ensure(int i, size_t bytes) {
	if (rk_cap[i] >= bytes) return 0;
	if (rk_buf[i]) { rk_cu.memFree(rk_buf[i]); rk_buf[i] = 0; rk_cap[i] = 0; }
	size_t cap = bytes + bytes / 4;
	if (cap < ((size_t)1 << 20)) cap = (size_t)1 << 20;
	int r = rk_cu.memAlloc(&rk_buf[i], cap);
	if (r) { rk_buf[i] = 0; return r; }
	rk_cap[i] = cap;
	return 0;
}

// rk_cuda_gemm stages the operands on the device, runs one (batched) product and
// copies C back. Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T,
// so B and A swap places. lenX are the element extents to copy; dbl selects float64;
// loadC is 0 when beta is 0 (C's old contents are not read, so not uploaded).
static int rk_cuda_gemm(int dbl, int ta, int tb, int m, int n, int k, const void *alpha,
	const void *a, int lda, long long sa, size_t lenA,
	const void *b, int ldb, long long sb, size_t lenB, const void *beta,
	void *c, int ldc, long long sc, size_t lenC, int batch, int loadC) {
	size_t es = dbl ? 8 : 4;
	int r = rk_cu.setCurrent(rk_cu.ctx);
	if (r) return r;
	if ((r = rk_ensure(0, lenA * es))) return r;
	if ((r = rk_ensure(1, lenB * es))) return r;
	if ((r = rk_ensure(2, lenC * es))) return r;
	rk_devptr da = rk_buf[0], db = rk_buf[1], dc = rk_buf[2];
	if ((r = rk_cu.htod(da, a, lenA * es))) return r;
	if ((r = rk_cu.htod(db, b, lenB * es))) return r;
	if (loadC && (r = rk_cu.htod(dc, c, lenC * es))) return r;
	if (dbl) {
		r = batch == 1
			? rk_cu.dgemm(rk_cu.handle, tb, ta, n, m, k, alpha, (double *)db, ldb, (double *)da, lda, beta, (double *)dc, ldc)
			: rk_cu.dgemmB(rk_cu.handle, tb, ta, n, m, k, alpha, (double *)db, ldb, sb, (double *)da, lda, sa, beta, (double *)dc, ldc, sc, batch);
	} else {
		r = batch == 1
			? rk_cu.sgemm(rk_cu.handle, tb, ta, n, m, k, alpha, (float *)db, ldb, (float *)da, lda, beta, (float *)dc, ldc)
			: rk_cu.sgemmB(rk_cu.handle, tb, ta, n, m, k, alpha, (float *)db, ldb, sb, (float *)da, lda, sa, beta, (float *)dc, ldc, sc, batch);
	}
	if (r) return 100000 + r;
	return rk_cu.dtoh(c, dc, lenC * es);
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// CUDA runs GEMMs on the first CUDA device through cuBLAS, staging operands from
// host memory on every call into device buffers it keeps; elementwise kernels,
// ParallelFor and products too small to pay for the copies run on the host cpu
// engine. It is built with the cuda tag and opened with Get("cuda").
type CUDA struct {
	mu   sync.Mutex
	host *CPU
	// minWork is the smallest product (batch·m·n·k multiply-adds) sent to the
	// device; smaller ones run on the host, where the copies would cost more than
	// the arithmetic. Set from RIGKIT_CUDA_MIN_WORK when the engine is made.
	minWork int
	device  atomic.Int64 // products run on the device
	hosted  atomic.Int64 // products run on the host
}

// defaultCUDAMinWork is minWork unless RIGKIT_CUDA_MIN_WORK says otherwise.
const defaultCUDAMinWork = 1 << 21

var (
	cudaOnce sync.Once
	cudaErr  error
)

func newCUDA() (Engine, error) {
	cudaOnce.Do(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var cerr *C.char
		var code, ndev C.int
		if stage := C.rk_cuda_init(&cerr, &code, &ndev); stage != 0 {
			msg := "status " + fmt.Sprint(int(code))
			if cerr != nil {
				msg = C.GoString(cerr)
			}
			cudaErr = fmt.Errorf("cuda init stage %d: %s", int(stage), msg)
		}
	})
	if cudaErr != nil {
		return nil, cudaErr
	}
	minWork := defaultCUDAMinWork
	if v := os.Getenv("RIGKIT_CUDA_MIN_WORK"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("RIGKIT_CUDA_MIN_WORK=%q: want a non-negative integer", v)
		}
		minWork = n
	}
	return &CUDA{host: NewCPU(runtime.GOMAXPROCS(0)), minWork: minWork}, nil
}

// Name reports "cuda".
func (e *CUDA) Name() string { return "cuda" }

// Workers is the host worker count used by ParallelFor.
func (e *CUDA) Workers() int { return e.host.Workers() }

// Serial returns e: device calls are serialized anyway.
func (e *CUDA) Serial() Engine { return e }

// ParallelFor runs fn on the host cpu engine.
func (e *CUDA) ParallelFor(n int, fn func(lo, hi int)) { e.host.ParallelFor(n, fn) }

// Counts reports how many products ran on the device and how many on the host
// (too small to pay for the copies) since the engine was made.
func (e *CUDA) Counts() (device, host int64) { return e.device.Load(), e.hosted.Load() }

// onDevice says whether a product of this size goes to the device, and counts it.
func (e *CUDA) onDevice(m, n, k, batch int) bool {
	if k == 0 || batch*m*n*k < e.minWork {
		e.hosted.Add(1)
		return false
	}
	e.device.Add(1)
	return true
}

// loadC says whether C must be uploaded before a product: when the product reads
// it (beta != 0) or when its extent has gaps (ldc > n, or batch strides other than
// m·n) whose host contents the copy back must keep.
func loadC(betaNonZero bool, m, n, ldc, strideC, batch int) bool {
	return betaNonZero || ldc != n || (batch > 1 && strideC != m*n)
}

func cudaBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func extent(t bool, rows, cols, ld int) int {
	if t {
		rows, cols = cols, rows
	}
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

func (e *CUDA) gemm(dbl bool, tA, tB bool, m, n, k int, alpha, beta unsafe.Pointer, a unsafe.Pointer, lda, sa, lenA int,
	b unsafe.Pointer, ldb, sb, lenB int, c unsafe.Pointer, ldc, sc, lenC int, batch int, loadC bool) {
	if m == 0 || n == 0 || batch == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d := C.int(0)
	if dbl {
		d = 1
	}
	r := C.rk_cuda_gemm(d, cudaBool(tA), cudaBool(tB), C.int(m), C.int(n), C.int(k), alpha,
		a, C.int(lda), C.longlong(sa), C.size_t(lenA), b, C.int(ldb), C.longlong(sb), C.size_t(lenB), beta,
		c, C.int(ldc), C.longlong(sc), C.size_t(lenC), C.int(batch), cudaBool(loadC))
	if r != 0 {
		panic(fmt.Sprintf("engine: cuda gemm m=%d n=%d k=%d batch=%d failed with status %d", m, n, k, batch, int(r)))
	}
}

// Sgemm runs a float32 product on the device.
func (e *CUDA) Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	e.SgemmStridedBatched(tA, tB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
}

// Dgemm runs a float64 product on the device.
func (e *CUDA) Dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	e.DgemmStridedBatched(tA, tB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
}

// SgemmStridedBatched runs batch float32 products on the device (on the host
// when they are too small to pay for the copies).
func (e *CUDA) SgemmStridedBatched(tA, tB bool, m, n, k int, alpha float32, a []float32, lda, strideA int, b []float32, ldb, strideB int, beta float32, c []float32, ldc, strideC int, batch int) {
	if batch <= 0 || m == 0 || n == 0 {
		return
	}
	last := batch - 1
	checkGemm(tA, tB, m, n, k, lda, len(a)-last*strideA, ldb, len(b)-last*strideB, ldc, len(c)-last*strideC)
	if !e.onDevice(m, n, k, batch) {
		e.host.SgemmStridedBatched(tA, tB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
		return
	}
	lenA := last*strideA + extent(tA, m, k, lda)
	lenB := last*strideB + extent(tB, k, n, ldb)
	lenC := last*strideC + extent(false, m, n, ldc)
	e.gemm(false, tA, tB, m, n, k, unsafe.Pointer(&alpha), unsafe.Pointer(&beta), unsafe.Pointer(&a[0]), lda, strideA, lenA,
		unsafe.Pointer(&b[0]), ldb, strideB, lenB, unsafe.Pointer(&c[0]), ldc, strideC, lenC, batch, loadC(beta != 0, m, n, ldc, strideC, batch))
}

// DgemmStridedBatched runs batch float64 products on the device (on the host
// when they are too small to pay for the copies).
func (e *CUDA) DgemmStridedBatched(tA, tB bool, m, n, k int, alpha float64, a []float64, lda, strideA int, b []float64, ldb, strideB int, beta float64, c []float64, ldc, strideC int, batch int) {
	if batch <= 0 || m == 0 || n == 0 {
		return
	}
	last := batch - 1
	checkGemm(tA, tB, m, n, k, lda, len(a)-last*strideA, ldb, len(b)-last*strideB, ldc, len(c)-last*strideC)
	if !e.onDevice(m, n, k, batch) {
		e.host.DgemmStridedBatched(tA, tB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch)
		return
	}
	lenA := last*strideA + extent(tA, m, k, lda)
	lenB := last*strideB + extent(tB, k, n, ldb)
	lenC := last*strideC + extent(false, m, n, ldc)
	e.gemm(true, tA, tB, m, n, k, unsafe.Pointer(&alpha), unsafe.Pointer(&beta), unsafe.Pointer(&a[0]), lda, strideA, lenA,
		unsafe.Pointer(&b[0]), ldb, strideB, lenB, unsafe.Pointer(&c[0]), ldc, strideC, lenC, batch, loadC(beta != 0, m, n, ldc, strideC, batch))
}
