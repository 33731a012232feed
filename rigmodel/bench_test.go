package rigmodel

import (
	mrand "math/rand"
	"os"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/synth"
)

// BenchmarkTrainStep times one optimizer step of the shipped model's size (batch
// 16 of generated creatures with made-up skin codes, K = 4): forward, loss,
// backward, clipping and AdamW; the example pipeline is not included. The engine
// is the cpu engine on GOMAXPROCS workers (-cpu sets it), or the one named by
// RIGKIT_BENCH_ENGINE (cuda in a -tags cuda build).
func BenchmarkTrainStep(b *testing.B) {
	saved := engine.Default()
	defer engine.SetDefault(saved)
	var e engine.Engine = engine.NewCPU(runtime.GOMAXPROCS(0))
	if name := os.Getenv("RIGKIT_BENCH_ENGINE"); name != "" {
		var err error
		if e, err = engine.Get(name); err != nil {
			b.Fatal(err)
		}
	}
	engine.SetDefault(e)
	cfg := DefaultConfig
	cfg.SkinK = 4
	m, err := NewModel(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	var batch []*Example
	kinds := synth.Kinds()
	for i := 0; len(batch) < 16; i++ {
		c, err := synth.Generate(kinds[i%len(kinds)], int64(i+1), synth.Options{TargetVertices: 1500})
		if err != nil || c.Skeleton.NumJoints() > cfg.MaxJoint {
			continue
		}
		ex, err := MakeExample(c, cfg.Points, fakeSkin{seed: i, k: 4}, mrand.New(mrand.NewSource(int64(i))))
		if err != nil || len(ex.Tokens) > cfg.MaxSeq {
			continue
		}
		batch = append(batch, ex)
	}
	adam := nn.NewAdamW[float32](1e-4)
	tokens := 0
	for _, ex := range batch {
		tokens += len(ex.Tokens)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nn.ZeroGrad[float32](m)
		if _, err := m.StepWeighted(batch, true, LossWeights{Struct: 2}); err != nil {
			b.Fatal(err)
		}
		nn.ClipGradNorm(m.Params(), 1)
		adam.Step(m.Params())
	}
	b.ReportMetric(float64(tokens*b.N)/b.Elapsed().Seconds(), "tokens/s")
}
