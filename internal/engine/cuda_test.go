//go:build cuda && cgo

package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"
)

// cudaForTest returns the cuda engine with every product sent to the device, or
// skips the test when there is none (it fails instead under RIGKIT_REQUIRE_CUDA=1,
// so a GPU machine cannot silently pass by skipping).
func cudaForTest(t testing.TB) *CUDA {
	t.Helper()
	e, err := Get("cuda")
	if err != nil {
		if os.Getenv("RIGKIT_REQUIRE_CUDA") == "1" {
			t.Fatalf("RIGKIT_REQUIRE_CUDA=1 but %v", err)
		}
		t.Skip(err)
	}
	c := e.(*CUDA)
	c.minWork = 0
	return c
}

// TestCUDAGemmMatchesNaive runs every case of the cpu engine's table on the device,
// in float32 and float64, against the naive product.
func TestCUDAGemmMatchesNaive(t *testing.T) {
	e := cudaForTest(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range gemmCases {
		t.Run(tc.name+"/f32", func(t *testing.T) {
			a, lda, b, ldb, c, ldc := operands[float32](rng, tc)
			want := append([]float32(nil), c...)
			naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), a, lda, b, ldb, float32(tc.beta), want, ldc)
			e.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), a, lda, b, ldb, float32(tc.beta), c, ldc)
			if d := maxDiff(c, want); d > 1e-4*math.Sqrt(float64(tc.k+1)) {
				t.Fatalf("max |cuda - naive| = %g", d)
			}
		})
		t.Run(tc.name+"/f64", func(t *testing.T) {
			a, lda, b, ldb, c, ldc := operands[float64](rng, tc)
			want := append([]float64(nil), c...)
			naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
			e.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
			if d := maxDiff(c, want); d > 1e-10 {
				t.Fatalf("max |cuda - naive| = %g", d)
			}
		})
	}
}

// TestCUDAStridedBatchedKeepsGaps runs batched products whose C has padding
// between rows and between items: the device must write the products and leave
// every padding element as it was on the host (C is uploaded when it has gaps).
func TestCUDAStridedBatchedKeepsGaps(t *testing.T) {
	e := cudaForTest(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, batch := range []int{1, 3, 8} {
		for _, tc := range gemmCases[:4] {
			for _, beta := range []float64{0, tc.beta} {
				t.Run(fmt.Sprintf("%s batch %d beta %g", tc.name, batch, beta), func(t *testing.T) {
					a, lda, b, ldb, c, ldc := operands[float32](rng, tc)
					sa, sb, sc := len(a)+2, len(b)+1, len(c)+3
					A, B, Cm := randSlice[float32](rng, sa*batch), randSlice[float32](rng, sb*batch), randSlice[float32](rng, sc*batch)
					want := append([]float32(nil), Cm...)
					for i := 0; i < batch; i++ {
						naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), A[i*sa:], lda, B[i*sb:], ldb, float32(beta), want[i*sc:], ldc)
					}
					e.SgemmStridedBatched(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), A, lda, sa, B, ldb, sb, float32(beta), Cm, ldc, sc, batch)
					if d := maxDiff(Cm, want); d > 1e-4*math.Sqrt(float64(tc.k+1)) {
						t.Fatalf("max |cuda batched - naive| = %g", d)
					}
					_ = c
				})
			}
		}
	}
}

// TestCUDAReusesBuffers alternates large and small products (the device buffers
// grow, then serve smaller products, with beta 0 so C is not uploaded) and checks
// each against the cpu engine: stale device contents must never leak into C.
func TestCUDAReusesBuffers(t *testing.T) {
	e := cudaForTest(t)
	cpu := NewCPU(2)
	rng := rand.New(rand.NewPCG(15, 16))
	for i, sz := range [][3]int{{700, 300, 500}, {5, 7, 3}, {1024, 1024, 64}, {33, 65, 17}, {1, 1, 1}, {700, 300, 500}} {
		m, n, k := sz[0], sz[1], sz[2]
		a, b := randSlice[float32](rng, m*k), randSlice[float32](rng, k*n)
		got, want := make([]float32, m*n), make([]float32, m*n)
		for j := range got {
			got[j] = float32(math.NaN()) // beta 0: C's old contents must not be read
		}
		e.Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, got, n)
		cpu.Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, want, n)
		if d := maxDiff(got, want); !(d <= 1e-4*math.Sqrt(float64(k))) {
			t.Fatalf("product %d (%dx%dx%d): max |cuda - cpu| = %g", i, m, n, k, d)
		}
	}
	if dev, _ := e.Counts(); dev < 6 {
		t.Fatalf("only %d products ran on the device", dev)
	}
}

// TestCUDASmallProductsStayOnHost checks the size threshold: with the default
// minWork a tiny product runs on the host, a large one on the device.
func TestCUDASmallProductsStayOnHost(t *testing.T) {
	e := cudaForTest(t)
	e.minWork = defaultCUDAMinWork
	dev0, host0 := e.Counts()
	a, b, c := make([]float32, 16), make([]float32, 16), make([]float32, 16)
	e.Sgemm(false, false, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4)
	const n = 256
	A, B, Cm := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	e.Sgemm(false, false, n, n, n, 1, A, n, B, n, 0, Cm, n)
	dev, host := e.Counts()
	if host-host0 != 1 || dev-dev0 != 1 {
		t.Fatalf("device +%d host +%d, want +1 each", dev-dev0, host-host0)
	}
}

// BenchmarkCUDAGemm times the transformer-block shapes of gemmBenches on the
// device (operands staged from host memory, as the engine does) and on the cpu
// engine with every core, and reports GFLOP/s of each and their ratio.
func BenchmarkCUDAGemm(b *testing.B) {
	e := cudaForTest(b)
	cpu := NewCPU(runtime.GOMAXPROCS(0))
	for _, g := range gemmBenches {
		b.Run(g.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			A := randSlice[float32](rng, g.batch*g.m*g.k)
			B := randSlice[float32](rng, g.batch*g.k*g.n)
			Cm := make([]float32, g.batch*g.m*g.n)
			lda, ldb := g.k, g.n
			if g.tA {
				lda = g.m
			}
			if g.tB {
				ldb = g.k
			}
			flops := 2 * float64(g.batch*g.m*g.n*g.k)
			timeIt := func(en Engine) float64 {
				en.SgemmStridedBatched(g.tA, g.tB, g.m, g.n, g.k, 1, A, lda, g.m*g.k, B, ldb, g.k*g.n, 0, Cm, g.n, g.m*g.n, g.batch)
				const reps = 5
				t0 := time.Now()
				for r := 0; r < reps; r++ {
					en.SgemmStridedBatched(g.tA, g.tB, g.m, g.n, g.k, 1, A, lda, g.m*g.k, B, ldb, g.k*g.n, 0, Cm, g.n, g.m*g.n, g.batch)
				}
				return flops * reps / time.Since(t0).Seconds() / 1e9
			}
			var dev, host float64
			for i := 0; i < b.N; i++ {
				dev, host = timeIt(e), timeIt(cpu)
			}
			b.ReportMetric(dev, "cuda-GFLOP/s")
			b.ReportMetric(host, "cpu-GFLOP/s")
			b.ReportMetric(dev/host, "cuda/cpu")
		})
	}
}
