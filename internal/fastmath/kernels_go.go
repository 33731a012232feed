//go:build !cgo || purego

package fastmath

// kernelBackend names the elementwise kernels in use ("c" or "go").
const kernelBackend = "go"

// The kernels behind kernels.go's exported functions: the Go loops.

func geluKernel(xs []float32)                       { geluGo(xs) }
func geluTanhKernel(x, y, t []float32)              { geluTanhGo(x, y, t) }
func geluTanhBackwardKernel(x, t, dy, dx []float32) { geluTanhBackwardGo(x, t, dy, dx) }
func softmaxRowsKernel(x []float32, rows, cols int) { softmaxRowsGo(x, cols) }
func softmaxExp32Kernel(x []float32)                { softmaxExp32Go(x) }
func layerNormKernel(x, y, w, b []float32, rows, c int, eps float64) {
	layerNormRowsGo(x, y, w, b, rows, c, eps)
}
func addRowsKernel(y, b []float32, rows int) { addRowsGo(y, b, rows) }
func panelRowsKernel(x []float32, m, k int, panels []float32, n int, y []float32) {
	panelRowsGo(x, m, k, panels, n, y)
}
func ownScoresKernel(q []float32, ldq int, kt []float32, ldkb, ldkc int, rows, heads, hs, n int, scale float32, p []float32, ldp int) {
	ownScoresGo(q, ldq, kt, ldkb, ldkc, rows, heads, hs, n, scale, p, ldp)
}
func ownValuesKernel(p []float32, ldp int, v []float32, ldvb, ldv int, rows, heads, hs, n int, y []float32, ldy int) {
	ownValuesGo(p, ldp, v, ldvb, ldv, rows, heads, hs, n, y, ldy)
}
