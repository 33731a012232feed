package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

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

// TestGemmSplits runs products large enough to be split, as single GEMMs and as
// batches smaller and larger than the worker count, with every transpose, padded
// leading dimensions and several pieces per worker, against the naive product.
func TestGemmSplits(t *testing.T) {
	saved := gemmSplit
	defer func() { gemmSplit = saved }()
	rng := rand.New(rand.NewPCG(7, 8))
	gemmSplit.minWork = 1
	for _, pieces := range []int{1, 3} {
		gemmSplit.pieces = pieces
		for _, tc := range []gemmCase{
			{"tall NN", false, false, 150, 70, 64, 3, 1, 0.5, 2},
			{"wide NT", false, true, 40, 301, 48, 1, 2, 0, 3},
			{"TN", true, false, 97, 95, 80, 2, 1, 1, 2},
			{"TT", true, true, 66, 130, 70, 0, -1, 0.25, 4},
		} {
			for _, batch := range []int{1, 2, 5} {
				t.Run(fmt.Sprintf("%s pieces %d batch %d", tc.name, pieces, batch), func(t *testing.T) {
					a, lda, b, ldb, c, ldc := operands[float64](rng, tc)
					sa, sb, sc := len(a)+1, len(b)+3, len(c)+2
					A, B, Cm := randSlice[float64](rng, sa*batch), randSlice[float64](rng, sb*batch), randSlice[float64](rng, sc*batch)
					want := slices.Clone(Cm)
					for i := 0; i < batch; i++ {
						naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, A[i*sa:], lda, B[i*sb:], ldb, tc.beta, want[i*sc:], ldc)
					}
					GemmStridedBatched(NewCPU(tc.workers), tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, A, lda, sa, B, ldb, sb, tc.beta, Cm, ldc, sc, batch)
					if d := maxDiff(Cm, want); d > 1e-12 {
						t.Fatalf("max |batched - naive| = %g", d)
					}
					// Float32 single product through the same split.
					a32, b32, c32 := toF32(a), toF32(b), toF32(c)
					want32 := slices.Clone(c32)
					naiveGemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), a32, lda, b32, ldb, float32(tc.beta), want32, ldc)
					NewCPU(tc.workers).Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), a32, lda, b32, ldb, float32(tc.beta), c32, ldc)
					if d := maxDiff(c32, want32); d > 1e-4 {
						t.Fatalf("max |sgemm - naive| = %g", d)
					}
				})
			}
		}
	}
}

