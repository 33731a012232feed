package rewards

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/vecmath"
)

// TestCriticRanksJitter: on the capsule man the shipped critic scores the true
// skeleton above copies whose joints moved 10% of the cube at random, and
// weightless joints added to the skeleton change nothing.
func TestCriticRanksJitter(t *testing.T) {
	base := capsuleMan(1, false).character(32)
	p, err := Prepare(&base.Mesh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	truth := criticOf(t, p, base)
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 5; i++ {
		j := base.Clone()
		for k := range j.Skeleton.BindWorld {
			q := j.Skeleton.Position(k).Add(vecmath.RandomUnit(rng).Scale(0.1 / p.Norm.Scale))
			j.Skeleton.BindWorld[k] = withTranslation(j.Skeleton.BindWorld[k], q)
		}
		if got := criticOf(t, p, j); got >= truth {
			t.Errorf("jitter %d: critic %.3f, true skeleton %.3f: want below", i, got, truth)
		}
	}
	extra := base.Clone()
	sk := extra.Skeleton
	sk.Names = append(sk.Names, "ik_target")
	sk.Parents = append(sk.Parents, -1)
	sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{5, 5, 5}))
	if got := criticOf(t, p, extra); math.Abs(got-truth) > 1e-12 {
		t.Errorf("weightless joint added: critic %.6f, want %.6f", got, truth)
	}
}

func criticOf(t *testing.T, p *Prepared, c *character.Character) float64 {
	t.Helper()
	rep, err := p.Score(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Rewards[criticReward]
}

// TestClimbCritic: the random search of the critic hacks raises the critic's
// logit of the capsule man's skeleton and moves its joints, so that the hacks
// test the critic whenever it weighs in the score.
func TestClimbCritic(t *testing.T) {
	c := capsuleMan(1, false).character(32)
	model, err := critic.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(&c.Mesh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(c, p.Norm, Options{}.withDefaults())
	logit := func() float64 {
		pos, parents := deformingJoints(r)
		return model.Logit(critic.Features(p.criticMesh(), pos, parents))
	}
	before := logit()
	start := append([]vecmath.Vec3(nil), r.pos...)
	climbCritic(p, r, model, rand.New(rand.NewSource(1)))
	after := logit()
	moved := 0
	for j := range start {
		if start[j] != r.pos[j] {
			moved++
		}
	}
	if !(after > before) || moved == 0 {
		t.Fatalf("climb: logit %.3f → %.3f, %d joints moved; want a higher logit and moved joints", before, after, moved)
	}
}
