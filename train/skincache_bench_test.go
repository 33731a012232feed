//go:build unix

package train

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/cputime"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

// BenchmarkSkinPhase is the skin phase's training loop at the shipped model's
// size (d 128, 6 layers, 4 heads, K 12, batch 8; no proposal) on the real rigs of
// cacheRigs: each augmented copy re-encoded (a pool of 8 replaced two per step, as
// `rig train --encode-each`), against the cached code set (`rig train`). The pool
// fill and the code set are made before the clock starts. It reports steps/s,
// training tokens/s and the CPU use of the process (cores busy).
//
//	go test ./train/ -run XXX -bench BenchmarkSkinPhase -benchtime 6x
func BenchmarkSkinPhase(b *testing.B) {
	tok, err := skincodec.Load("")
	if err != nil {
		b.Skip(err)
	}
	var chars []*character.Character
	for _, rel := range cacheRigs {
		chars = append(chars, sharedRig(b, rel))
	}
	eo := tok.Options()
	eo.RefineRounds, eo.Workers = 0, 1
	cfg := rigmodel.Config{DModel: 128, Layers: 6, Heads: 4, Latents: 32, Points: 384, Fourier: 6,
		Vocab: tokens.VocabSize, MaxJoint: 78, SkinK: tok.K()}
	cfg.MaxSeq = cfg.LongestStream()
	for _, each := range []bool{true, false} {
		name := map[bool]string{true: "encode-each", false: "cached"}[each]
		b.Run(name, func(b *testing.B) {
			m, err := rigmodel.NewModel(cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			opt := Options{Out: filepath.Join(b.TempDir(), "m.safetensors"), Config: cfg, Seed: 1,
				Skin: TokenizerSkin(tok, eo), SkinID: tok.Fingerprint(),
				Data:     Data{Augment: DefaultAugment, Pool: 8, EncodeEach: each},
				Schedule: Schedule{Steps: 1 << 20, Batch: 8, LR: 1e-4}}
			opt = opt.withDefaults()
			tr, err := newTrainer(opt, &rigmodel.TrainState{Config: cfg}, m, chars, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.ex.stream.close()
			cpu0, t0 := cputime.Process(), time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := tr.step(); err != nil {
					b.Fatal(err)
				}
			}
			wall := time.Since(t0).Seconds()
			b.ReportMetric(float64(b.N)/wall, "steps/s")
			b.ReportMetric(float64(tr.since.tokens)/wall, "tokens/s")
			b.ReportMetric((cputime.Process()-cpu0).Seconds()/wall, "cores")
		})
	}
}
