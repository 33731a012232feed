package fastmath

import "math"

// The batch kernels: C loops in a cgo build (kernels_cgo.go), the Go loops of
// fastmath.go otherwise (kernels_go.go), with the same results bit for bit.

// GELUInPlace replaces every x by GELU(x) = x/2·(1 + tanh(sqrt(2/π)·(x + 0.044715x³))),
// with Tanh32's approximation of tanh.
func GELUInPlace(xs []float32) { geluKernel(xs) }

// GELUTanh writes GELU(x) to y and the tanh of GELU's tanh form to t (for the
// backward pass); y and t must hold len(x) values.
func GELUTanh(x, y, t []float32) {
	if len(y) < len(x) || len(t) < len(x) {
		panic("fastmath: GELUTanh: short slices")
	}
	geluTanhKernel(x, y, t)
}

// GELUTanhBackward sets dx to dy times GELU's derivative at x, given t, the tanh
// GELUTanh kept: dy·(½(1 + t) + ½x(1 − t²)·sqrt(2/π)(1 + 3·0.044715x²)); t, dy and
// dx must hold len(x) values.
func GELUTanhBackward(x, t, dy, dx []float32) {
	if len(t) < len(x) || len(dy) < len(x) || len(dx) < len(x) {
		panic("fastmath: GELUTanhBackward: short slices")
	}
	geluTanhBackwardKernel(x, t, dy, dx)
}

// SoftmaxRows replaces each row of cols values of x (len(x)/cols rows, contiguous)
// by its softmax, as SoftmaxInPlace does one row.
func SoftmaxRows(x []float32, cols int) {
	if cols <= 0 || len(x) < cols {
		return
	}
	softmaxRowsKernel(x, len(x)/cols, cols)
}

// SoftmaxExp32 replaces x by its softmax the way internal/nn's layers compute it in
// float32: the maximum, e^(x − max) by Exp32 (0 below −87.3), divided by their sum.
// (SoftmaxInPlace, the skin decoder's, clamps at −87 instead.)
func SoftmaxExp32(x []float32) {
	if len(x) > 0 {
		softmaxExp32Kernel(x)
	}
}

// LayerNormRows normalizes the rows of c values of x into y (which may be x), with
// per-column scale w and shift b, as internal/nn's LayerNorm does, with the
// float64 statistics summed in 8 lanes (nn's training loop sums in index order; the
// two agree unless a row's float64 sums round differently, a few ulps of float64).
func LayerNormRows(x, y, w, b []float32, c int, eps float64) {
	if c <= 0 || len(x) < c {
		return
	}
	rows := len(x) / c
	if len(y) < rows*c || len(w) < c || len(b) < c {
		panic("fastmath: LayerNormRows: short slices")
	}
	layerNormKernel(x, y, w, b, rows, c, eps)
}

// AddRows adds b to every row of len(b) values of y (len(y)/len(b) rows): a linear
// layer's bias on top of its product.
func AddRows(y, b []float32) {
	if len(b) == 0 || len(y) < len(b) {
		return
	}
	addRowsKernel(y, b, len(y)/len(b))
}

// panelWidth is the number of output columns a panel of PackPanels holds.
const panelWidth = 16

// PackPanels lays out w (n rows of k values, row-major: a linear layer's weight,
// one row per output) for PanelRows: panels of 16 outputs, each k rows of their
// 16 weights, the last panel padded with zeros.
func PackPanels(w []float32, n, k int) []float32 {
	if len(w) < n*k {
		panic("fastmath: PackPanels: short weight")
	}
	np := (n + panelWidth - 1) / panelWidth
	out := make([]float32, np*k*panelWidth)
	for o := 0; o < n; o++ {
		p, j := o/panelWidth, o%panelWidth
		for kk := 0; kk < k; kk++ {
			out[(p*k+kk)*panelWidth+j] = w[o*k+kk]
		}
	}
	return out
}

// PanelRows sets y (m rows of n) to x (m rows of k) times the transpose of the
// weight packed by PackPanels: every output is one chain of fused multiply-adds
// over k from zero, the order of OpenBLAS's blocked sgemm kernel on Intel cores,
// so a decoder's logits equal a GEMM's bit for bit there (to rounding on
// kernels that sum otherwise, such as OpenBLAS's for AMD Zen) without the GEMM
// packing the whole weight for every one-row product. In a build without cgo each step is a
// float64 fused multiply-add rounded to float32, which may differ from a float32
// one in the last bit.
func PanelRows(x []float32, m, k int, panels []float32, n int, y []float32) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	if len(x) < m*k || len(y) < m*n || len(panels) < (n+panelWidth-1)/panelWidth*k*panelWidth {
		panic("fastmath: PanelRows: short slices")
	}
	panelRowsKernel(x, m, k, panels, n, y)
}

// panelRowsGo is PanelRows in Go.
func panelRowsGo(x []float32, m, k int, panels []float32, n int, y []float32) {
	for p := 0; p*panelWidth < n; p++ {
		pw := panels[p*k*panelWidth:]
		cols := min(n-p*panelWidth, panelWidth)
		for i := 0; i < m; i++ {
			var acc [panelWidth]float32
			for kk, xv := range x[i*k : (i+1)*k] {
				w := pw[kk*panelWidth : (kk+1)*panelWidth]
				for j := range acc {
					acc[j] = float32(math.FMA(float64(xv), float64(w[j]), float64(acc[j])))
				}
			}
			copy(y[i*n+p*panelWidth:], acc[:cols])
		}
	}
}