func toF32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// TestGemmPlanCoversC checks that the tasks of a plan tile every C exactly once.
func TestGemmPlanCoversC(t *testing.T) {
	saved := gemmSplit
	defer func() { gemmSplit = saved }()
	for _, pieces := range []int{1, 2, 5} {
		gemmSplit.pieces, gemmSplit.minWork = pieces, 1<<10
		for _, s := range [][4]int{{1000, 30, 64, 1}, {30, 1000, 64, 1}, {64, 64, 64, 1}, {512, 512, 64, 3}, {17, 9000, 40, 2}, {256, 256, 256, 40}, {8, 8, 8, 100}} {
			for _, workers := range []int{1, 2, 3, 8} {
				m, n, k, batch := s[0], s[1], s[2], s[3]
				seen := make([]int, batch*m*n)
				tasks := NewCPU(workers).gemmPlan(m, n, k, batch)
				for _, tk := range tasks {
					for r := tk.r0; r < tk.r1; r++ {
						for c := tk.c0; c < tk.c1; c++ {
							seen[(tk.i*m+r)*n+c]++
						}
					}
				}
				for i, v := range seen {
					if v != 1 {
						t.Fatalf("pieces %d workers %d shape %v: element %d of C covered %d times (%d tasks)", pieces, workers, s, i, v, len(tasks))
					}
				}
				if workers > 1 && batch*m*n*k >= parallelFlops && len(tasks) < min(workers, batch*max(m, n)/gemmSplit.align) {
					t.Fatalf("pieces %d workers %d shape %v: only %d tasks", pieces, workers, s, len(tasks))
				}
			}
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

// gemmBench is one benchmarked product shape: batch products of op(A) m×k times
// op(B) k×n.
type gemmBench struct {
	name    string
	tA, tB  bool
	m, n, k int
	batch   int
}

// gemmBenches are square sizes and the products of a transformer block with
// B·T = 4096 tokens, C = 256, 4 heads, MLP 1024 (nn.Linear stores W as out×in):
// forward y = x·Wᵀ (NT), backward dx = dy·W (NN) and dW = dyᵀ·x (TN), and the
// attention products of 32 heads of T = 512 as strided batches.
var gemmBenches = []gemmBench{
	{"NN-256", false, false, 256, 256, 256, 1},
	{"NN-512", false, false, 512, 512, 512, 1},
	{"NN-1024", false, false, 1024, 1024, 1024, 1},
	{"qkv-fwd-NT-4096x768x256", false, true, 4096, 768, 256, 1},
	{"qkv-dx-NN-4096x256x768", false, false, 4096, 256, 768, 1},
	{"qkv-dW-TN-768x256x4096", true, false, 768, 256, 4096, 1},
	{"mlp-fwd-NT-4096x1024x256", false, true, 4096, 1024, 256, 1},
	{"batched-NN-8x256", false, false, 256, 256, 256, 8},
	{"batched-att-NT-32x512x512x64", false, true, 512, 512, 64, 32},
	{"batched-att-NN-32x512x64x512", false, false, 512, 64, 512, 32},
}

// benchOperands returns row-major operands for g, packed with no padding.
func benchOperands(g gemmBench) (a []float32, lda, sa int, b []float32, ldb, sb int, c []float32, ldc, sc int) {
	rng := rand.New(rand.NewPCG(5, 6))
	lda, ldb, ldc = g.k, g.n, g.n
	if g.tA {
		lda = g.m
	}
	if g.tB {
		ldb = g.k
	}
	sa, sb, sc = g.m*g.k, g.k*g.n, g.m*g.n
	return randSlice[float32](rng, sa*g.batch), lda, sa, randSlice[float32](rng, sb*g.batch), ldb, sb, make([]float32, sc*g.batch), ldc, sc
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	if len(y) == 0 {
		return math.NaN()
	}
	return y[len(y)/2]
}

// openblasSpin is how long to wait after a multi-threaded OpenBLAS call before timing
// anything else: OpenBLAS's idle worker threads busy-wait for new work for 2^28
// cycles (its THREAD_TIMEOUT, about 0.13 s here) and would steal a core from the
// engine measured next.
const openblasSpin = 200 * time.Millisecond

// benchRatio times the engine and the raw BLAS call in rounds: after a pause that
// lets OpenBLAS's worker threads go to sleep, a block of engine calls, then the same
// number of raw calls at once, so that load from other processes on a shared machine
// falls on both alike. Each block lasts about 30 ms. It reports the median GFLOP/s
// of each and the median over rounds of the ratio engine/raw (above 1: the engine
// is faster), and best-ratio, the engine's fastest single call over the raw
// fastest single call in GFLOP/s: on a shared machine the fastest calls are the ones
// nothing else interrupted, so it compares the two as on an idle machine.
func benchRatio(b *testing.B, g gemmBench, e Engine, threads int) {
	a, lda, sa, bm, ldb, sb, c, ldc, sc := benchOperands(g)
	eng := func() {
		e.SgemmStridedBatched(g.tA, g.tB, g.m, g.n, g.k, 1, a, lda, sa, bm, ldb, sb, 0, c, ldc, sc, g.batch)
	}
	raw := func() {
		for i := 0; i < g.batch; i++ {
			referenceSgemm(threads, g.tA, g.tB, g.m, g.n, g.k, 1, a[i*sa:], lda, bm[i*sb:], ldb, 0, c[i*sc:], ldc)
		}
	}
	eng() // warm up both: page faults, OpenBLAS buffers and threads
	t0 := time.Now()
	raw()
	reps := max(1, int(30*time.Millisecond/max(time.Since(t0), time.Microsecond)))
	bestE, bestR := math.Inf(1), math.Inf(1)
	block := func(f func(), best *float64) float64 {
		start := time.Now()
		for i := 0; i < reps; i++ {
			t0 := time.Now()
			f()
			*best = min(*best, time.Since(t0).Seconds())
		}
		return time.Since(start).Seconds() / float64(reps)
	}
	var te, tr, ratio []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if threads > 1 {
			b.StopTimer()
			time.Sleep(openblasSpin)
			b.StartTimer()
		}
		de := block(eng, &bestE)
		dr := block(raw, &bestR)
		te, tr, ratio = append(te, de), append(tr, dr), append(ratio, dr/de)
	}
	b.StopTimer()
	flop := 2 * float64(g.m) * float64(g.n) * float64(g.k) * float64(g.batch)
	b.ReportMetric(flop/median(te)/1e9, "engine-GFLOP/s")
	b.ReportMetric(flop/median(tr)/1e9, "raw-GFLOP/s")
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(bestR/bestE, "best-ratio")
}

// BenchmarkSgemmRatio compares the engine with cblas_sgemm called directly, in the
// same run: "cores=N" runs the engine with N workers against OpenBLAS with its own N
// threads (N = GOMAXPROCS), "cores=1" a one-worker engine against single-threaded
// OpenBLAS. A strided batch is compared with a loop of cblas_sgemm calls. Run with
//
//	go test -run '^$' -bench SgemmRatio ./internal/engine
func BenchmarkSgemmRatio(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	for _, g := range gemmBenches {
		b.Run(fmt.Sprintf("%s/cores=%d", g.name, n), func(b *testing.B) { benchRatio(b, g, NewCPU(n), n) })
		if n > 1 {
			b.Run(g.name+"/cores=1", func(b *testing.B) { benchRatio(b, g, NewCPU(1), 1) })
		}
	}
}

// TestPoolRunsEveryPieceOnce runs pool jobs from several goroutines at once, some
// nested inside pieces of others, with the helpers both polling and parked (a
// zero poll window), and checks that every piece of every job ran exactly once
// before its run returned.
func TestPoolRunsEveryPieceOnce(t *testing.T) {
	saved := spinWindow.Load()
	defer spinWindow.Store(saved)
	for _, window := range []int64{saved, 0} {
		spinWindow.Store(window)
		done := make(chan error, 4)
		for g := 0; g < 4; g++ {
			go func() {
				for round := 0; round < 50; round++ {
					n := 1 + (g*7+round)%13
					counts := make([]int32, n)
					pool.run(3, n, -1, func(i int) {
						counts[i]++
						if i == 0 && round%5 == 0 { // a nested job inside a piece
							inner := make([]int32, 5)
							pool.run(2, 5, -1, func(j int) { inner[j]++ })
							for j, c := range inner {
								if c != 1 {
									counts[i] = -100 - int32(j)
								}
							}
						}
					})
					for i, c := range counts {
						if c != 1 {
							done <- fmt.Errorf("window %d ns, job of %d pieces: piece %d ran %d times", window, n, i, c)
							return
						}
					}
				}
				done <- nil
			}()
		}
		for g := 0; g < 4; g++ {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestGemmDeterministicAcrossRuns checks that repeated parallel products, with the
// pool's helpers polling or parked between them, give bitwise the same C.
func TestGemmDeterministicAcrossRuns(t *testing.T) {
	saved := spinWindow.Load()
	defer spinWindow.Store(saved)
	rng := rand.New(rand.NewPCG(3, 4))
	m, n, k := 200, 180, 150
	a, b := randSlice[float32](rng, m*k), randSlice[float32](rng, k*n)
	e := NewCPU(3)
	want := make([]float32, m*n)
	e.Sgemm(false, true, m, n, k, 1, a, k, b, k, 0, want, n)
	for run := 0; run < 20; run++ {
		spinWindow.Store(int64(run%2) * saved)
		got := make([]float32, m*n)
		e.Sgemm(false, true, m, n, k, 1, a, k, b, k, 0, got, n)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("run %d: C[%d] = %v, first run gave %v", run, i, got[i], want[i])
			}
		}
	}
}
