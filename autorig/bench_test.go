package autorig

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/synth"
)

// BenchmarkAuto5k is `rig auto` end to end on one ~5k-vertex creature: load the GLB,
// encode the shape, generate (KV cache; the first stream's skeleton voted among
// votes=N sampled ones, or greedy with votes=1; samples=8 adds 7 sampled streams, the
// best kept by the rewards), decode (skin tokens, or geodesic
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
	if _, err := assets.Save(in, c); err != nil {
		b.Fatal(err)
	}
	m, st, err := rigmodel.DefaultModel()
	skinTokens := err == nil && st.SkinTokens
	if err != nil {
		if m, err = rigmodel.NewModel(rigmodel.DefaultConfig, 1); err != nil {
			b.Fatal(err)
		}
	}
	var dec sampler.SkinDecoder
	if skinTokens {
		if tok, err := sampler.SkinTokenizerFor(st); err != nil {
			skinTokens = false
		} else {
			dec = tok
		}
	}
	b.Logf("%d vertices, model of %d parameters (shipped: %v, skin tokens: %v)", len(c.Mesh.Positions), m.NumParams(), st != nil, skinTokens)
	v := sampler.DefaultVotes
	for _, run := range []struct {
		geodesic       bool
		samples, votes int
	}{{false, 1, v}, {false, 1, 1}, {false, 8, v}, {true, 1, v}, {true, 1, 1}, {true, 8, v}} {
		name := "skin=tokens"
		if run.geodesic {
			name = "skin=geodesic"
		} else if !skinTokens {
			continue
		}
		name += fmt.Sprintf("/samples=%d/votes=%d", run.samples, run.votes)
		geodesic := run.geodesic
		b.Run(name, func(b *testing.B) {
			// As `rig auto` by default: floor and classical comparison.
			r := &ModelRigger{Draw: sampler.Draw{Samples: run.samples}, Floor: DefaultFloor, CompareClassical: true}
			r.Model, r.Skin, r.InsideJoints, r.Seed = m, dec, true, 1
			r.NearProposal, r.Votes = sampler.DefaultNearProposal, run.votes
			if skinTokens && !geodesic {
				r.SkinMode = sampler.SkinFromTokens
			}
			var tps float64
			for i := 0; i < b.N; i++ {
				in, _, err := assets.Load(in, assets.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rig, info, err := r.Rig(in)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := assets.Save(filepath.Join(dir, "out.glb"), rig); err != nil {
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
