package rewards

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// The semantic rewards judge the skeleton as an animator would: a mirror-symmetric
// character wants a mirror-symmetric skeleton, and every limb wants a chain of its
// own. They see only the moving skeleton (rig.go) and what Prepare found of the
// mesh (shape.go).

const (
	// symScale (cube units): the mass-weighted mean distance from a mirrored joint
	// to the nearest joint that costs a factor 1/e.
	symScale = 0.05
	// symCap (cube units) caps one joint's mirror distance, so that one lost joint
	// costs a bounded share.
	symCap = 0.3
	// crossMargin (cube units): a bone crosses the mirror plane when both its ends
	// lie at least this far from it on opposite sides; each crossing costs
	// crossFactor.
	crossMargin = 0.04
	crossFactor = 0.8
	// limbReachSlack and limbFade (cube units): a tip is reached when its nearest
	// moving bone lies within its limb's thickness plus limbReachSlack, and loses
	// its credit over a further limbFade; a tip not reached costs up to a factor
	// 1-limbMissCost.
	limbReachSlack = 0.2
	limbFade       = 0.25
	limbMissCost   = 0.3
	// Two tips at least mergeMinApart apart whose nearest skeleton points lie
	// within mergeRatio of their distance of each other and within that distance of their midpoint
	// share one chain down their middle (legs merged into one): each such pair
	// costs mergeFactor.
	mergeMinApart = 0.15
	mergeRatio    = 0.4
	mergeFactor   = 0.6
	// mergeCos: the two tips' offsets from their nearest skeleton points must
	// point apart by more than this cosine (about 45°) to count as merged.
	mergeCos = 0.7
)

// symmetry returns how mirror-symmetric the moving skeleton is about each plane
// that mirrors the mesh (shape.go): per plane exp(−a/symScale), a the mass-weighted
// mean over joints with mass of the distance from the mirrored joint to the nearest
// joint with mass (capped at symCap), times crossFactor per bone crossing the
// plane; the planes' factors multiply. A plane whose mirror error exceeds
// symPlaneTol counts less, and not at all beyond symPlaneTol+symPlaneFade (a posed
// or lopsided mesh). Blind to: whether the chains are where the limbs are (limbs
// sees that), joint count on the plane, weights.
func (p *Prepared) symmetry(r *rig) (float64, *SymmetryDetails) {
	det := &SymmetryDetails{MeshError: math.Min(p.shape.symErr[0], p.shape.symErr[1])}
	score := 1.0
	for k, ax := range symAxes {
		trust := clamp01(1 - (p.shape.symErr[k]-symPlaneTol)/symPlaneFade)
		if trust == 0 {
			continue
		}
		det.Axes = append(det.Axes, string("xyz"[ax]))
		asym := mirrorDistance(r, ax)
		det.Asymmetry = math.Max(det.Asymmetry, asym)
		raw := math.Exp(-asym / symScale)
		for _, s := range r.segs {
			if s.child >= 0 && s.a[ax]*s.b[ax] < 0 && math.Abs(s.a[ax]) > crossMargin && math.Abs(s.b[ax]) > crossMargin {
				det.Crossing = append(det.Crossing, fmt.Sprintf("%s→%s", jointName(r, s.owner), jointName(r, s.child)))
				raw *= crossFactor
			}
		}
		score *= 1 - trust*(1-raw)
	}
	return score, det
}

// mirrorDistance is the mass-weighted mean over joints with mass of the distance
// from the joint mirrored across the plane normal to axis ax to the nearest joint
// with mass, each capped at symCap.
func mirrorDistance(r *rig, ax int) float64 {
	var sum, mass float64
	for j, m := range r.mass {
		if m <= 0 {
			continue
		}
		q := r.pos[j]
		q[ax] = -q[ax]
		best := symCap
		for k, mk := range r.mass {
			if mk > 0 {
				best = math.Min(best, q.Dist(r.pos[k]))
			}
		}
		sum += m * best
		mass += m
	}
	if mass == 0 {
		return 0
	}
	return sum / mass
}

