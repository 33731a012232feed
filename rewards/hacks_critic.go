package rewards

import (
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/vecmath"
)

// Hacks aimed at the learned critic: skeletons optimized against it by random
// search, weights kept. The critic learned what artists' skeletons look like
// from examples; a search that climbs it alone finds what it over-rewards, and
// the other rewards must still put the true rig above the result. They apply
// only while the critic weighs in the score (Weights): at weight 0 a climb is a
// random walk of the joints, which the jitter candidates of the skeleton
// ranking already measure.

// criticHacks are appended to Hacks.
var criticHacks = []Hack{
	{Name: "critic_climb", Doc: "the true joints moved by random search (one joint, a step of 0.05, kept when the critic's logit rises; 300 steps) to please the learned critic alone; weights kept", Build: criticClimb(0), MovesSkeleton: true, CharactersOnly: true},
	{Name: "critic_climb_jitter", Doc: "every true joint moved 0.2 (a tenth of the cube) in a random direction, then the same random search against the critic; weights kept", Build: criticClimb(0.2), MovesSkeleton: true, CharactersOnly: true},
}

func init() { Hacks = append(Hacks, criticHacks...) }

// criticClimbSteps and criticClimbStep (cube units) bound the search.
const (
	criticClimbSteps = 300
	criticClimbStep  = 0.05
)

// criticClimb returns a hack that moves every joint by jitter (cube units) in
// a seeded random direction and then climbs the critic's logit by moving one
// joint at a time. It needs a shipped critic that weighs in the score and two
// joints.
func criticClimb(jitter float64) func(c *character.Character, seed int64) (*character.Character, bool) {
	return func(c *character.Character, seed int64) (*character.Character, bool) {
		model, err := critic.Shipped()
		if err != nil || Weights[criticReward] == 0 || !rigged(c) || c.Skeleton.NumJoints() < 2 {
			return nil, false
		}
		p, err := Prepare(&c.Mesh, Options{Seed: seed})
		if err != nil {
			return nil, false
		}
		r := newRig(c, p.Norm, Options{}.withDefaults())
		if len(r.fatal) > 0 {
			return nil, false
		}
		rng := rand.New(rand.NewSource(seed))
		for j := range r.pos { // r.pos is the rig's own copy of the joints
			r.pos[j] = r.pos[j].Add(vecmath.RandomUnit(rng).Scale(jitter))
		}
		climbCritic(p, r, model, rng)
		h := c.Clone()
		for j := range h.Skeleton.BindWorld {
			h.Skeleton.BindWorld[j] = withTranslation(h.Skeleton.BindWorld[j], p.Norm.InversePoint(r.pos[j]))
		}
		return h, true
	}
}

// climbCritic moves r's joints, one at a time by a random step, keeping each
// move that raises the critic's logit of the deforming joints.
func climbCritic(p *Prepared, r *rig, model *critic.Model, rng *rand.Rand) {
	kept, parents := deformingSubset(r) // the weights, and so the subset, stay
	logit := func() float64 {
		return model.Logit(critic.Features(p.criticMesh(), gather(r.pos, kept), parents))
	}
	best := logit()
	for step := 0; step < criticClimbSteps; step++ {
		j := rng.Intn(len(r.pos))
		old := r.pos[j]
		r.pos[j] = old.Add(vecmath.RandomUnit(rng).Scale(criticClimbStep * rng.Float64()))
		if l := logit(); l > best {
			best = l
		} else {
			r.pos[j] = old
		}
	}
}
