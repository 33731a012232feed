package metrics

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// BoneSamples is the number of points sampled on each bone for CD-B2B.
const BoneSamples = 100

// SkeletonResult holds the skeleton metrics of one asset in normalized units
// (papers report the distances ×10⁻²).
type SkeletonResult struct {
	// CDJ2J is the symmetric Chamfer distance between the joint sets.
	CDJ2J float64 `json:"cd_j2j"`
	// CDJ2B is the symmetric mean distance from the joints of one skeleton to the bone
	// segments of the other.
	CDJ2B float64 `json:"cd_j2b"`
	// CDB2B is the symmetric Chamfer distance between bone segments sampled at
	// BoneSamples points each.
	CDB2B      float64 `json:"cd_b2b"`
	GTJoints   int     `json:"gt_joints"`
	PredJoints int     `json:"pred_joints"`
}

// SkeletonMetrics compares two skeletons given in world space after mapping both
// with norm (ground truth's normalization, assets.NormalizationOf(gt.Mesh)). A bone is
// the segment from a joint to its parent; a skeleton with no bones counts each joint
// as a point bone.
func SkeletonMetrics(gt, pred *character.Skeleton, norm character.Normalization) SkeletonResult {
	r := SkeletonResult{GTJoints: gt.NumJoints(), PredJoints: pred.NumJoints()}
	if r.GTJoints == 0 || r.PredJoints == 0 {
		inf := math.Inf(1)
		r.CDJ2J, r.CDJ2B, r.CDB2B = inf, inf, inf
		return r
	}
	ja, jb := joints(gt, norm), joints(pred, norm)
	ba, bb := bones(gt, ja), bones(pred, jb)
	r.CDJ2J = Chamfer(ja, jb) // JointChamfer's

	r.CDJ2B = (meanToSegments(ja, bb) + meanToSegments(jb, ba)) / 2
	r.CDB2B = Chamfer(sampleBones(ba), sampleBones(bb))
	return r
}

// JointChamfer is SkeletonMetrics' CD-J2J alone, without the bone samples of
// CD-B2B that cost seconds on dense skeletons: what ranking many candidates
// against one artist's skeleton needs. It is +Inf when either has no joint.
func JointChamfer(gt, pred *character.Skeleton, norm character.Normalization) float64 {
	if gt.NumJoints() == 0 || pred.NumJoints() == 0 {
		return math.Inf(1)
	}
	return Chamfer(joints(gt, norm), joints(pred, norm))
}

func joints(s *character.Skeleton, norm character.Normalization) []vecmath.Vec3 {
	p := s.Positions()
	for i := range p {
		p[i] = norm.Point(p[i])
	}
	return p
}

// bones returns the parent→joint segments, or a point per joint when there are none.
func bones(s *character.Skeleton, pos []vecmath.Vec3) [][2]vecmath.Vec3 {
	var b [][2]vecmath.Vec3
	for j, p := range s.Parents {
		if p >= 0 && p < len(pos) {
			b = append(b, [2]vecmath.Vec3{pos[p], pos[j]})
		}
	}
	if len(b) == 0 {
		for _, q := range pos {
			b = append(b, [2]vecmath.Vec3{q, q})
		}
	}
	return b
}

// Chamfer is the mean of the two directed mean nearest-neighbour distances between
// two point sets (CD-J2J of two joint sets).
func Chamfer(a, b []vecmath.Vec3) float64 {
	return (directed(a, b) + directed(b, a)) / 2
}

func directed(a, b []vecmath.Vec3) float64 {
	s := 0.0
	for _, p := range a {
		best := math.Inf(1)
		for _, q := range b {
			d := p.Sub(q)
			best = math.Min(best, d.Dot(d))
		}
		s += math.Sqrt(best)
	}
	return s / float64(len(a))
}

func meanToSegments(pts []vecmath.Vec3, segs [][2]vecmath.Vec3) float64 {
	s := 0.0
	for _, p := range pts {
		best := math.Inf(1)
		for _, g := range segs {
			best = math.Min(best, vecmath.SegmentDist(p, g[0], g[1]))
		}
		s += best
	}
	return s / float64(len(pts))
}

func sampleBones(segs [][2]vecmath.Vec3) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, 0, len(segs)*BoneSamples)
	for _, g := range segs {
		for i := 0; i < BoneSamples; i++ {
			out = append(out, g[0].Lerp(g[1], float64(i)/float64(BoneSamples-1)))
		}
	}
	return out
}
