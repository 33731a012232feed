package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
)

func maxAbsDiff[F Float](a, b []F) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// naiveLinear is y = x·Wᵀ + b by loops.
func naiveLinear(l *Linear[float64], x []float64, n int) []float64 {
	y := make([]float64, n*l.Out)
	for i := 0; i < n; i++ {
		for o := 0; o < l.Out; o++ {
			s := 0.0
			if l.Bias != nil {
				s = l.Bias.w[o]
			}
			for k := 0; k < l.In; k++ {
				s += x[i*l.In+k] * l.Weight.w[o*l.In+k]
			}
			y[i*l.Out+o] = s
		}
	}
	return y
}

// naiveAttention is multi-head attention by loops: q (B,Tq,C), k and v (B,Tk,C).
func naiveAttention(q, k, v []float64, B, Tq, Tk, C, H int, causal bool) []float64 {
	hs := C / H
	y := make([]float64, B*Tq*C)
	for b := 0; b < B; b++ {
		for h := 0; h < H; h++ {
			for i := 0; i < Tq; i++ {
				lim := Tk
				if causal {
					lim = i + 1
				}
				s := make([]float64, lim)
				mx := math.Inf(-1)
				for j := range s {
					for d := 0; d < hs; d++ {
						s[j] += q[(b*Tq+i)*C+h*hs+d] * k[(b*Tk+j)*C+h*hs+d]
					}
					s[j] /= math.Sqrt(float64(hs))
					mx = math.Max(mx, s[j])
				}
				var z float64
				for j := range s {
					s[j] = math.Exp(s[j] - mx)
					z += s[j]
				}
				for j := range s {
					for d := 0; d < hs; d++ {
						y[(b*Tq+i)*C+h*hs+d] += s[j] / z * v[(b*Tk+j)*C+h*hs+d]
					}
				}
			}
		}
	}
	return y
}

func split(x []float64, n, parts, part int) []float64 {
	c := len(x) / n / parts
	out := make([]float64, n*c)
	for i := 0; i < n; i++ {
		copy(out[i*c:(i+1)*c], x[(i*parts+part)*c:])
	}
	return out
}

func TestForwardMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	t.Run("Linear", func(t *testing.T) {
		l := NewLinear[float64]("l", 7, 5, true, rng)
		fillNormal(l.Bias.w, 1, rng)
		x := randData(rng, 9*7)
		if d := maxAbsDiff(l.forward(x, 9), naiveLinear(l, x, 9)); d > 1e-12 {
			t.Fatalf("max diff %g", d)
		}
	})
	t.Run("LayerNorm", func(t *testing.T) {
		l := NewLayerNorm[float64]("ln", 6)
		fillNormal(l.Weight.w, 1, rng)
		x := randData(rng, 4*6)
		y := l.forward(x, 4)
		for i := 0; i < 4; i++ {
			var m, v float64
			for _, xv := range x[i*6 : i*6+6] {
				m += xv / 6
			}
			for _, xv := range x[i*6 : i*6+6] {
				v += (xv - m) * (xv - m) / 6
			}
			for j := 0; j < 6; j++ {
				want := (x[i*6+j]-m)/math.Sqrt(v+1e-5)*l.Weight.w[j] + l.Bias.w[j]
				if math.Abs(y[i*6+j]-want) > 1e-12 {
					t.Fatalf("row %d col %d: %g want %g", i, j, y[i*6+j], want)
				}
			}
		}
	})
	for _, tc := range []struct {
		name   string
		causal bool
		B, T   int
	}{{"causal attention", true, 2, 70}, {"full attention", false, 3, 9}, {"causal T=1", true, 1, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			const C, H = 12, 3
			a := newSelfAttention[float64]("a", C, H, tc.causal, rng)
			x := randData(rng, tc.B*tc.T*C)
			got := a.forward(x, tc.B, tc.T)
			n := tc.B * tc.T
			qkv := naiveLinear(a.QKV, x, n)
			y := naiveAttention(split(qkv, n, 3, 0), split(qkv, n, 3, 1), split(qkv, n, 3, 2), tc.B, tc.T, tc.T, C, H, tc.causal)
			if d := maxAbsDiff(got, naiveLinear(a.Proj, y, n)); d > 1e-12 {
				t.Fatalf("max diff %g", d)
			}
		})
	}
	t.Run("cross attention", func(t *testing.T) {
		const B, T, L, C, Cc, H = 2, 6, 4, 8, 5, 2
		a := NewCrossAttention[float64]("x", C, Cc, H, rng)
		x, ctx := randData(rng, B*T*C), randData(rng, B*L*Cc)
		got := a.forward(x, ctx, B, T, L)
		kv := naiveLinear(a.KV, ctx, B*L)
		y := naiveAttention(naiveLinear(a.Q, x, B*T), split(kv, B*L, 2, 0), split(kv, B*L, 2, 1), B, T, L, C, H, false)
		if d := maxAbsDiff(got, naiveLinear(a.Proj, y, B*T)); d > 1e-12 {
			t.Fatalf("max diff %g", d)
		}
	})
	t.Run("cross-entropy", func(t *testing.T) {
		ce := NewSoftmaxCrossEntropy[float64]()
		logits := randTensor(rng, 3, 4)
		x := engine.Data[float64](logits)
		targets, mask := []int{1, 3, 0}, []float64{1, 0, 2}
		got, err := ce.Forward(logits, targets, mask)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for i, tg := range targets {
			var z float64
			for _, v := range x[i*4 : i*4+4] {
				z += math.Exp(v)
			}
			want += mask[i] * -(x[i*4+tg] - math.Log(z)) / 3
		}
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("loss %g want %g", got, want)
		}
	})
}

// TestFloat32MatchesFloat64 runs the same attention block in both precisions; the
// float32 path uses the fast exp and GELU kernels.
func TestFloat32MatchesFloat64(t *testing.T) {
	b64 := newBlock[float64]("b", blockConfig{C: 16, Heads: 4, Causal: true, CtxDim: 6}, rand.New(rand.NewPCG(3, 3)))
	b32 := newBlock[float32]("b", blockConfig{C: 16, Heads: 4, Causal: true, CtxDim: 6}, rand.New(rand.NewPCG(3, 3)))
	rng := rand.New(rand.NewPCG(4, 4))
	x64, ctx64 := randData(rng, 2*80*16), randData(rng, 2*5*6)
	x32, ctx32 := make([]float32, len(x64)), make([]float32, len(ctx64))
	for i, v := range x64 {
		x32[i] = float32(v)
	}
	for i, v := range ctx64 {
		ctx32[i] = float32(v)
	}
	y64, y32 := b64.forward(x64, 2, 80, ctx64, 5), b32.forward(x32, 2, 80, ctx32, 5)
	if d := maxAbsDiff(y32, toF32(y64)); d > 1e-4 {
		t.Fatalf("forward float32 vs float64: max diff %g", d)
	}
	dx64, _ := b64.backward(x64)
	dx32, _ := b32.backward(x32)
	if d := maxAbsDiff(dx32, toF32(dx64)); d > 1e-3 {
		t.Fatalf("backward float32 vs float64: max diff %g", d)
	}
}

func toF32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}
