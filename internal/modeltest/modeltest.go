// Package modeltest holds what the model's tests share: a tiny model configuration,
// a small rigged creature built in code, and deterministic skin codes, so that the
// sampler's and the trainer's tests run on the same inputs in milliseconds.
package modeltest

import (
	"fmt"
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

// SkeletonOfSize returns a skeleton of n joints made from sk (parents before
// children): its first n joints when n is at most sk's count, else sk with joints
// inserted at the midpoints of its longest bones until it has n, so that skin
// tests reach any joint count on a real mesh. sk needs a bone (two joints) to grow.
func SkeletonOfSize(t testing.TB, sk *character.Skeleton, n int) *character.Skeleton {
	t.Helper()
	if n < 1 {
		t.Fatalf("SkeletonOfSize: %d joints", n)
	}
	if n <= sk.NumJoints() {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return sk.Select(idx)
	}
	out := sk.Clone()
	for out.NumJoints() < n {
		c := longestBone(out)
		if c < 0 {
			t.Fatalf("SkeletonOfSize: a skeleton of %d joints has no bone to split", out.NumJoints())
		}
		out = splitBone(out, c)
	}
	return out
}

// longestBone is the child joint of sk's longest bone, or -1 without bones.
func longestBone(sk *character.Skeleton) int {
	best, bestLen := -1, -1.0
	for j, p := range sk.Parents {
		if p < 0 {
			continue
		}
		if l := sk.Position(j).Sub(sk.Position(p)).Len(); l > bestLen {
			best, bestLen = j, l
		}
	}
	return best
}

// splitBone inserts a joint at the midpoint of the bone from c's parent to c, just
// before c in index order so that parents still come first.
func splitBone(sk *character.Skeleton, c int) *character.Skeleton {
	p := sk.Parents[c]
	mid := sk.BindWorld[c]
	m := sk.Position(p).Add(sk.Position(c)).Scale(0.5)
	mid[12], mid[13], mid[14] = m[0], m[1], m[2]
	out := &character.Skeleton{}
	for j := range sk.Names {
		shift := func(q int) int {
			if q >= c {
				return q + 1
			}
			return q
		}
		if j == c {
			out.Names = append(out.Names, fmt.Sprintf("%s_split%d", sk.Names[c], len(sk.Names)))
			out.Parents = append(out.Parents, p)
			out.BindWorld = append(out.BindWorld, mid)
		}
		parent := sk.Parents[j]
		switch {
		case j == c:
			parent = c // the inserted joint, at index c
		case parent >= 0:
			parent = shift(parent)
		}
		out.Names = append(out.Names, sk.Names[j])
		out.Parents = append(out.Parents, parent)
		out.BindWorld = append(out.BindWorld, sk.BindWorld[j])
	}
	return out
}
