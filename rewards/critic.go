package rewards

import (
	"errors"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/vecmath"
)

// CriticFeatures returns the critic's features (critic.FeatureNames) of sk on
// the prepared mesh, as the critic reward computes them; `rig train-critic`
// fits the critic on them. It errs on a skeleton the rewards cannot read (no
// joints, a parent after its child, a non-finite or singular bind matrix).
func (p *Prepared) CriticFeatures(sk *character.Skeleton) ([]float64, error) {
	if sk == nil || sk.NumJoints() == 0 || len(sk.Parents) != sk.NumJoints() || len(sk.BindWorld) != sk.NumJoints() {
		return nil, errors.New("critic features: no usable skeleton")
	}
	r := &rig{}
	if !r.readSkeleton(sk, p.Norm) {
		return nil, errors.New("critic features: " + r.fatal[0])
	}
	return critic.Features(p.criticMesh(), r.pos, r.parents), nil
}

func (p *Prepared) criticMesh() critic.Mesh { return critic.Mesh{BVH: p.bvh, Winding: p.wn} }

// critic scores the rig's deforming skeleton by the shipped critic (1 when none
// loads, so that a broken build does not zero every rig; critic.TestShipped
// fails then).
func (p *Prepared) critic(r *rig) (float64, *critic.Details) {
	c, err := critic.Shipped()
	if err != nil {
		return 1, nil
	}
	pos, parents := deformingJoints(r)
	f := critic.Features(p.criticMesh(), pos, parents)
	return c.Score(f), c.Explain(f)
}

// deformingJoints is the rig's skeleton without the joints that neither carry
// weight nor lead to one that does (IK targets, helper leaves), the skeleton
// the critic was fitted on: joints that move nothing neither help nor hurt it.
func deformingJoints(r *rig) ([]vecmath.Vec3, []int) {
	kept, parents := deformingSubset(r)
	return gather(r.pos, kept), parents
}

// deformingSubset lists the joints deformingJoints keeps, in order, with their
// parents among them; every joint when none carries weight.
func deformingSubset(r *rig) (kept, parents []int) {
	n := len(r.pos)
	keep := make([]bool, n)
	for j := n - 1; j >= 0; j-- { // children after parents
		keep[j] = keep[j] || r.mass[j] > 0
		if p := r.parents[j]; keep[j] && p >= 0 {
			keep[p] = true
		}
	}
	index := make([]int, n)
	for j := 0; j < n; j++ {
		index[j] = -1
		if !keep[j] {
			continue
		}
		index[j] = len(kept)
		p := r.parents[j] // kept, as every kept joint's parent is
		if p >= 0 {
			p = index[p]
		}
		kept, parents = append(kept, j), append(parents, p)
	}
	if len(kept) == 0 {
		for j := range r.pos {
			kept = append(kept, j)
		}
		return kept, r.parents
	}
	return kept, parents
}

// gather returns pos[k] for every k of idx.
func gather(pos []vecmath.Vec3, idx []int) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(idx))
	for i, k := range idx {
		out[i] = pos[k]
	}
	return out
}
