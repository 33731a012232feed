// Package fastmath holds the float32 kernels rigkit's networks spend their
// elementwise time in: a rational tanh, GELU, exp and softmax. They are inlinable,
// branch-light approximations, within a few 10⁻⁷ of the exact functions (checked in
// the tests), shared by the training layers (internal/nn) and the skin tokenizer's
// inference decoder so that both compute the same activations.
package fastmath

import "math"

// tanhClip is where Tanh32 saturates: tanh(9) = 1 - 3·10⁻⁸ rounds to 1 in float32.
const tanhClip = 9

// Coefficients of tanh(x) ≈ x·P(x²)/Q(x²) on [-9, 9], P and Q of degree 4 in x², Q's
// constant term 1. They were fitted for this package (linearized least squares on
// 4,000 Chebyshev-spaced points, reweighted toward the minimax error): the float32
// evaluation is within 6·10⁻⁷ of tanh everywhere (TestTanh32).
const (
	tanhP0 = 0.9999983672
	tanhP1 = 0.1282015437
	tanhP2 = 0.002840488156
	tanhP3 = 1.029653748e-05
	tanhQ1 = 0.4615292567
	tanhQ2 = 0.02335594477
	tanhQ3 = 0.0002234111719
	tanhQ4 = 2.110022276e-07
)

// Tanh32 is a rational approximation of tanh, absolute error below 6·10⁻⁷. (The
// clamps are ifs: Go's float min and max handle NaN and signed zeros and cost twice
// the whole polynomial here.)
func Tanh32(x float32) float32 {
	if x > tanhClip {
		x = tanhClip
	} else if x < -tanhClip {
		x = -tanhClip
	}
	t := x * x
	p := ((tanhP3*t+tanhP2)*t+tanhP1)*t + tanhP0
	q := (((tanhQ4*t+tanhQ3)*t+tanhQ2)*t+tanhQ1)*t + 1
	return x * p / q
}

// geluK is sqrt(2/π), the constant of GELU's tanh form (the form nn.GELU uses).
const geluK = 0.7978845608028654

// geluGo is GELUInPlace in Go, one element at a time; the C kernel (kernels_cgo.go)
// computes the same float32 operations in the same order, several elements at once.
func geluGo(xs []float32) {
	for i, v := range xs {
		xs[i] = 0.5 * v * (1 + Tanh32(geluK*(v+0.044715*v*v*v)))
	}
}

// Exp32 is e^x for float32, relative error below 3·10⁻⁷ on [-87, 88]; below -87.3 it
// is 0 (so masked logits at -Inf get exactly no weight), larger x saturates at e^88.
// x = n·ln2 + r with |r| ≤ ln2/2; e^r by its Taylor polynomial of degree 6 (truncation
// error r⁷/7! < 1.3·10⁻⁷); 2^n built in the exponent bits.
func Exp32(x float32) float32 {
	if x < -87.3 {
		return 0
	} else if x > 88 {
		x = 88
	}
	k := x*expLog2e + expRound
	n := int32(math.Float32bits(k)) - 0x4B400000
	fn := k - expRound
	r := x - fn*expLn2hi - fn*expLn2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	return p * math.Float32frombits(uint32(n+127)<<23)
}

// Constants of Exp32.
const (
	expLog2e = 1.4426950408889634
	expLn2hi = 0.693145751953125 // ln 2 split so that n·expLn2hi is exact
	expLn2lo = 1.4286068203094172e-06
	expRound = 12582912 // 1.5·2²³: adding it rounds a float32 to an integer
)

// SoftmaxInPlace replaces a row by its softmax.
func SoftmaxInPlace(row []float32) {
	m := max8(row)
	for i, v := range row {
		// Exp32(v - m), inlined; v - m ≤ 0.
		x := v - m
		if x < -87 {
			x = -87
		}
		k := x*expLog2e + expRound
		n := int32(math.Float32bits(k)) - 0x4B400000
		fn := k - expRound
		r := x - fn*expLn2hi - fn*expLn2lo
		row[i] = (1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))) * math.Float32frombits(uint32(n+127)<<23)
	}
	normalize8(row)
}

