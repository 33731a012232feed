package fastmath

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

func TestTanh32(t *testing.T) {
	worst, at := 0.0, 0.0
	for x := -12.0; x <= 12; x += 1e-4 {
		xf := float32(x)
		err := math.Abs(float64(Tanh32(xf)) - math.Tanh(float64(xf)))
		if err > worst {
			worst, at = err, x
		}
		if Tanh32(-xf) != -Tanh32(xf) {
			t.Fatalf("Tanh32 is not odd at %g", x)
		}
	}
	t.Logf("Tanh32: worst absolute error %.3g at %.4f", worst, at)
	if worst > 6.5e-7 {
		t.Fatalf("Tanh32: absolute error %.3g at %g, want ≤ 6.5e-7", worst, at)
	}
	for _, x := range []float32{1e4, float32(math.Inf(1))} {
		if y := Tanh32(x); math.Abs(float64(y)-1) > 6.5e-7 || Tanh32(-x) != -y {
			t.Fatalf("Tanh32(±%g) = ±%g, want ±1", x, y)
		}
	}
}

func TestGELUInPlace(t *testing.T) {
	var xs []float32
	for x := -20.0; x <= 20; x += 1e-3 {
		xs = append(xs, float32(x))
	}
	ys := append([]float32(nil), xs...)
	GELUInPlace(ys)
	worst := 0.0
	for i, x := range xs {
		v := float64(x)
		want := 0.5 * v * (1 + math.Tanh(geluK*(v+0.044715*v*v*v)))
		// The tanh error scales with |x|/2; float32 rounding with |x|.
		err := math.Abs(float64(ys[i])-want) / (1 + math.Abs(v))
		worst = max(worst, err)
	}
	t.Logf("GELUInPlace: worst error %.3g·(1+|x|)", worst)
	if worst > 6e-7 {
		t.Fatalf("GELUInPlace: error %.3g·(1+|x|), want ≤ 6e-7", worst)
	}
}

func TestExp32(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 88; x += 1e-3 {
		xf := float32(x)
		want := math.Exp(float64(xf))
		worst = max(worst, math.Abs(float64(Exp32(xf))-want)/want)
	}
	t.Logf("Exp32: worst relative error %.3g", worst)
	if worst > 3e-7 {
		t.Fatalf("Exp32: relative error %.3g, want ≤ 3e-7", worst)
	}
	for _, x := range []float32{-87.31, -200, float32(math.Inf(-1))} {
		if y := Exp32(x); y != 0 {
			t.Fatalf("Exp32(%g) = %g, want 0", x, y)
		}
	}
	if y := Exp32(1000); math.IsInf(float64(y), 0) || y < 1e38 {
		t.Fatalf("Exp32(1000) = %g", y)
	}
}

func TestSoftmaxInPlace(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 21, 300} {
		row := make([]float32, n)
		for i := range row {
			row[i] = float32(rng.NormFloat64() * 5)
		}
		want := make([]float64, n)
		m, s := math.Inf(-1), 0.0
		for _, v := range row {
			m = max(m, float64(v))
		}
		for i, v := range row {
			want[i] = math.Exp(float64(v) - m)
			s += want[i]
		}
		SoftmaxInPlace(row)
		for i := range row {
			if d := math.Abs(float64(row[i]) - want[i]/s); d > 1e-6 {
				t.Fatalf("n=%d: softmax[%d] = %g, want %g", n, i, row[i], want[i]/s)
			}
		}
	}
}

