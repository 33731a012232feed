package nn

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/cputime"
)

func reportTokens(b *testing.B, tokens int, cpu0 time.Duration) {
	b.ReportMetric(float64(tokens*b.N)/b.Elapsed().Seconds(), "tokens/s")
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(tokens*b.N)/cpu.Seconds()*float64(runtime.GOMAXPROCS(0)), "tokens/s@idle")
	}
}

// BenchmarkBlockForwardBackward times one transformer block (B=8, T=512, C=256,
// 4 heads, causal, MLP 4C) forward and backward in float32, reported in tokens/s.
func BenchmarkBlockForwardBackward(b *testing.B) {
	const B, T, C = 8, 512, 256
	rng := rand.New(rand.NewPCG(1, 1))
	blk := newBlock[float32]("b", blockConfig{C: C, Heads: 4, Causal: true}, rng)
	x, dy := make([]float32, B*T*C), make([]float32, B*T*C)
	for i := range x {
		x[i], dy[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	blk.forward(x, B, T, nil, 0) // allocate buffers outside the timing
	blk.backward(dy)
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		blk.forward(x, B, T, nil, 0)
		blk.backward(dy)
	}
	reportTokens(b, B*T, cpu0)
}

// BenchmarkBlockForward times the forward pass alone.
func BenchmarkBlockForward(b *testing.B) {
	const B, T, C = 8, 512, 256
	rng := rand.New(rand.NewPCG(1, 1))
	blk := newBlock[float32]("b", blockConfig{C: C, Heads: 4, Causal: true}, rng)
	x := make([]float32, B*T*C)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	blk.forward(x, B, T, nil, 0)
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		blk.forward(x, B, T, nil, 0)
	}
	reportTokens(b, B*T, cpu0)
}
