//go:build cgo && !purego

package fastmath

/*
#cgo CFLAGS: -O3
#cgo LDFLAGS: -lm
// Floating-point exceptions are never enabled (Go never traps on them), so the
// comparisons of the clamps may be evaluated for every lane; without this GCC keeps
// them as branches and does not vectorize the loops. cgo does not accept the flag
// itself, so it is a pragma.
#pragma GCC optimize ("no-trapping-math")
#include <stdint.h>
#include <string.h>

// The same float32 operations, in the same order, as Tanh32, GELUInPlace's Go loop
// and SoftmaxInPlace (fastmath.go), written so that the compiler vectorizes the
// element loops; on x86-64 an AVX2 clone is chosen at load time where the CPU has
// it. No -ffast-math: nothing is reassociated or fused, so results equal Go's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RK_CLONES
#endif

// Tanh32(sqrt(2/π)·(v + 0.044715v³)): GELU's tanh, inlined into the loops below.
static inline float rk_gelu_tanh1(float v) {
	float a = 0.7978845608028654f * (v + 0.044715f * v * v * v);
	a = a > 9.0f ? 9.0f : a;
	a = a < -9.0f ? -9.0f : a;
	float t = a * a;
	float p = ((1.029653748e-05f * t + 0.002840488156f) * t + 0.1282015437f) * t + 0.9999983672f;
	float q = (((2.110022276e-07f * t + 0.0002234111719f) * t + 0.02335594477f) * t + 0.4615292567f) * t + 1.0f;
	return a * p / q;
}

RK_CLONES static void rk_gelu(float *x, long n) {
	for (long i = 0; i < n; i++) {
		float v = x[i];
		x[i] = 0.5f * v * (1.0f + rk_gelu_tanh1(v));
	}
}

// Exp32's core for y already clamped to its range, inlined into the loops below:
// y = n·ln2 + r, e^r by its Taylor polynomial of degree 6, 2^n in the exponent bits.
static inline float rk_exp1(float y) {
	float k = y * 1.4426950408889634f + 12582912.0f;
	int32_t n;
	memcpy(&n, &k, 4);
	n -= 0x4B400000;
	float fn = k - 12582912.0f;
	float r = y - fn * 0.693145751953125f - fn * 1.4286068203094172e-06f;
	float p = 1.0f + r * (1.0f + r * (1.0f / 2 + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
	uint32_t bits = (uint32_t)(n + 127) << 23;
	float sc;
	memcpy(&sc, &bits, 4);
	return p * sc;
}

// Sums and maxima run in 8 lanes (element i in lane i mod 8), combined in the same
// fixed tree as max8, normalize8 and meanVar8 in fastmath.go: the loops vectorize
// without reassociation and give Go's bits.
#define RK_TREE(a) ((((a)[0] + (a)[4]) + ((a)[2] + (a)[6])) + (((a)[1] + (a)[5]) + ((a)[3] + (a)[7])))

static inline float rk_max8(const float *x, long n) {
	float a[8];
	for (int k = 0; k < 8; k++) {
		a[k] = x[0];
	}
	long i = 0;
	for (; i + 8 <= n; i += 8) {
		for (int k = 0; k < 8; k++) {
			a[k] = x[i + k] > a[k] ? x[i + k] : a[k];
		}
	}
	for (int k = 0; i < n; i++, k++) {
		a[k] = x[i] > a[k] ? x[i] : a[k];
	}
	float m = a[0];
	for (int k = 1; k < 8; k++) {
		m = a[k] > m ? a[k] : m;
	}
	return m;
}

// Divides x by its sum.
static inline void rk_normalize(float *x, long n) {
	float a[8] = {0};
	long i = 0;
	for (; i + 8 <= n; i += 8) {
		for (int k = 0; k < 8; k++) {
			a[k] += x[i + k];
		}
	}
	for (int k = 0; i < n; i++, k++) {
		a[k] += x[i];
	}
	float inv = 1.0f / RK_TREE(a);
	for (i = 0; i < n; i++) {
		x[i] *= inv;
	}
}

// Row by row the rows are too short (25 attention scores) for the exponentials to
// vectorize well, so the maxima are subtracted row by row, the exponentials taken
// over the whole block, and the rows normalized.
RK_CLONES static void rk_softmax_rows(float *x, long rows, long cols) {
	for (long r = 0; r < rows; r++) {
		float *row = x + r * cols;
		float m = rk_max8(row, cols);
		for (long c = 0; c < cols; c++) {
			row[c] -= m;
		}
	}
	long n = rows * cols;
	for (long i = 0; i < n; i++) {
		float y = x[i] < -87.0f ? -87.0f : x[i];
		x[i] = rk_exp1(y);
	}
	for (long r = 0; r < rows; r++) {
		rk_normalize(x + r * cols, cols);
	}
}

// GELU of x into y, keeping each tanh in t (for the backward pass), as nn's gelu32.
RK_CLONES static void rk_gelu_tanh(const float *x, float *y, float *t, long n) {
	for (long i = 0; i < n; i++) {
		float v = x[i];
		float th = rk_gelu_tanh1(v);
		t[i] = th;
		y[i] = 0.5f * v * (1.0f + th);
	}
}

// GELU's backward pass given the kept tanh, as geluTanhBackwardGo.
RK_CLONES static void rk_gelu_tanh_backward(const float *x, const float *t, const float *dy, float *dx, long n) {
	for (long i = 0; i < n; i++) {
		float v = x[i], th = t[i];
		float du = 0.7978845608028654f * (1.0f + 0.134145f * v * v);
		dx[i] = dy[i] * (0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du);
	}
}

// One row's softmax with Exp32 as internal/nn computes it (no clamp at −87 as in
// rk_softmax_rows: Exp32 gives 0 below −87.3 and saturates above 88).
RK_CLONES static void rk_softmax_exp32(float *x, long n) {
	float m = rk_max8(x, n);
	for (long i = 0; i < n; i++) {
		float y = x[i] - m;
		int under = y < -87.3f;
		y = y > 88.0f ? 88.0f : y;
		float e = rk_exp1(y);
		x[i] = under ? 0.0f : e;
	}
	rk_normalize(x, n);
}

// Layer normalization of rows of c values, as nn.LayerNorm's rows: statistics in
// double, summed in lanes, then y = (x − mean)·rstd·w + b in float.
RK_CLONES static void rk_layernorm_rows(const float *x, float *y, const float *w, const float *b,
	long rows, long c, double eps) {
	for (long r = 0; r < rows; r++) {
		const float *xi = x + r * c;
		float *yi = y + r * c;
		double a[8] = {0};
		long j = 0;
		for (; j + 8 <= c; j += 8) {
			for (int k = 0; k < 8; k++) {
				a[k] += (double)xi[j + k];
			}
		}
		for (int k = 0; j < c; j++, k++) {
			a[k] += (double)xi[j];
		}
		double m = RK_TREE(a) / (double)c;
		for (int k = 0; k < 8; k++) {
			a[k] = 0;
		}
		for (j = 0; j + 8 <= c; j += 8) {
			for (int k = 0; k < 8; k++) {
				double d = (double)xi[j + k] - m;
				a[k] += d * d;
			}
		}
		for (int k = 0; j < c; j++, k++) {
			double d = (double)xi[j] - m;
			a[k] += d * d;
		}
		double rs = 1 / __builtin_sqrt(RK_TREE(a) / (double)c + eps);
		float fm = (float)m, frs = (float)rs;
		for (j = 0; j < c; j++) {
			yi[j] = (xi[j] - fm) * frs * w[j] + b[j];
		}
	}
}

RK_CLONES static void rk_add_rows(float *y, const float *b, long rows, long c) {
	for (long r = 0; r < rows; r++) {
		float *row = y + r * c;
		for (long j = 0; j < c; j++) {
			row[j] += b[j];
		}
	}
}

// Products of rows by a matrix packed in panels of 16 columns (PackPanels): every
// output is one sequential chain of fused multiply-adds over k from zero, the order
// OpenBLAS's blocked sgemm kernel sums in on Intel cores, so the results equal its
// bit for bit there (to rounding where it sums otherwise) while no operand is
// packed per call. The clones need FMA (x86-64-v3 and up);
// the default clone calls the C library's fmaf, exact but slow.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RK_FMA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define RK_FMA_CLONES
#endif
#include <math.h>

// rk_panel_group computes panels [p0, p0+G) of row x: G independent chains per
// k, so the FMA units are not held up by one chain's latency.
#define RK_GROUP 4
static inline void rk_panel_group(const float *x, long k, const float *panels, long p0, long g, float acc[RK_GROUP][16]) {
	for (long q = 0; q < RK_GROUP; q++) {
		for (int j = 0; j < 16; j++) {
			acc[q][j] = 0;
		}
	}
	const float *pw = panels + p0 * k * 16;
	if (g == RK_GROUP) {
		for (long kk = 0; kk < k; kk++) {
			float xv = x[kk];
			for (long q = 0; q < RK_GROUP; q++) {
				const float *w = pw + (q * k + kk) * 16;
				for (int j = 0; j < 16; j++) {
					acc[q][j] = fmaf(xv, w[j], acc[q][j]);
				}
			}
		}
		return;
	}
	for (long q = 0; q < g; q++) {
		for (long kk = 0; kk < k; kk++) {
			float xv = x[kk];
			const float *w = pw + (q * k + kk) * 16;
			for (int j = 0; j < 16; j++) {
				acc[q][j] = fmaf(xv, w[j], acc[q][j]);
			}
		}
	}
}

// rk_panel_quad computes panel p of up to four rows of x at once: each weight is
// loaded once for four chains (one per row), where a row alone loads it for one.
// Every output is the same chain over k from zero as rk_panel_group's.
static inline __attribute__((always_inline)) void rk_panel_quad(const float *x, long rows, long k, const float *panels, long p, float acc[4][16]) {
	float a0[16] = {0}, a1[16] = {0}, a2[16] = {0}, a3[16] = {0};
	const float *pw = panels + p * k * 16;
	// Fewer than four rows repeat the last one; its extra chains are not stored.
	const float *x0 = x, *x1 = x + (rows > 1 ? 1 : 0) * k;
	const float *x2 = x + (rows > 2 ? 2 : rows - 1) * k, *x3 = x + (rows > 3 ? 3 : rows - 1) * k;
	for (long kk = 0; kk < k; kk++) {
		const float *w = pw + kk * 16;
		float v0 = x0[kk], v1 = x1[kk], v2 = x2[kk], v3 = x3[kk];
		for (int j = 0; j < 16; j++) {
			a0[j] = fmaf(v0, w[j], a0[j]);
			a1[j] = fmaf(v1, w[j], a1[j]);
			a2[j] = fmaf(v2, w[j], a2[j]);
			a3[j] = fmaf(v3, w[j], a3[j]);
		}
	}
	for (int j = 0; j < 16; j++) {
		acc[0][j] = a0[j];
		acc[1][j] = a1[j];
		acc[2][j] = a2[j];
		acc[3][j] = a3[j];
	}
}

// rk_panel_rows computes rows four at a time (rk_panel_quad; the last two or
// three together too) and a last single row four panels side by side
// (rk_panel_group).
RK_FMA_CLONES static void rk_panel_rows(const float *x, long m, long k, const float *panels, long n, float *y) {
	long np = (n + 15) / 16;
	long quads = m % 4 == 1 ? m - 1 : m;
	float quad[4][16];
	for (long i = 0; i < quads; i += 4) {
		long rows = quads - i < 4 ? quads - i : 4;
		for (long p = 0; p < np; p++) {
			rk_panel_quad(x + i * k, rows, k, panels, p, quad);
			long col = p * 16;
			long cols = n - col < 16 ? n - col : 16;
			for (long r = 0; r < rows; r++) {
				for (long j = 0; j < cols; j++) {
					y[(i + r) * n + col + j] = quad[r][j];
				}
			}
		}
	}
	if (quads == m) {
		return;
	}
	x += quads * k;
	y += quads * n;
	float acc[RK_GROUP][16];
	for (long p0 = 0; p0 < np; p0 += RK_GROUP) {
		long g = np - p0 < RK_GROUP ? np - p0 : RK_GROUP;
		rk_panel_group(x, k, panels, p0, g, acc);
		for (long q = 0; q < g; q++) {
			long col = (p0 + q) * 16;
			long cols = n - col < 16 ? n - col : 16;
			for (long j = 0; j < cols; j++) {
				y[col + j] = acc[q][j];
			}
		}
	}
}
// Own-position attention (attend.go): scores as chains over the channels, 128
// positions at a time; values as chains over the positions, in OpenBLAS's
// blocks of the inner dimension, a sequence's channels side by side (at most
// RK_OWN_C; OwnValues checks).
#define RK_OWN_BLOCK 320
#define RK_OWN_ALIGN 8
#define RK_OWN_T 128
#define RK_OWN_D 32
#define RK_OWN_C 512

static inline long rk_own_block_len(long rest) {
	if (rest >= 2 * RK_OWN_BLOCK) {
		return RK_OWN_BLOCK;
	}
	if (rest > RK_OWN_BLOCK) {
		return (rest / 2 + RK_OWN_ALIGN - 1) / RK_OWN_ALIGN * RK_OWN_ALIGN;
	}
	return rest;
}

// rk_own_scores_head writes n scores of one query (hs channels) against keys
// held transposed (channel c's positions at kt + c*ldkc).
static inline __attribute__((always_inline)) void rk_own_scores_head(const float *qh, const float *kh, long ldkc, long hs, long n, float scale, float *out) {
	float acc[RK_OWN_T];
	for (long t0 = 0; t0 < n; t0 += RK_OWN_T) {
		long w = n - t0 < RK_OWN_T ? n - t0 : RK_OWN_T;
		for (int j = 0; j < RK_OWN_T; j++) {
			acc[j] = 0;
		}
		for (long c = 0; c < hs; c++) {
			float qv = qh[c];
			const float *row = kh + c * ldkc + t0;
			if (w == RK_OWN_T) {
				for (int j = 0; j < RK_OWN_T; j++) {
					acc[j] = fmaf(qv, row[j], acc[j]);
				}
			} else {
				for (long j = 0; j < w; j++) {
					acc[j] = fmaf(qv, row[j], acc[j]);
				}
			}
		}
		for (long j = 0; j < w; j++) {
			out[t0 + j] = scale * acc[j];
		}
	}
}

RK_FMA_CLONES static void rk_own_scores(const float *q, long ldq, const float *kt, long ldkb, long ldkc, long rows, long heads, long hs, long n, float scale, float *p, long ldp) {
	for (long b = 0; b < rows; b++) {
		for (long h = 0; h < heads; h++) {
			rk_own_scores_head(q + b * ldq + h * hs, kt + b * ldkb + h * hs * ldkc, ldkc, hs, n, scale, p + (b * heads + h) * ldp);
		}
	}
}

// rk_own_values_row adds to one sequence's output (heads·hs channels) its n own
// values weighted by its heads' probabilities (head h's at pr + h*ldp), block
// by block: every channel's chain is its own, and the row's channels run side by
// side, so that the chains hide each other's latency.
static inline __attribute__((always_inline)) void rk_own_values_row(const float *pr, long ldp, const float *v, long ldv, long heads, long hs, long n, float *out) {
	float acc[RK_OWN_C];
	long c = heads * hs;
	for (long t0 = 0; t0 < n;) {
		long l = rk_own_block_len(n - t0);
		for (int d = 0; d < RK_OWN_C; d++) {
			acc[d] = 0;
		}
		for (long t = t0; t < t0 + l; t++) {
			const float *row = v + t * ldv;
			for (long h = 0; h < heads; h++) {
				float pv = pr[h * ldp + t];
				float *a = acc + h * hs;
				const float *r = row + h * hs;
				if (hs == RK_OWN_D) {
					for (int d = 0; d < RK_OWN_D; d++) {
						a[d] = fmaf(pv, r[d], a[d]);
					}
				} else {
					for (long d = 0; d < hs; d++) {
						a[d] = fmaf(pv, r[d], a[d]);
					}
				}
			}
		}
		for (long d = 0; d < c; d++) {
			out[d] += acc[d];
		}
		t0 += l;
	}
}

RK_FMA_CLONES static void rk_own_values(const float *p, long ldp, const float *v, long ldvb, long ldv, long rows, long heads, long hs, long n, float *y, long ldy) {
	for (long b = 0; b < rows; b++) {
		rk_own_values_row(p + b * heads * ldp, ldp, v + b * ldvb, ldv, heads, hs, n, y + b * ldy);
	}
}
*/
import "C"