// TestKernelsMatchGo checks that GELUInPlace and SoftmaxRows (the C kernels in a
// cgo build) give the Go loops' results bit for bit, on sizes around the cgo cut-off
// and values out to the clamps.
func TestKernelsMatchGo(t *testing.T) {
	t.Logf("kernels: %s", kernelBackend)
	rng := rand.New(rand.NewSource(3))
	values := func(n int, scale float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * scale)
		}
		if n > 8 {
			copy(x, []float32{0, -0, 9.5, -9.5, 40, -40, 1e-30, -100})
		}
		return x
	}
	same := func(name string, got, want []float32) {
		t.Helper()
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: element %d is %v, Go gives %v", name, i, got[i], want[i])
			}
		}
	}
	for _, n := range []int{0, 1, 7, 63, 64, 65, 1000, 4099} {
		for _, scale := range []float64{1, 4} {
			x := values(n, scale)
			got, want := append([]float32(nil), x...), append([]float32(nil), x...)
			GELUInPlace(got)
			geluGo(want)
			same(fmt.Sprintf("GELU n=%d", n), got, want)
		}
	}
	for _, n := range []int{0, 5, 64, 1001} {
		x := values(n, 3)
		y, th := make([]float32, n), make([]float32, n)
		wy, wth := make([]float32, n), make([]float32, n)
		GELUTanh(x, y, th)
		geluTanhGo(x, wy, wth)
		same(fmt.Sprintf("GELUTanh y n=%d", n), y, wy)
		same(fmt.Sprintf("GELUTanh t n=%d", n), th, wth)
		g := append([]float32(nil), x...)
		geluGo(g)
		same(fmt.Sprintf("GELUTanh against GELUInPlace n=%d", n), y, g)
		dy := values(n, 1)
		dx, wdx := make([]float32, n), make([]float32, n)
		GELUTanhBackward(x, th, dy, dx)
		geluTanhBackwardGo(x, th, dy, wdx)
		same(fmt.Sprintf("GELUTanhBackward n=%d", n), dx, wdx)
	}
	for _, n := range []int{1, 5, 63, 64, 200, 1261} {
		for _, scale := range []float64{1, 30} {
			x := values(n, scale)
			got, want := append([]float32(nil), x...), append([]float32(nil), x...)
			SoftmaxExp32(got)
			softmaxExp32Go(want)
			same(fmt.Sprintf("SoftmaxExp32 n=%d scale %g", n, scale), got, want)
		}
	}
	for _, shape := range [][2]int{{1, 1}, {3, 25}, {100, 64}, {33, 17}, {7, 96}} {
		y, b := values(shape[0]*shape[1], 3), values(shape[1], 3)
		got := append([]float32(nil), y...)
		AddRows(got, b)
		for i := range y {
			y[i] += b[i%shape[1]]
		}
		same(fmt.Sprintf("AddRows %d×%d", shape[0], shape[1]), got, y)
	}
	for _, shape := range [][2]int{{1, 1}, {3, 25}, {2, 40}, {100, 25}, {33, 17}, {10, 7}} {
		x := values(shape[0]*shape[1], 10)
		got, want := append([]float32(nil), x...), append([]float32(nil), x...)
		SoftmaxRows(got, shape[1])
		softmaxRowsGo(want, shape[1])
		same(fmt.Sprintf("softmax %d×%d", shape[0], shape[1]), got, want)
		for r := 0; r < shape[0]; r++ {
			sum := 0.0
			for _, v := range got[r*shape[1] : (r+1)*shape[1]] {
				sum += float64(v)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("softmax %d×%d: row %d sums to %v", shape[0], shape[1], r, sum)
			}
		}
	}
}

// TestLayerNormRowsMatchesGo checks LayerNormRows (C in a cgo build) against the Go
// loop bit for bit, in place and into another slice.
func TestLayerNormRowsMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, c := range []int{1, 3, 64, 96} {
		rows := 37
		x := make([]float32, rows*c)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*3 + 1)
		}
		w, b := make([]float32, c), make([]float32, c)
		for j := range w {
			w[j], b[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		want := make([]float32, len(x))
		layerNormRowsGo(x, want, w, b, rows, c, 1e-5)
		got := make([]float32, len(x))
		LayerNormRows(x, got, w, b, c, 1e-5)
		inPlace := append([]float32(nil), x...)
		LayerNormRows(inPlace, inPlace, w, b, c, 1e-5)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(inPlace[i]) != math.Float32bits(want[i]) {
				t.Fatalf("c=%d element %d: %v and in place %v, Go gives %v", c, i, got[i], inPlace[i], want[i])
			}
		}
	}
}

