package tokenizer

import "math"

// The skin decoder's inference path (decodeinfer.go) uses internal/fastmath for its
// activations; layerNormRows is its row-wise LayerNorm with nn's statistics.

// layerNormRows normalizes each row of x (n rows of len(w)) into y (which may be x):
// y = (x - mean)/sqrt(var + eps)·w + b, statistics accumulated in float64 as nn does.
func layerNormRows(x, y, w, b []float32, eps float64) {
	c := len(w)
	for r := 0; r+c <= len(x); r += c {
		xi, yi := x[r:r+c], y[r:r+c]
		var s float64
		for _, v := range xi {
			s += float64(v)
		}
		m := s / float64(c)
		var v2 float64
		for _, v := range xi {
			d := float64(v) - m
			v2 += d * d
		}
		fm, rs := float32(m), float32(1/math.Sqrt(v2/float64(c)+eps))
		for j, v := range xi {
			yi[j] = (v-fm)*rs*w[j] + b[j]
		}
	}
}
