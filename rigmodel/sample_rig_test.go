package rigmodel

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/skinning"
)

// An untrained model's streams are nonsense; the rigger must still return a valid
// rig and say which method made it.
func TestModelRiggerAlwaysGivesAValidRig(t *testing.T) {
	m, err := NewModel(tinyConfig, 11)
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
	}{
		{"floor forces the fallback", 1.1, false, false, false, "classical-skeleton+geodesic"},
		{"floor forces the fallback, heat binding", 1.1, false, false, true, "classical-skeleton+heat"},
		{"no floor keeps the model skeleton", 0, false, false, false, "tokenrig-skeleton+geodesic"},
		{"no floor keeps the model skeleton, heat binding", 0, false, false, true, "tokenrig-skeleton+heat"},
		{"skin tokens decoded", 0, true, false, false, "tokenrig"},
		{"the classical rig outscores an untrained model", 0, false, true, false, "classical-skeleton+"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &ModelRigger{Model: m, Samples: 2, Temperature: 1, Floor: tc.floor, CompareClassical: tc.compare, Seed: 1}
			if tc.heat {
				r.Bind, r.BindName = HeatSkin, "heat"
			}
			if tc.skin {
				r.Skin, r.SkinTokens = rigidDecoder{}, true
			}
			c := &assets.Character{Name: "box", Mesh: creatureMesh()}
			rig, info, err := r.Rig(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckRig(rig); err != nil {
				t.Fatalf("invalid rig: %v", err)
			}
			for _, p := range rig.Skeleton.Positions() {
				if !p.IsFinite() {
					t.Fatalf("joint at %v", p)
				}
			}
			if !strings.HasPrefix(info.Method, tc.want) || (tc.skin && info.Method != "tokenrig") {
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
			if info.Samples != 2 || len(info.SampleScores) != 2 || info.TokensPerSecond <= 0 || math.IsNaN(info.SampleScores[0]) {
				t.Errorf("info %+v", info)
			}
			if c.Skeleton != nil {
				t.Error("Rig modified its input")
			}
		})
	}
}

// rigidDecoder stands in for the skin tokenizer: nearest-bone weights, codes ignored.
type rigidDecoder struct{}

func (rigidDecoder) Decode(c *assets.Character, sk *assets.Skeleton, codes [][]int) (*assets.Skin, error) {
	if len(codes) != sk.NumJoints() {
		return nil, fmt.Errorf("%d code rows for %d joints", len(codes), sk.NumJoints())
	}
	cc := *c
	cc.Skeleton = sk
	return skinning.Rigid(&cc), nil
}

func TestSkinOnlyKeepsTheSkeleton(t *testing.T) {
	m, err := NewModel(tinyConfig, 12)
	if err != nil {
		t.Fatal(err)
	}
	c := testRig(t)
	r := &ModelRigger{Model: m, Skin: rigidDecoder{}, SkinTokens: true, Seed: 1}
	skin, err := r.SkinOnly(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
		t.Fatal(err)
	}
	// The rigid decoder on the token-order skeleton, mapped back to the original joint
	// indices, must equal rigid weights on the original skeleton.
	want := skinning.Rigid(c)
	for v := range want.Weights {
		if skin.Weights[v][0].Joint != want.Weights[v][0].Joint {
			t.Fatalf("vertex %d: joint %d, want %d", v, skin.Weights[v][0].Joint, want.Weights[v][0].Joint)
		}
	}
	if _, err := (&ModelRigger{Model: m}).SkinOnly(c); err == nil {
		t.Error("skin-only without a skin decoder: no error")
	}
}

// meanDecoder is rigidDecoder that also takes several code sets; it records the
// code sets of its last call.
type meanDecoder struct {
	sets *[][][]int
	mean *bool
}

func (d meanDecoder) Decode(c *assets.Character, sk *assets.Skeleton, codes [][]int) (*assets.Skin, error) {
	*d.sets, *d.mean = [][][]int{codes}, false
	return rigidDecoder{}.Decode(c, sk, codes)
}

