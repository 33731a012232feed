package fastmath

import "math"

// A forked decoder's sequences each attend to their own positions after the
// prompt they share: a one-row product per sequence and head, about ten
// thousand multiply-adds each, which a BLAS call spends more time setting up
// (packing the keys) than computing. OwnScores and OwnValues do the products of
// every sequence and head of a step in one call each, in the order OpenBLAS's
// sgemm sums them (below), so the decoder's streams stay those of the GEMMs.

// ownBlock is the inner-dimension block of OpenBLAS's sgemm driver (GEMM_Q of
// its Skylake-X and Cooper Lake kernels) and ownAlign the rounding of a split
// block: an inner dimension over ownBlock is summed in blocks of ownBlock, the
// last two as halves rounded up to ownAlign, each block from zero and added to
// the output.
const (
	ownBlock = 320
	ownAlign = 8
)

// ownBlockLen is the length of the block of the inner dimension that starts
// rest values before its end, as OpenBLAS's driver cuts it.
func ownBlockLen(rest int) int {
	switch {
	case rest >= 2*ownBlock:
		return ownBlock
	case rest > ownBlock:
		return (rest/2 + ownAlign - 1) / ownAlign * ownAlign
	}
	return rest
}

// OwnScores sets, for each of rows sequences b and heads heads h, the n own
// scores p[(b·heads+h)·ldp + t] = scale · Σ_c q[b·ldq + h·hs + c] ·
// kt[b·ldkb + (h·hs+c)·ldkc + t]: the query of head h against the keys of
// positions t < n, which kt holds transposed (one row of positions per channel,
// ldkc apart). Each score is one chain of fused multiply-adds over the channels
// from zero, then scaled: a one-row sgemm's bits on kernels that sum so.
func OwnScores(q []float32, ldq int, kt []float32, ldkb, ldkc int, rows, heads, hs, n int, scale float32, p []float32, ldp int) {
	if rows <= 0 || heads <= 0 || hs <= 0 || n <= 0 {
		return
	}
	last := rows - 1
	if len(q) < last*ldq+heads*hs || len(kt) < last*ldkb+(heads*hs-1)*ldkc+n || len(p) < (rows*heads-1)*ldp+n {
		panic("fastmath: OwnScores: short slices")
	}
	ownScoresKernel(q, ldq, kt, ldkb, ldkc, rows, heads, hs, n, scale, p, ldp)
}

// OwnValues adds to each sequence's output its own positions' values weighted
// by their probabilities: y[b·ldy + h·hs + d] += Σ_{t<n} p[(b·heads+h)·ldp + t] ·
// v[b·ldvb + t·ldv + h·hs + d]. The sum over t runs in ownBlock blocks as
// OpenBLAS's sgemm driver cuts its inner dimension, each block one chain of
// fused multiply-adds from zero added to y.
func OwnValues(p []float32, ldp int, v []float32, ldvb, ldv int, rows, heads, hs, n int, y []float32, ldy int) {
	if rows <= 0 || heads <= 0 || hs <= 0 || n <= 0 {
		return
	}
	last := rows - 1
	if len(p) < (rows*heads-1)*ldp+n || len(v) < last*ldvb+(n-1)*ldv+heads*hs || len(y) < last*ldy+heads*hs {
		panic("fastmath: OwnValues: short slices")
	}
	ownValuesKernel(p, ldp, v, ldvb, ldv, rows, heads, hs, n, y, ldy)
}

// fma32 is a float32 fused multiply-add computed in float64: the product is
// exact, the sum rounded twice, which may differ from a float32 fused
// multiply-add in the last bit.
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

// ownScoresGo is OwnScores in Go.
func ownScoresGo(q []float32, ldq int, kt []float32, ldkb, ldkc int, rows, heads, hs, n int, scale float32, p []float32, ldp int) {
	for b := 0; b < rows; b++ {
		for h := 0; h < heads; h++ {
			out := p[(b*heads+h)*ldp:][:n]
			clear(out)
			for c := 0; c < hs; c++ {
				qv, row := q[b*ldq+h*hs+c], kt[b*ldkb+(h*hs+c)*ldkc:][:n]
				for t, kv := range row {
					out[t] = fma32(qv, kv, out[t])
				}
			}
			for t := range out {
				out[t] *= scale
			}
		}
	}
}

// ownValuesGo is OwnValues in Go.
func ownValuesGo(p []float32, ldp int, v []float32, ldvb, ldv int, rows, heads, hs, n int, y []float32, ldy int) {
	acc := make([]float32, hs)
	for b := 0; b < rows; b++ {
		for h := 0; h < heads; h++ {
			pr, out := p[(b*heads+h)*ldp:][:n], y[b*ldy+h*hs:][:hs]
			for t0 := 0; t0 < n; {
				l := ownBlockLen(n - t0)
				clear(acc)
				for t := t0; t < t0+l; t++ {
					row := v[b*ldvb+t*ldv+h*hs:][:hs]
					for d, vv := range row {
						acc[d] = fma32(pr[t], vv, acc[d])
					}
				}
				for d := range out {
					out[d] += acc[d]
				}
				t0 += l
			}
		}
	}
}
