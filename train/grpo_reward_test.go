package train

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// TestGRPORewardCombination checks that the reward GRPO turns into advantages is
// the chosen combination of the rewards of exactly the decoded stream: the
// artist-like skeleton of a synthetic biped, written as a stream, scores under
// each spec what rewards.CombineWith gives for that rig's rewards, the current
// weights give the report's own score, and different weights give different
// scores (so that ignoring the spec would fail).
func TestGRPORewardCombination(t *testing.T) {
	c, norm, stream := bipedStream(t)
	gen := &sampler.Generator{} // no skin tokens: the rig is skinned by geodesic binding
	rig, _, err := gen.Decode(c, norm, stream, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rewards.Score(rig, rewards.Options{Motion: animation.ClipPoses})
	if err != nil || rep.Score <= 0 {
		t.Fatalf("the truth's rig: %v, score %v", err, rep)
	}
	mesh := &character.Character{Name: c.Name, Mesh: c.Mesh}
	got := map[string]float64{}
	for _, spec := range []string{"", "v5", "v4", "v3", "coverage=1", "symmetry=2,limbs=1", "deformation=1"} {
		var g rigmodel.GRPOState
		w, err := grpoRewardWeights(&g, spec)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		reward := cachedRigReward(gen, w, nil)
		r := reward(mesh, stream)
		got[spec] = r.Score
		if want := rewards.CombineWith(rep.Rewards, w); math.Abs(got[spec]-want) > 1e-12 {
			t.Errorf("reward %q: GRPO sees %v, the rig's rewards combine to %v", spec, got[spec], want)
		}
		if want := SkinScore(rep.Rewards, w); math.Abs(r.Skin-want) > 1e-12 {
			t.Errorf("reward %q: GRPO's skin score %v, the rig's skin rewards combine to %v", spec, r.Skin, want)
		}
		if g.Reward != spec {
			t.Errorf("reward %q recorded as %q", spec, g.Reward)
		}
		// A stream that decodes to no rig scores 0 under any weights.
		if bad := reward(mesh, []int{tokens.BOS, tokens.SEP}); bad != (Reward{}) {
			t.Errorf("reward %q: an unscorable stream scores %v", spec, bad)
		}
	}
	if math.Abs(got[""]-rep.Score) > 1e-12 || got["v5"] != got[""] {
		t.Errorf("the current weights give %v (v5 %v), the report's score %v", got[""], got["v5"], rep.Score)
	}
	if got["coverage=1"] == got["deformation=1"] {
		t.Errorf("coverage alone and deformation alone score the rig alike (%v): the weights do not reach the reward", got["coverage=1"])
	}
}

// TestGRPORewardSpecRecordedAndKept checks that a run records the reward it
// optimizes in its checkpoint, that a resumed run may name the same weights
// another way but not other weights, and that a bad spec fails before training.
func TestGRPORewardSpecRecordedAndKept(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.glb"), []byte("x"), 0o644)
	chars := map[string]*character.Character{"a.glb": {Name: "a.glb", Mesh: synth.BoxQuadruped()}}
	m0, err := rigmodel.NewModel(modeltest.TinyConfig, 5)
	if err != nil {
		t.Fatal(err)
	}
	init := filepath.Join(t.TempDir(), "init.safetensors")
	if err := SaveCheckpointFile(init, m0, &rigmodel.TrainState{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "grpo.safetensors")
	opt := GRPOOptions{Init: init, Out: out, Seed: 1,
		Data:     GRPOData{Inputs: []string{dir}, AllFiles: true, Load: memLoad(chars)},
		Schedule: GRPOSchedule{Steps: 1, Meshes: 1, Group: 2, LR: 1e-3},
		Policy:   GRPOPolicy{Reward: "v3"}}
	if _, err := GRPO(opt); err != nil {
		t.Fatal(err)
	}
	_, st, err := rigmodel.LoadCheckpointFile(out)
	if err != nil || st.GRPO == nil || st.GRPO.Reward != "v3" {
		t.Fatalf("checkpoint %v: %+v", err, st.GRPO)
	}
	tests := []struct {
		name, spec, err string
	}{
		{"other weights refused", "v4", "optimized reward v3"},
		{"a bad spec refused", "coverage=-1", "finite weight"},
		{"the same weights written out", "containment=1,coverage=3,skin=1,locality=3,deformation=2,sanity=2", ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := opt
			o.Resume, o.Schedule.Steps, o.Policy.Reward = true, 2+i, tc.spec
			_, err := GRPO(o)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("resume with %q: %v", tc.spec, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("resume with %q: error %v, want one with %q", tc.spec, err, tc.err)
			}
		})
	}
}

// TestGRPORewardNames checks that GRPO scores the rig its namer returns, not the
// decoded one, and the decoded rig where the namer fails.
func TestGRPORewardNames(t *testing.T) {
	c, _, stream := bipedStream(t)
	gen := &sampler.Generator{}
	mesh := &character.Character{Name: c.Name, Mesh: c.Mesh}
	plain := cachedRigReward(gen, rewards.Weights, nil)(mesh, stream)
	var renamed *character.Character
	rename := func(m, rig *character.Character) (*character.Character, error) {
		if m != mesh {
			t.Errorf("namer called with another mesh")
		}
		out := rig.Clone() // a rig that scores otherwise: every vertex on the root
		for v := range out.Skin.Weights {
			out.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1}}
		}
		renamed = out
		return out, nil
	}
	named := cachedRigReward(gen, rewards.Weights, rename)(mesh, stream)
	if renamed == nil {
		t.Fatal("the namer was not called")
	}
	rep, err := rewards.Score(renamed, rewards.Options{Motion: animation.ClipPoses})
	if err != nil || math.Abs(named.Score-rep.Score) > 1e-12 || named.Score == plain.Score {
		t.Errorf("named rig: GRPO sees %v, the namer's rig scores %v (%v), the decoded one %v", named.Score, rep, err, plain.Score)
	}
	failing := func(m, rig *character.Character) (*character.Character, error) { return nil, errors.New("no template") }
	if got := cachedRigReward(gen, rewards.Weights, failing)(mesh, stream); got != plain {
		t.Errorf("a failing namer: GRPO sees %v, want the decoded rig's %v", got, plain)
	}
}

// bipedStream is a synthetic biped, its mesh's normalization and its artist-like
// skeleton written as a stream.
func bipedStream(t *testing.T) (*character.Character, character.Normalization, []int) {
	t.Helper()
	c, err := synth.Generate("biped", 1, synth.Options{TargetVertices: 800})
	if err != nil {
		t.Fatal(err)
	}
	_, norm := rigmodel.NormalizedMesh(&c.Mesh)
	stream, _, err := tokens.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		t.Fatal(err)
	}
	return c, norm, stream
}
