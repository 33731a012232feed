package rigmodel

import (
	"fmt"
	mrand "math/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
)

// BenchmarkAuto5k is `rig auto` end to end on one ~5k-vertex creature: load the GLB,
// encode the shape, generate (KV cache; greedy, or samples=8: greedy and 7 sampled
// streams, the best kept by the rewards), decode (skin tokens, or geodesic
// skin with skin=geodesic), score, the classical fallback when the rig scores under
// the floor, write the GLB. It uses the shipped model, or an untrained model of the
// shipped size when none is shipped (which writes the longest streams: the worst case
// for generation).
func BenchmarkAuto5k(b *testing.B) {
	c, err := synth.Generate("biped", 5, synth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "in.glb")
	if err := assets.Save(in, c); err != nil {
		b.Fatal(err)
	}
	m, st, err := DefaultModel()
	skinTokens := err == nil && st.SkinTokens
	if err != nil {
		if m, err = NewModel(DefaultConfig, 1); err != nil {
			b.Fatal(err)
		}
	}
	var dec SkinDecoder
	if skinTokens {
		if tok, err := SkinTokenizerFor(st); err != nil {
			skinTokens = false
		} else {
			dec = tok
		}
	}
	b.Logf("%d vertices, model of %d parameters (shipped: %v, skin tokens: %v)", len(c.Mesh.Positions), m.NumParams(), st != nil, skinTokens)
	for _, run := range []struct {
		geodesic bool
		samples  int
	}{{false, 1}, {false, 8}, {true, 1}, {true, 8}} {
		name := "skin=tokens"
		if run.geodesic {
			name = "skin=geodesic"
		} else if !skinTokens {
			continue
		}
		name += fmt.Sprintf("/samples=%d", run.samples)
		geodesic := run.geodesic
		b.Run(name, func(b *testing.B) {
			// As `rig auto` by default: floor and classical comparison.
			r := &ModelRigger{Model: m, Skin: dec, SkinTokens: skinTokens, SkeletonOnly: geodesic, Samples: run.samples,
				Floor: DefaultFloor, CompareClassical: true, InsideJoints: true, Seed: 1}
			var tps float64
			for i := 0; i < b.N; i++ {
				in, err := assets.Load(in)
				if err != nil {
					b.Fatal(err)
				}
				rig, info, err := r.Rig(in)
				if err != nil {
					b.Fatal(err)
				}
				if err := assets.Save(filepath.Join(dir, "out.glb"), rig); err != nil {
					b.Fatal(err)
				}
				tps += info.TokensPerSecond
				if i == 0 {
					b.Logf("method %s, %d tokens, stages (ms) %v", info.Method, info.Tokens, info.TimingsMS)
				}
			}
			b.ReportMetric(tps/float64(b.N), "tokens/s")
		})
	}
}

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
			r := &ModelRigger{Model: m, Skin: dec, SkinTokens: true, SkinSamples: samples, Seed: 1}
			for i := 0; i < b.N; i++ {
				if _, err := r.SkinOnly(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