// limbs returns how completely the skeleton reaches the mesh's limbs: per limb tip
// (shape.go) a factor 1−limbMissCost·(1−credit), credit 1 when the nearest bone of
// a moving joint (limbReach, leaf bones included: a head joint reaches the top of
// the head) lies within the limb's thickness plus limbReachSlack and 0 beyond a
// further limbFade, times mergeFactor per pair of tips served by one chain between
// them and lying on either side of it (two legs merged into one; apart). The
// pairs are judged on the joints' own bones, leaf joints as points: one head bone
// reaching both horns of a helmet is not two legs merged. Blind to: detail too short or thick to be a limb, joint placement
// inside a limb, weights beyond which bones move.
func (p *Prepared) limbs(r *rig) (float64, *LimbDetails) {
	det := &LimbDetails{Tips: len(p.shape.tips)}
	if len(r.segs) == 0 {
		return 0, det
	}
	near := make([]vecmath.Vec3, len(p.shape.tips))
	reached := make([]bool, len(p.shape.tips))
	leaves := leafEnds(p.bones(r))
	score := 1.0
	for i, t := range p.shape.tips {
		var d, strict float64
		strict, near[i] = r.limbReach(t, nil)
		reached[i] = limbCredit(t, strict) > 0.5
		d, _ = r.limbReach(t, leaves)
		credit := limbCredit(t, d)
		if credit < 1 {
			det.Missed = append(det.Missed, LimbTip{Where: whereWords(t.p), Cube: t.p, Distance: d})
		}
		score *= 1 - limbMissCost*(1-credit)
	}
	for i := range p.shape.tips {
		for k := i + 1; k < len(p.shape.tips); k++ {
			a, b := p.shape.tips[i].p, p.shape.tips[k].p
			e := a.Dist(b)
			mid := a.Add(b).Scale(0.5)
			qm := near[i].Add(near[k]).Scale(0.5)
			if reached[i] && reached[k] && e >= mergeMinApart && near[i].Dist(near[k]) < mergeRatio*e && qm.Dist(mid) < e &&
				apart(a.Sub(near[i]), b.Sub(near[k])) {
				det.Merged++
				score *= mergeFactor
			}
		}
	}
	return score, det
}

// apart reports whether two tips' offsets from their nearest skeleton points
// point apart (cosine under mergeCos): two legs merged into one chain lie on
// either side of it, while a hand's thumb and fingers, or two horns, both reach
// on beyond the joint they share.
func apart(u, v vecmath.Vec3) bool {
	lu, lv := u.Len(), v.Len()
	return lu == 0 || lv == 0 || u.Dot(v) < mergeCos*lu*lv
}

// limbCredit is a tip's reach credit at distance d from the nearest moving bone:
// 1 within its limb's thickness plus limbReachSlack, 0 beyond a further limbFade.
func limbCredit(t limbTip, d float64) float64 {
	return clamp01(1 - (d-t.thickness-limbReachSlack)/limbFade)
}

// closest returns the point of the segment nearest to p.
func (s *segment) closest(p vecmath.Vec3) vecmath.Vec3 {
	t := p.Sub(s.a).Dot(s.ab) * s.inv
	return s.a.Add(s.ab.Scale(math.Max(0, math.Min(1, t))))
}

// limbReach returns the distance from tip t to the nearest bone of a joint that
// moves the mesh (the heaviest influence of some vertex, so a decoy taking a share
// of weight reaches nothing), bones to weightless children included (a sleeve's
// forearm bone reaches the cuff though no hand vertex is in the mesh), and the
// nearest point on it (+Inf and the tip itself when no joint moves). A joint
// without children is its leaf bone when leaves has one (leaf.go: a head joint
// reaches the top of the head), else its point. Which joint moves the tip does
// not enter, so rigid weights cannot bring a bone nearer.
func (r *rig) limbReach(t limbTip, leaves map[int]segment) (float64, vecmath.Vec3) {
	best, at := math.Inf(1), t.p
	for j, moves := range r.moves {
		if !moves {
			continue
		}
		if len(r.children[j]) == 0 {
			leaf, ok := leaves[j]
			if !ok {
				leaf = newSegment(r.pos[j], r.pos[j], j, -1)
			}
			if q := leaf.closest(t.p); t.p.Dist(q) < best {
				best, at = t.p.Dist(q), q
			}
		}
		for _, c := range r.children[j] {
			s := newSegment(r.pos[j], r.pos[c], j, c)
			if q := s.closest(t.p); t.p.Dist(q) < best {
				best, at = t.p.Dist(q), q
			}
		}
	}
	return best, at
}

// SymmetryDetails say how the skeleton breaks the mesh's mirror symmetry.
type SymmetryDetails struct {
	// Axes are the normal axes ("x", "z") of the planes the mesh mirrors across;
	// none when it is not symmetric enough to judge.
	Axes []string `json:"axes,omitempty"`
	// MeshError is the least mean distance (cube units) from mirrored surface
	// samples to the surface.
	MeshError float64 `json:"mesh_error"`
	// Asymmetry is the mass-weighted mean distance from a mirrored joint to the
	// nearest joint, the largest over the planes.
	Asymmetry float64 `json:"asymmetry"`
	// Crossing lists the bones crossing the mirror plane.
	Crossing []string `json:"crossing,omitempty"`
}

// LimbDetails say which limb tips no chain reaches and how many tip pairs share
// one chain.
type LimbDetails struct {
	Tips   int       `json:"tips"`
	Missed []LimbTip `json:"missed,omitempty"`
	Merged int       `json:"merged"`
}

// LimbTip is a limb end that no moving bone reaches.
type LimbTip struct {
	Where    string       `json:"where"`
	Cube     vecmath.Vec3 `json:"cube"`
	Distance float64      `json:"distance"` // to the nearest moving bone, cube units
}