import "unsafe"

// cgoMinElems is the smallest slice worth a cgo call (about 40 ns of overhead).
const cgoMinElems = 64

// kernelBackend names the elementwise kernels in use ("c" or "go").
const kernelBackend = "c"

// The kernels behind kernels.go's exported functions; arguments are checked there.

func geluKernel(xs []float32) {
	if len(xs) < cgoMinElems {
		geluGo(xs)
		return
	}
	C.rk_gelu((*C.float)(unsafe.Pointer(&xs[0])), C.long(len(xs)))
}

func geluTanhBackwardKernel(x, t, dy, dx []float32) {
	if len(x) < cgoMinElems {
		geluTanhBackwardGo(x, t, dy, dx)
		return
	}
	C.rk_gelu_tanh_backward((*C.float)(unsafe.Pointer(&x[0])), (*C.float)(unsafe.Pointer(&t[0])), (*C.float)(unsafe.Pointer(&dy[0])), (*C.float)(unsafe.Pointer(&dx[0])), C.long(len(x)))
}

func geluTanhKernel(x, y, t []float32) {
	if len(x) < cgoMinElems {
		geluTanhGo(x, y, t)
		return
	}
	C.rk_gelu_tanh((*C.float)(unsafe.Pointer(&x[0])), (*C.float)(unsafe.Pointer(&y[0])), (*C.float)(unsafe.Pointer(&t[0])), C.long(len(x)))
}

