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

// BenchmarkGELU measures GELUInPlace against the same formula with the standard
// library's tanh, on one decoder layer's worth of activations (4,096 × 128).
func BenchmarkGELU(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	x := make([]float32, 4096*128)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 2)
	}
	buf := make([]float32, len(x))
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			GELUInPlace(buf)
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
