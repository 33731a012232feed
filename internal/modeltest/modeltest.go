// Package modeltest holds what the model's tests share: a tiny model configuration,
// a small rigged creature built in code, and deterministic skin codes, so that the
// sampler's and the trainer's tests run on the same inputs in milliseconds.
package modeltest

import (
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// TinyConfig is a model small enough for tests.
var TinyConfig = rigmodel.Config{DModel: 16, Layers: 2, Heads: 2, Latents: 4, Points: 24, Fourier: 2,
	MaxSeq: 264, Vocab: tokens.VocabSize, MaxJoint: 32}

// Rig is a small rigged quadruped built in code (classical skeleton, rigid skin).
func Rig(t testing.TB) *character.Character {
	t.Helper()
	m := synth.BoxQuadruped()
	opt := classical.Options{MaxJoints: min(classical.DefaultMaxJoints, rewards.JointBudget(len(m.Positions)))}
	c, _, err := classical.Rigger{Options: opt}.Rig(&character.Character{Name: "box_quadruped", Mesh: m})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FakeSkin makes deterministic skin codes, k per joint (0: the tiny model's K), from
// each joint's token-order index and a seed.
type FakeSkin struct{ Seed, KPerJoint int }

// K is the number of codes per joint.
func (f FakeSkin) K() int {
	if f.KPerJoint > 0 {
		return f.KPerJoint
	}
	return TinyConfig.K()
}

// EncodeSkin returns the codes of every joint in order.
func (f FakeSkin) EncodeSkin(c *character.Character, order tokens.Order) ([][]int, error) {
	codes := make([][]int, len(order))
	for j := range codes {
		for k := 0; k < f.K(); k++ {
			codes[j] = append(codes[j], (j*7+k*31+f.Seed)%tokens.SkinCodebookSize)
		}
	}
	return codes, nil
}