// BenchmarkSoftmaxRows is attention's softmax in the skin decoder: 2,048 rows of 25
// scores, SoftmaxRows (C in a cgo build) against the Go loop.
func BenchmarkSoftmaxRows(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	x := make([]float32, 2048*25)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
	}
	buf := make([]float32, len(x))
	b.Run(kernelBackend, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			SoftmaxRows(buf, 25)
		}
	})
	b.Run("go", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			softmaxRowsGo(buf, 25)
		}
	})
}

// BenchmarkGELU measures GELUInPlace (C in a cgo build), the Go loop and the same
// formula with the standard library's tanh, on one decoder layer's worth of
// activations (4,096 × 128).
func BenchmarkGELU(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	x := make([]float32, 4096*128)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 2)
	}
	buf := make([]float32, len(x))
	b.Run("fast-"+kernelBackend, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			GELUInPlace(buf)
		}
	})
	b.Run("fast-go", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			geluGo(buf)
		}
	})
	b.Run("math", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j, v := range x {
				w := float64(v)
				buf[j] = float32(0.5 * w * (1 + math.Tanh(geluK*(w+0.044715*w*w*w))))
			}
		}
	})
}

func ExampleTanh32() {
	fmt.Printf("%.6f %.6f\n", Tanh32(0.5), Tanh32(-20))
	// Output: 0.462117 -1.000000
}

// BenchmarkLayerNormRows is the skin decoder's layer norm: 2,048 rows of 64,
// LayerNormRows (C in a cgo build) against the Go loop.
func BenchmarkLayerNormRows(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	const rows, c = 2048, 64
	x := make([]float32, rows*c)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 2)
	}
	w, bias := make([]float32, c), make([]float32, c)
	for j := range w {
		w[j], bias[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	y := make([]float32, len(x))
	b.Run(kernelBackend, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			LayerNormRows(x, y, w, bias, c, 1e-5)
		}
	})
	b.Run("go", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			layerNormRowsGo(x, y, w, bias, rows, c, 1e-5)
		}
	})
}

// TestPanelRowsRowByRow checks that a row's outputs do not depend on how many
// rows PanelRows computes together (four at a time, the last two or three
// together, a last one alone): every batch equals its rows one by one, bit for
// bit, and the Go fallback to rounding.
func TestPanelRowsRowByRow(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13} {
		for _, nk := range [][2]int{{1, 1}, {15, 7}, {16, 128}, {17, 33}, {100, 512}} {
			n, k := nk[0], nk[1]
			w, x := make([]float32, n*k), make([]float32, m*k)
			for i := range w {
				w[i] = float32(rng.NormFloat64() * 0.1)
			}
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			panels := PackPanels(w, n, k)
			all, one, ref := make([]float32, m*n), make([]float32, n), make([]float32, m*n)
			PanelRows(x, m, k, panels, n, all)
			panelRowsGo(x, m, k, panels, n, ref)
			for i := 0; i < m; i++ {
				PanelRows(x[i*k:(i+1)*k], 1, k, panels, n, one)
				for j := range one {
					if got := all[i*n+j]; got != one[j] {
						t.Fatalf("m=%d n=%d k=%d: row %d output %d is %v in the batch, %v alone", m, n, k, i, j, got, one[j])
					}
					if d := math.Abs(float64(all[i*n+j] - ref[i*n+j])); d > 1e-5*math.Sqrt(float64(k)) {
						t.Fatalf("m=%d n=%d k=%d: row %d output %d is %v, the Go loop's %v", m, n, k, i, j, all[i*n+j], ref[i*n+j])
					}
				}
			}
		}
	}
}