func softmaxRowsKernel(x []float32, rows, cols int) {
	if rows*cols < cgoMinElems {
		softmaxRowsGo(x, cols)
		return
	}
	C.rk_softmax_rows((*C.float)(unsafe.Pointer(&x[0])), C.long(rows), C.long(cols))
}

func layerNormKernel(x, y, w, b []float32, rows, c int, eps float64) {
	C.rk_layernorm_rows((*C.float)(unsafe.Pointer(&x[0])), (*C.float)(unsafe.Pointer(&y[0])),
		(*C.float)(unsafe.Pointer(&w[0])), (*C.float)(unsafe.Pointer(&b[0])), C.long(rows), C.long(c), C.double(eps))
}

func softmaxExp32Kernel(x []float32) {
	if len(x) < cgoMinElems {
		softmaxExp32Go(x)
		return
	}
	C.rk_softmax_exp32((*C.float)(unsafe.Pointer(&x[0])), C.long(len(x)))
}

func addRowsKernel(y, b []float32, rows int) {
	if rows*len(b) < cgoMinElems {
		addRowsGo(y, b, rows)
		return
	}
	C.rk_add_rows((*C.float)(unsafe.Pointer(&y[0])), (*C.float)(unsafe.Pointer(&b[0])), C.long(rows), C.long(len(b)))
}

