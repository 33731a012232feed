package rewards

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/character"
)

// Score prepares c's mesh and scores its rig. It returns an error only when the mesh
// cannot be scored (empty, non-finite, above Options.MaxTriangles); a broken rig (no
// skeleton, NaN joints, bad weights) gets a report with low or zero rewards and its
// problems listed.
func Score(c *character.Character, opt Options) (*Report, error) {
	var uncached *Cache
	return uncached.Score(c, opt)
}

// Score scores c's rig on the prepared mesh, which must be c's mesh (same vertex and
// triangle counts; positions are not compared). Safe for concurrent use.
func (p *Prepared) Score(c *character.Character, opt Options) (*Report, error) {
	if c == nil {
		return nil, errors.New("score: nil character")
	}
	if !p.matches(&c.Mesh) {
		return nil, fmt.Errorf("score %s: mesh has %d vertices and %d triangles, prepared mesh %d and %d",
			c.Name, len(c.Mesh.Positions), len(c.Mesh.Triangles), len(p.pos), len(p.tris))
	}
	opt = opt.withDefaults()
	rep := &Report{Rewards: map[string]float64{}, Problems: []string{}}
	r := newRig(c, p.Norm, opt)
	if len(r.fatal) > 0 {
		for _, name := range RewardNames {
			rep.Rewards[name] = 0
		}
		rep.Problems = append(rep.Problems, r.fatal...)
		rep.Score = 0 // an unscorable rig scores 0, below every scorable one
		return rep, nil
	}
	var det Details
	phases := []func(){
		func() { rep.Rewards[Containment], det.Containment = p.containment(r) },
		func() { rep.Rewards[Coverage], det.Coverage = p.coverage(r) },
		func() { rep.Rewards[SkinReward], det.Skin = p.skinCompleteness(r) },
		func() { rep.Rewards[Locality], det.Locality = p.locality(r) },
		func() { rep.Rewards[Deformation], det.Deformation = p.deformation(r, p.motion(c, opt), opt) },
		func() { rep.Rewards[Sanity], det.Sanity = p.sanity(r) },
		func() { rep.Rewards[Symmetry], det.Symmetry = p.symmetry(r) },
		func() { rep.Rewards[Limbs], det.Limbs = p.limbs(r) },
		func() { rep.Rewards[criticReward], det.Critic = p.critic(r) },
	}
	for _, phase := range phases {
		if opt.canceled() {
			return nil, fmt.Errorf("score %s: %w", c.Name, ErrCanceled)
		}
		phase()
	}
	if opt.canceled() { // deformation stops between poses; its value is partial
		return nil, fmt.Errorf("score %s: %w", c.Name, ErrCanceled)
	}
	rep.Details = det
	for k, v := range rep.Rewards {
		if math.IsNaN(v) {
			rep.Rewards[k] = 0
		} else {
			rep.Rewards[k] = clamp01(v)
		}
	}
	rep.Score = Combine(rep.Rewards)
	rep.Problems = append(rep.Problems, problems(&det)...)
	return rep, nil
}

// Combine returns the weighted geometric mean of rewards with Weights, each reward
// lifted by a small floor first: Π ((r+ε)/(1+ε))^(w/Σw) with ε = CombineFloor. The
// floor keeps one reward at 0 from erasing what the others say (a rig whose bones
// all lie outside a thin open prop is still better or worse in every other way)
// while a zero still costs a factor of about ε^(w/Σw). Rewards missing from the map
// count as 0.
func Combine(rewards map[string]float64) float64 {
	return CombineWith(rewards, Weights)
}

// CombineWith is Combine with other weights (a reward missing from weights weighs
// 0): what the score would be with a reward left out or re-weighted, as the rank
// agreement's ablations ask. It returns 0 when every weight is 0.
func CombineWith(rewards, weights map[string]float64) float64 {
	sumW, logSum := 0.0, 0.0
	for _, name := range RewardNames {
		w := weights[name]
		v := rewards[name]
		if !(v > 0) {
			v = 0
		}
		v = (math.Min(v, 1) + CombineFloor) / (1 + CombineFloor)
		sumW += w
		logSum += w * math.Log(v)
	}
	if sumW == 0 {
		return 0
	}
	return math.Exp(logSum / sumW)
}

// CombineFloor is the ε of Combine.
const CombineFloor = 1e-3

