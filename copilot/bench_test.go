package copilot

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/internal/cputime"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/synth"
)

// BenchmarkAutoSkeleton65 is `rig auto IN.glb --skeleton PARTIAL --max-joints 65
// --detail low` end to end on the 4,904-vertex synthetic biped of seed 1, whose
// 59-joint skeleton (with fingers) is grown to 65 joints by splitting its
// longest bones and given whole: load the GLB, encode the shape, continue the
// stream at the given leaves, complete, write the skin tokens of the 65 joints
// (one stream of 780 codes) and decode them, write the GLB. It needs the shipped
// model with skin tokens and reports the CPU time per rig.
//
//	go test ./copilot/ -run XXX -bench BenchmarkAutoSkeleton65 -benchtime 3x
func BenchmarkAutoSkeleton65(b *testing.B) {
	c, err := synth.Generate("biped", 1, synth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m, st, err := rigmodel.DefaultModel()
	if err != nil || !st.SkinTokens {
		b.Skip("no shipped model with skin tokens")
	}
	tok, err := sampler.SkinTokenizerFor(st)
	if err != nil {
		b.Skip(err)
	}
	partial := modeltest.SkeletonOfSize(b, c.Skeleton, 65)
	dir := b.TempDir()
	in := filepath.Join(dir, "in.glb")
	if _, err := assets.Save(in, c); err != nil {
		b.Fatal(err)
	}
	gen := sampler.Generator{Model: m, Skin: tok, SkinMode: sampler.SkinFromTokens, InsideJoints: true, Seed: 1,
		Propose: autorig.ClassicalProposal, NearProposal: sampler.DefaultNearProposal, Votes: sampler.DefaultVotes}
	r := &Rigger{Partial: partial, Density: Density{Detail: DetailLow, MaxJoints: 65}, SkinTokens: true,
		Completer: Completer{Model: &gen, Seed: 1}}
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		c, _, err := assets.Load(in, assets.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rig, info, err := r.Rig(c)
		if err != nil {
			b.Fatal(err)
		}
		if info.Method != "copilot+tokens" || rig.Skeleton.NumJoints() != 65 {
			b.Fatalf("method %s with %d joints, want copilot+tokens with 65 (warnings %v)", info.Method, rig.Skeleton.NumJoints(), info.Warnings)
		}
		if _, err := assets.Save(filepath.Join(dir, "out.glb"), rig); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.Logf("%d vertices, %d joints, stages (ms) %v", len(c.Mesh.Positions), rig.Skeleton.NumJoints(), info.TimingsMS)
		}
	}
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
