package eval

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/synth"
)

// truthRigger returns the ground truth's own skeleton: every skeleton distance is 0.
type truthRigger struct{ gt *character.Character }

func (r truthRigger) Rig(c *character.Character) (*character.Character, *autorig.RigInfo, error) {
	out := r.gt.Clone()
	return out, &autorig.RigInfo{Method: "truth"}, nil
}

// failRigger always fails.
type failRigger struct{}

func (failRigger) Rig(*character.Character) (*character.Character, *autorig.RigInfo, error) {
	return nil, nil, errors.New("no rig")
}

func TestRigs(t *testing.T) {
	gt, err := synth.Generate("quadruped", 2, synth.Options{TargetVertices: 600})
	if err != nil {
		t.Fatal(err)
	}
	load := func(path string) (*character.Character, error) {
		if path == "missing.glb" {
			return nil, errors.New("no such file")
		}
		return gt.Clone(), nil
	}
	items := []dataset.BatchItem{{Path: "a.glb", Name: "a"}, {Path: "missing.glb", Name: "missing"}}
	fam := map[string]dataset.File{"a.glb": {Family: "fam/a"}, "missing.glb": {Family: "fam/missing"}}
	rep := compareRigs(items, fam, load, map[string]autorig.Rigger{"truth": truthRigger{gt}, "fail": failRigger{}}, nil)
	if len(rep.Rows) != 4 {
		t.Fatalf("%d rows, want 2 items × 2 methods", len(rep.Rows))
	}
	truth, fail := rep.Summary["truth"], rep.Summary["fail"]
	if truth.Assets != 2 || truth.Failed != 1 || truth.Valid != 1 || truth.CDJ2J != 0 || truth.PredJoints != truth.GTJoints {
		t.Errorf("truth summary %+v, want one valid asset at distance 0 and one failure", truth)
	}
	if fail.Failed != 2 {
		t.Errorf("fail summary %+v, want 2 failures", fail)
	}
	// Each reward version's mean is its combination of the scored row's rewards;
	// the current version's is the score itself.
	var scored Row
	for _, r := range rep.Rows {
		if r.Method == "truth:truth" && r.Rewards != nil {
			scored = r
		}
	}
	if scored.Rewards == nil {
		t.Fatalf("no scored row with rewards in %+v", rep.Rows)
	}
	for _, v := range rewards.RewardVersions() {
		w, _ := rewards.WeightsFor(v)
		if got, want := truth.VersionScores[v], rewards.CombineWith(scored.Rewards, w); math.Abs(got-want) > 1e-12 {
			t.Errorf("version %s mean score %v, want %v", v, got, want)
		}
	}
	if got := truth.VersionScores[fmt.Sprintf("v%d", rewards.RewardVersion)]; math.Abs(got-truth.Score) > 1e-12 {
		t.Errorf("the current version's mean score %v, the score's %v", got, truth.Score)
	}
	md := rep.Markdown()
	for _, want := range []string{"truth", "fail", "v3 ", "v4 "} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown report lacks %q:\n%s", want, md)
		}
	}
}