// problems turns details into short sentences for humans.
func problems(d *Details) []string {
	var out []string
	if c := d.Containment; c != nil {
		for i, b := range c.Outside {
			if i == 5 {
				out = append(out, fmt.Sprintf("containment: %d more bones leave the mesh", len(c.Outside)-5))
				break
			}
			out = append(out, fmt.Sprintf("containment: bone %s→%s is %.0f%% outside the mesh", b.Parent, b.Child, 100*b.OutsideFraction))
		}
	}
	if c := d.Coverage; c != nil {
		for i, pr := range c.Uncovered {
			if i == 5 {
				break
			}
			excused := ""
			if pr.Detail {
				excused = "; small thin detail, not charged"
			}
			out = append(out, fmt.Sprintf("coverage: no bone moving it reaches the protrusion at %s (%.1f%% of the surface, %.2f from joint %s%s)",
				pr.Where, 100*pr.AreaFraction, pr.Distance, pr.NearestJoint, excused))
		}
	}
	if s := d.Skin; s != nil && s.BadVertices > 0 {
		reasons := make([]string, 0, len(s.Reasons))
		for k := range s.Reasons {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		for _, k := range reasons {
			out = append(out, fmt.Sprintf("skin: %d vertices: %s", s.Reasons[k], k))
		}
	}
	if l := d.Locality; l != nil {
		if l.MeanInfluences > freeInfluences {
			out = append(out, fmt.Sprintf("locality: %.1f influences per vertex on average", l.MeanInfluences))
		}
		if l.Distance < 0.7 {
			out = append(out, fmt.Sprintf("locality: weights reach far from their bones (distance factor %.2f)", l.Distance))
		}
		for i, s := range l.Scattered {
			if i == 3 {
				break
			}
			out = append(out, fmt.Sprintf("locality: joint %s's influence is split; %.0f%% lies apart from its main region", s.Joint, 100*s.Value))
		}
	}
	if f := d.Deformation; f != nil {
		if f.RMSStrain > 0.15 {
			out = append(out, fmt.Sprintf("deformation: edges stretch by %.0f%% (RMS) in random poses", 100*f.RMSStrain))
		}
		if f.FlipRate > 0.005 {
			out = append(out, fmt.Sprintf("deformation: %.1f%% of triangles flip in random poses", 100*f.FlipRate))
		}
		if f.VolumeDrift > 0.05 {
			out = append(out, fmt.Sprintf("deformation: volume changes by %.0f%% in random poses", 100*f.VolumeDrift))
		}
		for i, v := range f.WorstVertices {
			if i == 3 {
				break
			}
			out = append(out, fmt.Sprintf("deformation: vertex %d (joint %s) tears: edge strain %.2f", v.Vertex, v.Joint, v.Value))
		}
	}
	if s := d.Sanity; s != nil {
		if s.Joints > s.JointBudget {
			out = append(out, fmt.Sprintf("sanity: %d joints, above the budget of %d for this mesh", s.Joints, s.JointBudget))
		}
		if len(s.ShortBones) > 0 {
			out = append(out, fmt.Sprintf("sanity: %d near-zero-length bones, e.g. %s", len(s.ShortBones), s.ShortBones[0]))
		}
		if len(s.Coincident) > 0 {
			out = append(out, fmt.Sprintf("sanity: %d joints sit on another joint and move the same vertices, e.g. %s", len(s.Coincident), s.Coincident[0]))
		}
		if s.OutsideMass >= CarrierOutsideMass {
			out = append(out, fmt.Sprintf("sanity: the joints carrying %.0f%% of the weight sit outside the mesh (a skeleton built for a wearer?)", 100*s.OutsideMass))
		}
		for i, o := range s.OutsideJoints {
			if i == 3 {
				break
			}
			out = append(out, fmt.Sprintf("sanity: joint %s is %.2f outside the mesh", o.Joint, o.Value))
		}
	}
	return append(out, semanticProblems(d)...)
}

// semanticProblems turns the symmetry and limb details into sentences.
func semanticProblems(d *Details) []string {
	var out []string
	if s := d.Symmetry; s != nil && len(s.Axes) > 0 {
		if s.Asymmetry > symScale/2 {
			out = append(out, fmt.Sprintf("symmetry: the mesh mirrors across %s = 0 but a mirrored joint lies %.2f from the nearest joint on average", strings.Join(s.Axes, ", "), s.Asymmetry))
		}
		for i, b := range s.Crossing {
			if i == 3 {
				break
			}
			out = append(out, fmt.Sprintf("symmetry: bone %s crosses the mirror plane", b))
		}
	}
	if l := d.Limbs; l != nil {
		for i, t := range l.Missed {
			if i == 3 {
				break
			}
			out = append(out, fmt.Sprintf("limbs: no chain reaches the limb ending at %s (%.2f from the nearest moving bone)", t.Where, t.Distance))
		}
		if l.Merged > 0 {
			out = append(out, fmt.Sprintf("limbs: %d pairs of limbs share one chain down their middle (legs merged?)", l.Merged))
		}
	}
	return out
}
