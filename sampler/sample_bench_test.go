package sampler

import (
	"fmt"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rigmodel"
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
	m, st, err := rigmodel.DefaultModel()
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
