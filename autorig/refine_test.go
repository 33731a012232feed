package autorig

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// fixedRigger returns a copy of its rig with its method.
type fixedRigger struct {
	rig    *character.Character
	method string
}

func (f fixedRigger) Rig(*character.Character) (*character.Character, *RigInfo, error) {
	out := *f.rig
	score := 0.8
	return &out, &RigInfo{Method: f.method, Score: &score}, nil
}

// twoJointRig is a two-vertex character: vertex 0 on joint 0, vertex 1 on joint 1.
func twoJointRig() *character.Character {
	return &character.Character{
		Mesh:     character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}}},
		Skeleton: &character.Skeleton{Names: []string{"a", "b"}, Parents: []int{-1, 0}},
		Skin:     &character.Skin{Weights: [][]character.Influence{{{Joint: 0, Weight: 1}}, {{Joint: 1, Weight: 1}}}},
	}
}

// evenSkin splits every vertex evenly between the two joints.
func evenSkin(c *character.Character) (*character.Skin, error) {
	w := make([][]character.Influence, len(c.Skin.Weights))
	for v := range w {
		w[v] = []character.Influence{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}
	}
	return &character.Skin{Weights: w}, nil
}

func TestRefinedSkin(t *testing.T) {
	broken := func(*character.Character) (*character.Skin, error) { return nil, errors.New("no solve") }
	for _, tc := range []struct {
		name       string
		method     string
		dense      func(*character.Character) (*character.Skin, error)
		share      float64
		maxVerts   int
		wantMethod string
		wantW00    float64 // vertex 0's weight on joint 0
		warned     bool
	}{
		{"model rig", "tokenrig", evenSkin, 0.3, 0, "tokenrig+even@0.3", 0.3 + 0.7*0.5, false},
		{"classical skeleton, token skin", "classical-skeleton+tokens", evenSkin, 0.3, 0, "classical-skeleton+tokens+even@0.3", 0.65, false},
		{"geodesic fallback untouched", "classical-skeleton+geodesic", evenSkin, 0.3, 0, "classical-skeleton+geodesic", 1, false},
		{"share 1 keeps the tokens", "copilot+tokens", evenSkin, 1, 0, "copilot+tokens", 1, false},
		{"failed refinement keeps the tokens", "copilot+tokens", broken, 0.3, 0, "copilot+tokens", 1, true},
		{"mesh above the limit keeps the tokens", "tokenrig", evenSkin, 0.3, 1, "tokenrig", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := RefinedSkin{Rigger: fixedRigger{twoJointRig(), tc.method}, Dense: tc.dense, DenseName: "even", Share: tc.share, MaxVertices: tc.maxVerts}
			out, info, err := r.Rig(&character.Character{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Method != tc.wantMethod {
				t.Errorf("method %q, want %q", info.Method, tc.wantMethod)
			}
			var w00 float64
			for _, in := range out.Skin.Weights[0] {
				if in.Joint == 0 {
					w00 = in.Weight
				}
			}
			if math.Abs(w00-tc.wantW00) > 1e-9 {
				t.Errorf("vertex 0 weighs %g on joint 0, want %g", w00, tc.wantW00)
			}
			if refined := info.Method != tc.method; refined != (info.Score == nil) {
				t.Errorf("refined %v but score kept %v: the refined rig must be scored again", refined, info.Score != nil)
			}
			if warned := len(info.Warnings) > 0 && strings.Contains(info.Warnings[0], "kept as decoded"); warned != tc.warned {
				t.Errorf("warnings %q, want a refinement warning %v", info.Warnings, tc.warned)
			}
		})
	}
}
