package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: the machines this runs on are
// shared, so benchmarks also report work per CPU-second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// naiveGemm is the reference product in float64.
func naiveGemm[F Float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				var av, bv F
				if tA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			c[i*ldc+j] = F(float64(alpha)*s + float64(beta)*float64(c[i*ldc+j]))
		}
	}
}

func randSlice[F Float](rng *rand.Rand, n int) []F {
	s := make([]F, n)
	for i := range s {
		s[i] = F(rng.NormFloat64())
	}
	return s
}

func maxDiff[F Float](a, b []F) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

type gemmCase struct {
	name        string
	tA, tB      bool
	m, n, k     int
	pad         int // extra leading-dimension padding, to exercise lda != cols
	alpha, beta float64
	workers     int
}

var gemmCases = []gemmCase{
	{"NN small", false, false, 3, 4, 5, 0, 1, 0, 1},
	{"NT", false, true, 7, 9, 11, 2, 1.5, 0.5, 2},
	{"TN", true, false, 13, 6, 8, 1, -1, 1, 2},
	{"TT", true, true, 5, 12, 3, 3, 0.5, -2, 2},
	{"k=0 scales C", false, false, 4, 4, 0, 0, 1, 0.5, 2},
	{"parallel rows", false, true, 300, 80, 64, 1, 1, 1, 2},
	{"parallel cols", true, false, 40, 333, 96, 0, 1, 0, 3},
	{"parallel TT", true, true, 257, 129, 65, 5, 1, 0.25, 2},
}

func operands[F Float](rng *rand.Rand, tc gemmCase) (a []F, lda int, b []F, ldb int, c []F, ldc int) {
	ra, ca := tc.m, tc.k
	if tc.tA {
		ra, ca = ca, ra
	}
	rb, cb := tc.k, tc.n
	if tc.tB {
		rb, cb = cb, rb
	}
	lda, ldb, ldc = ca+tc.pad, cb+tc.pad, tc.n+tc.pad
	return randSlice[F](rng, ra*lda), lda, randSlice[F](rng, rb*ldb), ldb, randSlice[F](rng, tc.m*ldc), ldc
}

func testGemm[F Float](t *testing.T, tol float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range gemmCases {
		t.Run(tc.name, func(t *testing.T) {
			e := NewCPU(tc.workers)
			a, lda, b, ldb, c, ldc := operands[F](rng, tc)
			want := append([]F(nil), c...)
			naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, F(tc.alpha), a, lda, b, ldb, F(tc.beta), want, ldc)
			Gemm(e, tc.tA, tc.tB, tc.m, tc.n, tc.k, F(tc.alpha), a, lda, b, ldb, F(tc.beta), c, ldc)
			if d := maxDiff(c, want); d > tol*math.Sqrt(float64(tc.k+1)) {
				t.Fatalf("max |gemm - naive| = %g", d)
			}
		})
	}
}

func TestGemmFloat32(t *testing.T) { testGemm[float32](t, 1e-5) }
func TestGemmFloat64(t *testing.T) { testGemm[float64](t, 1e-12) }

func TestGemmStridedBatched(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, batch := range []int{1, 3, 8} {
		for _, tc := range gemmCases[:4] {
			t.Run(fmt.Sprintf("%s batch %d", tc.name, batch), func(t *testing.T) {
				a, lda, b, ldb, c, ldc := operands[float64](rng, tc)
				sa, sb, sc := len(a)+2, len(b)+1, len(c)+3
				A, B, Cm := randSlice[float64](rng, sa*batch), randSlice[float64](rng, sb*batch), randSlice[float64](rng, sc*batch)
				want := append([]float64(nil), Cm...)
				for i := 0; i < batch; i++ {
					naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, A[i*sa:], lda, B[i*sb:], ldb, tc.beta, want[i*sc:], ldc)
				}
				GemmStridedBatched(NewCPU(2), tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, A, lda, sa, B, ldb, sb, tc.beta, Cm, ldc, sc, batch)
				if d := maxDiff(Cm, want); d > 1e-12 {
					t.Fatalf("max |batched - naive| = %g", d)
				}
				_ = c
			})
		}
	}
}

func TestGemmRejectsShortOperands(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "B is") {
			t.Fatalf("want a panic naming operand B, got %v", r)
		}
	}()
	a, b, c := make([]float32, 6), make([]float32, 5), make([]float32, 4)
	NewCPU(1).Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
}

func TestTensorHelpers(t *testing.T) {
	x := New[float32](2, 3)
	if got := x.Shape(); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Fatalf("shape %v", got)
	}
	d := Data[float32](x)
	d[4] = 7
	if v, _ := x.At(1, 1); v.(float32) != 7 {
		t.Fatalf("Data does not alias the tensor: At(1,1)=%v", v)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Data[float64] of a float32 tensor did not panic")
		}
	}()
	Data[float64](x)
}

func TestGetFallsBackToCPU(t *testing.T) {
	e, err := Get("cuda")
	if e == nil {
		t.Fatal("Get(cuda) returned no engine")
	}
	if err != nil && !strings.HasPrefix(e.Name(), "cpu") {
		t.Fatalf("cuda error %v but engine %s", err, e.Name())
	}
	t.Logf("Get(cuda): engine %s, err %v", e.Name(), err)
	if _, err := Get("tpu"); err == nil {
		t.Fatal("Get(tpu) succeeded")
	}
}

func TestParallelForCoversRange(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		seen := make([]int, n)
		NewCPU(3).ParallelFor(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, s)
			}
		}
	}
}

func ExampleGemm() {
	// (2×3) · (3×2)
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{1, 0, 0, 1, 1, 1}
	c := make([]float64, 4)
	Gemm(Default(), false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)
	// Output: [4 5 10 11]
}

func benchGemm(b *testing.B, size int, run func(m, n, k int, a, bm, c []float32)) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, bm, c := randSlice[float32](rng, size*size), randSlice[float32](rng, size*size), make([]float32, size*size)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		run(size, size, size, a, bm, c)
	}
	flops := 2 * float64(size) * float64(size) * float64(size) * float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
	}
}

// BenchmarkSgemm compares the engine against cblas_sgemm called directly with
// OpenBLAS's own threads (one per worker), and with one thread.
func BenchmarkSgemm(b *testing.B) {
	e := Default()
	for _, size := range []int{256, 512, 1024} {
		b.Run(fmt.Sprintf("engine/%d", size), func(b *testing.B) {
			benchGemm(b, size, func(m, n, k int, a, bm, c []float32) {
				e.Sgemm(false, false, m, n, k, 1, a, k, bm, n, 0, c, n)
			})
		})
		b.Run(fmt.Sprintf("raw-cblas-%dthreads/%d", e.Workers(), size), func(b *testing.B) {
			benchGemm(b, size, func(m, n, k int, a, bm, c []float32) {
				referenceSgemm(e.Workers(), false, false, m, n, k, 1, a, k, bm, n, 0, c, n)
			})
		})
		b.Run(fmt.Sprintf("raw-cblas-1thread/%d", size), func(b *testing.B) {
			benchGemm(b, size, func(m, n, k int, a, bm, c []float32) {
				referenceSgemm(1, false, false, m, n, k, 1, a, k, bm, n, 0, c, n)
			})
		})
	}
}
