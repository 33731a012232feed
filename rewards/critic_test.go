package rewards

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestDefaultCritic: the shipped critic parses, fits every feature it names and
// says what it was trained on.
func TestDefaultCritic(t *testing.T) {
	c, err := DefaultCritic()
	if err != nil {
		t.Fatal(err)
	}
	nonzero := 0
	for _, w := range c.Weights {
		if w != 0 {
			nonzero++
		}
	}
	if nonzero == 0 || c.Training.Characters == 0 || c.Training.Pairs == 0 || c.Training.Command == "" {
		t.Fatalf("critic: %d nonzero weights, training %+v: want a fitted critic with its provenance", nonzero, c.Training)
	}
}

// TestParseCriticRejects: a critic file that does not match the features or
// holds non-finite numbers is refused.
func TestParseCriticRejects(t *testing.T) {
	tests := []struct{ name, json string }{
		{"not json", `{`},
		{"wrong features", `{"features": ["a"], "mean": [0], "scale": [1], "weights": [1]}`},
		{"short arrays", `{"features": ` + namesJSON() + `, "mean": [0], "scale": [1], "weights": [1]}`},
	}
	for _, tc := range tests {
		if _, err := ParseCritic([]byte(tc.json)); err == nil {
			t.Errorf("%s: parsed", tc.name)
		}
	}
	c, _ := DefaultCritic()
	bad := *c
	bad.Scale = append([]float64(nil), c.Scale...)
	bad.Scale[0] = 0
	if _, err := ParseCritic(mustJSON(t, bad)); err == nil {
		t.Error("zero scale: parsed")
	}
}

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
	return rep.Rewards[CriticReward]
}

func namesJSON() string {
	b, _ := json.Marshal(CriticFeatureNames)
	return string(b)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestClimbCritic: the random search of the critic hacks raises the critic's
// logit of the capsule man's skeleton and moves its joints, so that the hacks
// test the critic whenever it weighs in the score.
func TestClimbCritic(t *testing.T) {
	c := capsuleMan(1, false).character(32)
	critic, err := DefaultCritic()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(&c.Mesh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(c, p.Norm, Options{}.withDefaults())
	before := critic.Logit(p.criticFeatures(deformingJoints(r)))
	start := append([]vecmath.Vec3(nil), r.pos...)
	climbCritic(p, r, critic, rand.New(rand.NewSource(1)))
	after := critic.Logit(p.criticFeatures(deformingJoints(r)))
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
