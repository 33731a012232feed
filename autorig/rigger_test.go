package autorig

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/train"
)

// tinyConfig is a model small enough to build in milliseconds; untrained, it writes
// nonsense streams, which is what the policy's fallbacks are for.
var tinyConfig = rigmodel.Config{DModel: 16, Layers: 2, Heads: 2, Latents: 4, Points: 24, Fourier: 2,
	MaxSeq: 264, Vocab: tokens.VocabSize, MaxJoint: 32}

// An untrained model's streams are nonsense; the rigger must still return a valid
// rig and say which method made it.
func TestModelRiggerAlwaysGivesAValidRig(t *testing.T) {
	m, err := rigmodel.NewModel(tinyConfig, 11)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		floor   float64
		skin    bool   // the model writes skin tokens
		compare bool   // CompareClassical
		heat    bool   // Bind is HeatSkin
		want    string // method prefix
		votes   int    // Votes
	}{
		{"floor forces the fallback", 1.1, false, false, false, "classical-skeleton+geodesic", 0},
		{"floor forces the fallback, heat binding", 1.1, false, false, true, "classical-skeleton+heat", 0},
		{"no floor keeps the model skeleton", 0, false, false, false, "tokenrig-skeleton+geodesic", 0},
		{"no floor keeps the model skeleton, heat binding", 0, false, false, true, "tokenrig-skeleton+heat", 0},
		{"skin tokens decoded", 0, true, false, false, "tokenrig", 0},
		{"skin tokens after a vote of three skeletons", 0, true, false, false, "tokenrig", 3},
		{"the classical rig outscores an untrained model", 0, false, true, false, "classical-skeleton+", 0},
		{"the classical skeleton is also skinned by the skin tokens", 0, true, true, false, "classical-skeleton+", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &ModelRigger{Draw: sampler.Draw{Samples: 2, Temperature: 1}, Floor: tc.floor, CompareClassical: tc.compare}
			r.Model, r.Seed, r.Votes = m, 1, tc.votes
			if tc.heat {
				r.Bind, r.BindName = sampler.HeatSkin, "heat"
			}
			if tc.skin {
				r.Skin, r.SkinMode = rigidDecoder{}, sampler.SkinFromTokens
			}
			c := &character.Character{Name: "box", Mesh: synth.BoxQuadruped()}
			rig, info, err := r.Rig(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := sampler.CheckRig(rig); err != nil {
				t.Fatalf("invalid rig: %v", err)
			}
			for _, p := range rig.Skeleton.Positions() {
				if !p.IsFinite() {
					t.Fatalf("joint at %v", p)
				}
			}
			if !strings.HasPrefix(info.Method, tc.want) || (tc.skin && !tc.compare && info.Method != "tokenrig") {
				t.Errorf("method %q, want %s…", info.Method, tc.want)
			}
			if (info.Fallback != "") != strings.HasPrefix(info.Method, "classical") {
				t.Errorf("method %q with fallback reason %q", info.Method, info.Fallback)
			}
			if tc.compare && (info.ClassicalScore == nil || *info.ClassicalScore <= info.SampleScores[0]) {
				t.Errorf("classical score %v, samples %v", info.ClassicalScore, info.SampleScores)
			}
			if info.Score == nil {
				t.Error("no score for the final rig")
			}
			checkClassicalTokens(t, info, tc.skin && tc.compare)
			if info.Samples != 2 || info.Votes != tc.votes || len(info.SampleScores) != 2 || info.TokensPerSecond <= 0 || math.IsNaN(info.SampleScores[0]) {
				t.Errorf("info %+v", info)
			}
			if c.Skeleton != nil {
				t.Error("Rig modified its input")
			}
		})
	}
}

// checkClassicalTokens checks the classical skeleton's token skin: scored when the
// model writes skin tokens and the classical rig is built, kept exactly when it
// scores at least the classical rig.
func checkClassicalTokens(t *testing.T, info *RigInfo, want bool) {
	t.Helper()
	if (info.ClassicalTokensScore != nil) != want {
		t.Fatalf("classical tokens score %v, want one: %v", info.ClassicalTokensScore, want)
	}
	if !want {
		return
	}
	kept := info.Method == "classical-skeleton+tokens"
	if better := *info.ClassicalTokensScore >= *info.ClassicalScore; kept != better {
		t.Errorf("method %q with token skin %.3f against the classical rig's %.3f", info.Method, *info.ClassicalTokensScore, *info.ClassicalScore)
	}
}

