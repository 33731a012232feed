package sampler

import (
	"fmt"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skinning"
)

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

func TestSkinOnlyKeepsTheSkeleton(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 12)
	if err != nil {
		t.Fatal(err)
	}
	c := modeltest.Rig(t)
	r := &Generator{Model: m, Skin: rigidDecoder{}, SkinMode: SkinFromTokens, Seed: 1}
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
	if _, err := (&Generator{Model: m}).SkinOnly(c); err == nil {
		t.Error("skin-only without a skin decoder: no error")
	}
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

// TestSkinOnlySamples checks that skin-only mode draws SkinSamples streams for a
// mean decoder, the first of them the greedy one, each with one code list per
// joint, and that one sample is the greedy stream through Decode.
func TestSkinOnlySamples(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 12)
	if err != nil {
		t.Fatal(err)
	}
	c := modeltest.Rig(t)
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
			r := &Generator{Model: m, Skin: meanDecoder{&sets, &mean}, SkinMode: SkinFromTokens, Seed: 1, SkinSamples: tc.samples, SkinTemperature: tc.temp}
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
