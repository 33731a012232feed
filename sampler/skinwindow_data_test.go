package sampler

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/cputime"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/synth"
)

// largestArtistRigs are the rigs of ../shared/data with the most joints (76 and
// 64): the largest artist skeletons the shipped model meets.
var largestArtistRigs = []string{"cube2/snoutx10k.glb", "0ad/maur_elephant_siege.glb"}

// loadShared loads a rig of ../shared/data beside the repository root, skipping
// the test when the data is absent.
func loadShared(t testing.TB, rel string) *character.Character {
	t.Helper()
	path := meshtest.SharedData(t, rel)
	c, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return c
}

// shippedGenerator is the shipped model and skin tokenizer as `rig skin` runs
// them with samples streams, or a skip when the model writes no skin tokens.
func shippedGenerator(t testing.TB, samples int) *Generator {
	t.Helper()
	m, st, err := rigmodel.DefaultModel()
	if err != nil || !st.SkinTokens {
		t.Skip("no shipped model with skin tokens")
	}
	dec, err := SkinTokenizerFor(st)
	if err != nil {
		t.Skip(err)
	}
	return &Generator{Model: m, Skin: dec, SkinMode: SkinFromTokens, SkinSamples: samples, Seed: 1, Propose: classicalProposal}
}

// TestShippedSkinWindowsOnArtistRigs skins the largest artist skeletons with the
// shipped model in one stream and in windows of 40 joints (three windows): the
// windowed skin stays within 25% of the one-stream skin's deformation error
// against the artist's weights and below the rigid floor's. The largest skeleton
// grown to 80 and 256 joints, past one stream, gets a valid skin on every joint.
func TestShippedSkinWindowsOnArtistRigs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped model")
	}
	r := shippedGenerator(t, 1)
	for i, rel := range largestArtistRigs {
		c := loadShared(t, rel)
		t.Run(filepath.Base(rel), func(t *testing.T) {
			one, windowed, rigid := windowedDeform(t, r, c, 40)
			t.Logf("%s (%d joints): deformation ×100 one stream %.3f, windows of 40 %.3f, rigid %.3f",
				rel, c.Skeleton.NumJoints(), one, windowed, rigid)
			if windowed > 1.25*one || windowed > rigid {
				t.Errorf("windowed deformation %.3f: one stream %.3f, rigid %.3f", windowed, one, rigid)
			}
			if i > 0 {
				return // growing one skeleton past one stream is enough
			}
			for _, n := range []int{80, 256} {
				grown := c.Clone()
				grown.Skeleton, grown.Skin = modeltest.SkeletonOfSize(t, c.Skeleton, n), nil
				skin, err := r.SkinOnly(grown)
				if err != nil {
					t.Fatalf("%d joints: %v", n, err)
				}
				if err := skin.Validate(len(c.Mesh.Positions), n, 1e-3); err != nil {
					t.Fatalf("%d joints: %v", n, err)
				}
			}
		})
	}
}

// windowedDeform is the deformation error (×100) against c's artist weights of
// the shipped skin in one stream, in windows of capacity joints, and of rigid
// nearest-bone weights.
func windowedDeform(t *testing.T, r *Generator, c *character.Character, capacity int) (one, windowed, rigid float64) {
	t.Helper()
	deform := func(skin *character.Skin, err error) float64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		res, err := metrics.SkinMetrics(c, skin, 1)
		if err != nil {
			t.Fatal(err)
		}
		return res.DeformMean
	}
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	lat, err := r.EncodeMesh(&c.Mesh, &nm, norm, rand.New(rand.NewSource(r.Seed)))
	if err != nil {
		t.Fatal(err)
	}
	one = deform(r.SkinWith(c, lat, rand.New(rand.NewSource(1))))
	windowed = deform(r.skinWindows(c, lat, capacity, rand.New(rand.NewSource(1))))
	return one, windowed, deform(skinning.Rigid(c), nil)
}

// BenchmarkSkinOnlyJoints is `rig skin --method tokens` on a 5k-vertex synthetic
// biped with its skeleton grown to 65 and 78 joints (one stream of the shipped
// model) and 80, 128 and 256 (windows): the greedy stream alone, the mean of
// four streams and the default mean of DefaultSkinSamples streams, with the
// time per joint and the CPU time (both cores) per skin.
//
//	go test ./sampler/ -run XXX -bench BenchmarkSkinOnlyJoints -benchtime 1x
func BenchmarkSkinOnlyJoints(b *testing.B) {
	c, err := synthBiped()
	if err != nil {
		b.Fatal(err)
	}
	r := shippedGenerator(b, 1)
	for _, n := range []int{65, 78, 80, 128, 256} {
		grown := c.Clone()
		grown.Skeleton, grown.Skin = modeltest.SkeletonOfSize(b, c.Skeleton, n), nil
		for _, samples := range []int{1, 4, DefaultSkinSamples} {
			b.Run(fmt.Sprintf("joints=%d/samples=%d", n, samples), func(b *testing.B) {
				r.SkinSamples = samples
				b.Logf("%d vertices, %d joints", len(grown.Mesh.Positions), n)
				cpu0 := cputime.Process()
				for i := 0; i < b.N; i++ {
					if _, err := r.SkinOnly(grown); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*n), "ms/joint")
				b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// synthBiped is the 5k-vertex synthetic biped of seed 1 (59 joints, with
// fingers).
func synthBiped() (*character.Character, error) {
	return synth.Generate("biped", 1, synth.Options{})
}
