package sampler

import (
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// tinyConfig is a model small enough for tests.
var tinyConfig = rigmodel.Config{DModel: 16, Layers: 2, Heads: 2, Latents: 4, Points: 24, Fourier: 2,
	MaxSeq: 264, Vocab: tokens.VocabSize, MaxJoint: 32}

// testRig is a small rigged quadruped built in code (classical skeleton, rigid skin).
func testRig(t testing.TB) *character.Character {
	t.Helper()
	m := synth.BoxQuadruped()
	opt := classical.Options{MaxJoints: min(classical.DefaultMaxJoints, rewards.JointBudget(len(m.Positions)))}
	c, _, err := classical.Rigger{Options: opt}.Rig(&character.Character{Name: "box_quadruped", Mesh: m})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