func (d meanDecoder) DecodeMean(c *assets.Character, sk *assets.Skeleton, codeSets [][][]int) (*assets.Skin, error) {
	*d.sets, *d.mean = codeSets, true
	return rigidDecoder{}.Decode(c, sk, codeSets[0])
}

// TestSkinOnlySamples checks that skin-only mode draws SkinSamples streams for a
// mean decoder, the first of them the greedy one, each with one code list per
// joint, and that one sample is the greedy stream through Decode.
func TestSkinOnlySamples(t *testing.T) {
	m, err := NewModel(tinyConfig, 12)
	if err != nil {
		t.Fatal(err)
	}
	c := testRig(t)
	nJ := c.Skeleton.NumJoints()
	tests := []struct {
		name    string
		samples int
		temp    float64
	}{
		{"default is greedy", 0, 0},
		{"one", 1, 0},
		{"three", 3, 0},
		{"five hot", 5, 2},
	}
	var greedy string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sets [][][]int
			var mean bool
			r := &ModelRigger{Model: m, Skin: meanDecoder{&sets, &mean}, SkinTokens: true, Seed: 1, SkinSamples: tc.samples, SkinTemperature: tc.temp}
			skin, err := r.SkinOnly(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := skin.Validate(len(c.Mesh.Positions), nJ, 1e-6); err != nil {
				t.Fatal(err)
			}
			if want := max(1, tc.samples); len(sets) != want || mean != (want > 1) {
				t.Fatalf("%d code sets (mean decoder %v), want %d", len(sets), mean, want)
			}
			for s, codes := range sets {
				if len(codes) != nJ {
					t.Fatalf("set %d: %d code lists for %d joints", s, len(codes), nJ)
				}
			}
			if greedy == "" {
				greedy = fmt.Sprint(sets[0])
			} else if fmt.Sprint(sets[0]) != greedy {
				t.Errorf("first stream %v differs from the greedy one %v", sets[0], greedy)
			}
			differ := false
			for _, codes := range sets[1:] {
				differ = differ || fmt.Sprint(codes) != greedy
			}
			if len(sets) > 1 && !differ {
				t.Error("every sampled stream equals the greedy one")
			}
		})
	}
}

// TestRigSkinSamples checks that the full-rig path averages SkinSamples skin streams
// drawn after each sampled skeleton, and that GRPO's reward decodes exactly the
// sampled stream (one code set, no extra streams).
func TestRigSkinSamples(t *testing.T) {
	m, err := NewModel(tinyConfig, 11)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var sets [][][]int
			var mean bool
			r := &ModelRigger{Model: m, Samples: 1, Skin: meanDecoder{&sets, &mean}, SkinTokens: true, Seed: 1, SkinSamples: n}
			c := &assets.Character{Name: "box", Mesh: creatureMesh()}
			rig, info, err := r.Rig(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckRig(rig); err != nil {
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
			RigReward(r)(c, sampleStream(t, r, c))
			if len(sets) != 1 || mean {
				t.Errorf("GRPO reward decoded %d code sets (mean %v), want the sampled stream alone", len(sets), mean)
			}
		})
	}
}

// sampleStream draws one full stream (skeleton and skin tokens) for c's mesh.
func sampleStream(t *testing.T, r *ModelRigger, c *assets.Character) []int {
	t.Helper()
	nm, _ := NormalizedMesh(&c.Mesh)
	rng := rand.New(rand.NewSource(3))
	lat, err := r.Model.Encode(SamplePoints(&nm, r.Model.Cfg.Points, rng))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		t.Fatal(err)
	}
	smp, err := Generate(sess, nil, SampleOptions{Temperature: 1, MaxJoints: r.Model.Cfg.MaxJoint, SkinTokens: r.Model.Cfg.SkinTokensPerJoint()}, rng)
	if err != nil {
		t.Fatal(err)
	}
	return smp.Tokens
}