func panelRowsKernel(x []float32, m, k int, panels []float32, n int, y []float32) {
	C.rk_panel_rows((*C.float)(unsafe.Pointer(&x[0])), C.long(m), C.long(k), (*C.float)(unsafe.Pointer(&panels[0])), C.long(n), (*C.float)(unsafe.Pointer(&y[0])))
}

func ownScoresKernel(q []float32, ldq int, kt []float32, ldkb, ldkc int, rows, heads, hs, n int, scale float32, p []float32, ldp int) {
	C.rk_own_scores((*C.float)(unsafe.Pointer(&q[0])), C.long(ldq), (*C.float)(unsafe.Pointer(&kt[0])), C.long(ldkb), C.long(ldkc),
		C.long(rows), C.long(heads), C.long(hs), C.long(n), C.float(scale), (*C.float)(unsafe.Pointer(&p[0])), C.long(ldp))
}

func ownValuesKernel(p []float32, ldp int, v []float32, ldvb, ldv int, rows, heads, hs, n int, y []float32, ldy int) {
	C.rk_own_values((*C.float)(unsafe.Pointer(&p[0])), C.long(ldp), (*C.float)(unsafe.Pointer(&v[0])), C.long(ldvb), C.long(ldv),
		C.long(rows), C.long(heads), C.long(hs), C.long(n), (*C.float)(unsafe.Pointer(&y[0])), C.long(ldy))
}