// The kernels' sums and maxima run in lanes: element i goes to lane i mod 8 and the
// 8 lanes are combined in a fixed tree at the end. A sum in index order is one chain
// of dependent adds, which on a 25-score attention row or a 64-wide layer norm cost
// more than the rest of the kernel; in lanes the C loops vectorize without
// reassociating anything, and these Go loops give the same bits.

// max8 is the largest element of x (x[0] when none is larger; NaNs are skipped
// unless x[0] is one), found in lanes.
func max8(x []float32) float32 {
	var a [8]float32
	for k := range a {
		a[k] = x[0]
	}
	i := 0
	for ; i+8 <= len(x); i += 8 {
		c := x[i : i+8 : i+8]
		for k, v := range c {
			if v > a[k] {
				a[k] = v
			}
		}
	}
	for k, v := range x[i:] {
		if v > a[k] {
			a[k] = v
		}
	}
	m := a[0]
	for _, v := range a[1:] {
		if v > m {
			m = v
		}
	}
	return m
}

// tree8 adds the 8 lanes in the fixed order of RK_TREE (kernels_cgo.go).
func tree8[F float32 | float64](a [8]F) F {
	return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
}

// normalize8 divides x by its sum, summed in lanes.
func normalize8(x []float32) {
	var a [8]float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		c := x[i : i+8 : i+8]
		for k, v := range c {
			a[k] += v
		}
	}
	for k, v := range x[i:] {
		a[k] += v
	}
	inv := 1 / tree8(a)
	for i := range x {
		x[i] *= inv
	}
}

// meanVar8 is the mean of x and the mean of its squared deviations from it, in
// float64, summed in lanes.
func meanVar8(x []float32) (mean, variance float64) {
	var a, b [8]float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		c := x[i : i+8 : i+8]
		for k, v := range c {
			a[k] += float64(v)
		}
	}
	for k, v := range x[i:] {
		a[k] += float64(v)
	}
	n := float64(len(x))
	mean = tree8(a) / n
	i = 0
	for ; i+8 <= len(x); i += 8 {
		c := x[i : i+8 : i+8]
		for k, v := range c {
			d := float64(v) - mean
			b[k] += d * d
		}
	}
	for k, v := range x[i:] {
		d := float64(v) - mean
		b[k] += d * d
	}
	return mean, tree8(b) / n
}

// softmaxRowsGo is SoftmaxRows in Go.
func softmaxRowsGo(x []float32, cols int) {
	for r := 0; r+cols <= len(x); r += cols {
		SoftmaxInPlace(x[r : r+cols])
	}
}

// layerNormRowsGo is LayerNormRows in Go: internal/nn's LayerNorm for float32, with
// the statistics summed in lanes.
func layerNormRowsGo(x, y, w, b []float32, rows, c int, eps float64) {
	for i := 0; i < rows; i++ {
		xi, yi := x[i*c:(i+1)*c], y[i*c:(i+1)*c]
		m, v := meanVar8(xi)
		rs := 1 / math.Sqrt(v+eps)
		fm, frs := float32(m), float32(rs)
		for j, v := range xi {
			yi[j] = (v-fm)*frs*w[j] + b[j]
		}
	}
}

// geluTanhBackwardGo is GELUTanhBackward in Go.
func geluTanhBackwardGo(x, t, dy, dx []float32) {
	t, dy, dx = t[:len(x)], dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		th := t[i]
		du := geluK * (1 + 3*0.044715*v*v)
		dx[i] = dy[i] * (0.5*(1+th) + 0.5*v*(1-th*th)*du)
	}
}

// geluTanhGo is GELUTanh in Go.
func geluTanhGo(x, y, t []float32) {
	for i, v := range x {
		th := Tanh32(geluK * (v + 0.044715*v*v*v))
		t[i] = th
		y[i] = 0.5 * v * (1 + th)
	}
}

// softmaxExp32Go is SoftmaxExp32 in Go.
func softmaxExp32Go(x []float32) {
	mx := max8(x)
	for i, v := range x {
		x[i] = Exp32(v - mx)
	}
	normalize8(x)
}

// addRowsGo is AddRows in Go.
func addRowsGo(y, b []float32, rows int) {
	c := len(b)
	for r := 0; r < rows; r++ {
		row := y[r*c : (r+1)*c : (r+1)*c]
		for j, v := range b {
			row[j] += v
		}
	}
}