// TestModelWins: rig auto keeps the model's rig whenever it scores at least the
// classical rig, under the floor too; never an unscored or missing one.
func TestModelWins(t *testing.T) {
	tests := []struct {
		name             string
		haveBest, scored bool
		best, classical  float64
		want             bool
	}{
		{"tie keeps the model", true, true, 0.7, 0.7, true},
		{"model higher, both under the floor", true, true, 0.3, 0.2, true},
		{"classical higher", true, true, 0.69, 0.7, false},
		{"no valid sample", false, true, 0, 0, false},
		{"mesh could not be scored", true, false, 0, 0, false},
	}
	for _, tc := range tests {
		if got := modelWins(tc.haveBest, tc.scored, tc.best, tc.classical); got != tc.want {
			t.Errorf("%s: modelWins = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// rigidDecoder stands in for the skin tokenizer: nearest-bone weights, codes ignored.
type rigidDecoder struct{}

func (rigidDecoder) Decode(c *character.Character, sk *character.Skeleton, codes [][]int) (*character.Skin, error) {
	if len(codes) != sk.NumJoints() {
		return nil, fmt.Errorf("%d code rows for %d joints", len(codes), sk.NumJoints())
	}
	cc := *c
	cc.Skeleton = sk
	return skinning.Rigid(&cc), nil
}

// meanDecoder is rigidDecoder that also takes several code sets; it records the
// code sets of its last call.
type meanDecoder struct {
	sets *[][][]int
	mean *bool
}

func (d meanDecoder) Decode(c *character.Character, sk *character.Skeleton, codes [][]int) (*character.Skin, error) {
	*d.sets, *d.mean = [][][]int{codes}, false
	return rigidDecoder{}.Decode(c, sk, codes)
}

func (d meanDecoder) DecodeMean(c *character.Character, sk *character.Skeleton, codeSets [][][]int) (*character.Skin, error) {
	*d.sets, *d.mean = codeSets, true
	return rigidDecoder{}.Decode(c, sk, codeSets[0])
}

// TestRigSkinSamples checks that the full-rig path averages SkinSamples skin streams
// drawn after each sampled skeleton, and that GRPO's reward decodes exactly the
// sampled stream (one code set, no extra streams).
func TestRigSkinSamples(t *testing.T) {
	m, err := rigmodel.NewModel(tinyConfig, 11)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var sets [][][]int
			var mean bool
			r := &ModelRigger{Draw: sampler.Draw{Samples: 1}}
			r.Model, r.Skin, r.SkinMode, r.Seed, r.SkinSamples = m, meanDecoder{&sets, &mean}, sampler.SkinFromTokens, 1, n
			c := &character.Character{Name: "box", Mesh: synth.BoxQuadruped()}
			rig, info, err := r.Rig(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := sampler.CheckRig(rig); err != nil {
				t.Fatalf("invalid rig: %v", err)
			}
			if info.Method != "tokenrig" {
				t.Fatalf("method %q, want tokenrig", info.Method)
			}
			if len(sets) != n || mean != (n > 1) {
				t.Fatalf("%d code sets (mean %v), want %d", len(sets), mean, n)
			}
			for s, codes := range sets {
				if len(codes) != rig.Skeleton.NumJoints() {
					t.Fatalf("set %d: %d code lists for %d joints", s, len(codes), rig.Skeleton.NumJoints())
				}
			}
			sets = nil
			train.RigReward(&r.Generator)(c, sampleStream(t, r, c))
			if len(sets) != 1 || mean {
				t.Errorf("GRPO reward decoded %d code sets (mean %v), want the sampled stream alone", len(sets), mean)
			}
		})
	}
}

// sampleStream draws one full stream (skeleton and skin tokens) for c's mesh.
func sampleStream(t *testing.T, r *ModelRigger, c *character.Character) []int {
	t.Helper()
	nm, _ := rigmodel.NormalizedMesh(&c.Mesh)
	rng := rand.New(rand.NewSource(3))
	lat, err := r.Model.Encode(rigmodel.SamplePoints(&nm, r.Model.Cfg.Points, rng), nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		t.Fatal(err)
	}
	smp, err := sampler.Generate(sess, nil, sampler.SampleOptions{Temperature: 1, MaxJoints: r.Model.Cfg.MaxJoint, K: r.Model.Cfg.K()}, rng)
	if err != nil {
		t.Fatal(err)
	}
	return smp.Tokens
}
