package rigmodel

import (
	"fmt"
	mrand "math/rand"
	"os"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/synth"
)

// BenchmarkSkinOnly is `rig skin --method tokens` on a ~5k-vertex synthetic
// quadruped with its own skeleton: the greedy stream alone (samples=1) and the
// default mean of DefaultSkinSamples streams. It needs the shipped model and
// tokenizer.
func BenchmarkSkinOnly(b *testing.B) {
	c, err := synth.Generate("quadruped", 5, synth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m, st, err := DefaultModel()
	if err != nil || !st.SkinTokens {
		b.Skip("no shipped model with skin tokens")
	}
	dec, err := SkinTokenizerFor(st)
	if err != nil {
		b.Skip(err)
	}
	b.Logf("%d vertices, %d joints", len(c.Mesh.Positions), len(c.Skeleton.Names))
	for _, samples := range []int{1, DefaultSkinSamples} {
		b.Run(fmt.Sprintf("samples=%d", samples), func(b *testing.B) {
			r := &Generator{Model: m, Skin: dec, SkinMode: SkinFromTokens, SkinSamples: samples, Seed: 1, Propose: classicalProposal}
			for i := 0; i < b.N; i++ {
				if _, err := r.SkinOnly(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// classicalProposal is autorig.ClassicalProposal, which this package cannot import:
// on a 5k-vertex mesh the joint budget is the classical default.
func classicalProposal(m *character.Mesh) (*character.Skeleton, error) {
	return classical.Skeleton(m, classical.Options{})
}

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
