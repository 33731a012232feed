package rewards

import (
	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/vecmath"
)

// RewardVersion numbers the definition of the rewards and of the report: it goes up
// whenever the same rig may score differently or a report field changes meaning, so
// that a trainer can pin the rewards it was trained on (`rig serve` answers it in
// /healthz). Version 2: the kept-skeleton surface-bone and shrink variants in the
// hack suite and the reward changes that beat them (docs/rewards.md);
// containment's outside[].fraction (the share inside) became outside_fraction (the
// share outside). Version 3: deformation's tears free up to 70% of the seams and
// its strain counts distorted edges instead of summing squared strain, so that it
// ranks candidate skins as the ground truth does (docs/rewards.md, "Rank
// agreement"). Version 4: symmetry and limbs. Version 5: the deformation poses
// include rigkit's clips (Options.Motion). Version 6: the learned critic in the
// report, at weight 0. Version 7: coverage and limbs judge a joint without
// children as the bone through the part it moves (leaf.go); merged legs lie on
// either side of their chain.
const RewardVersion = 7

// RewardChange says what the current RewardVersion changed, for a trainer pinning
// its rewards (rig serve's /healthz answers it).
const RewardChange = "7: coverage and limbs judge a joint without children (a head joint at the skull's base, a wrist without fingers, an ankle without toes) as the bone through the part it moves, from the joint to the far side of its vertices, at most two widths of the part and 1.5 lengths of its parent bone, and only while the joint sits at the part's base, so an artist's rig without end joints is not charged for them; two limb tips served by one chain count as merged legs only when they lie on either side of it (docs/rewards.md, \"Leaf bones (version 7)\"); weights as version 6"

// Reward names, the keys of Report.Rewards.
const (
	Containment  = "containment"
	Coverage     = "coverage"
	SkinReward   = "skin"
	Locality     = "locality"
	Deformation  = "deformation"
	Sanity       = "sanity"
	Symmetry     = "symmetry"
	Limbs        = "limbs"
	criticReward = "critic" // the learned critic (package critic), weighing 0

)

// Weights are the exponents of the combined score, a weighted geometric mean:
// score = Π ((r_i+ε)/(1+ε))^(w_i / Σw) with ε = CombineFloor (see Combine). A reward
// with twice the weight moves the score twice as much per relative change.
// Coverage weighs triple: it sees bones that fail to reach a limb. Locality weighs
// triple: it is the reward that sees weights spread over far bones (random weights
// on far joints can still deform smoothly). Deformation and sanity weigh double:
// deformation sees how badly the skin bends and (its articulation factor) whether it
// bends at all, which a single-joint rig or equal weights on every joint do not;
// sanity sees joints poked outside, duplicated or too many. The weights were chosen
// among {1,2,3,4} on the real-rig hack sweep (see docs/rewards.md). The learned
// critic weighs 0: at the weights that raise the skeleton ranking, random search
// against it beats true rigs (docs/rewards.md, "Learned critic").
var Weights = map[string]float64{
	Containment:  1,
	Coverage:     3,
	SkinReward:   1,
	Locality:     3,
	Deformation:  2,
	Sanity:       2,
	Symmetry:     2,
	Limbs:        1,
	criticReward: 0,
}

// RewardNames lists the rewards in report order.
var RewardNames = []string{Containment, Coverage, SkinReward, Locality, Deformation, Sanity, Symmetry, Limbs, criticReward}

// Report is the JSON-serializable result of scoring one rig.
type Report struct {
	// Score is the combined score in [0,1], higher is better.
	Score float64 `json:"score"`
	// Rewards holds each reward in [0,1] by name.
	Rewards map[string]float64 `json:"rewards"`
	// Problems are human-readable findings, worst first within each reward.
	Problems []string `json:"problems"`
	// Details say which bones and vertices each reward blames.
	Details Details `json:"details"`
}

// Details holds per-reward findings for humans. Positions are in world space (the
// file's own frame); Cube positions are in the normalized [-1,1] cube.
type Details struct {
	Containment *ContainmentDetails `json:"containment,omitempty"`
	Coverage    *CoverageDetails    `json:"coverage,omitempty"`
	Skin        *SkinDetails        `json:"skin,omitempty"`
	Locality    *LocalityDetails    `json:"locality,omitempty"`
	Deformation *DeformationDetails `json:"deformation,omitempty"`
	Sanity      *SanityDetails      `json:"sanity,omitempty"`
	Symmetry    *SymmetryDetails    `json:"symmetry,omitempty"`
	Limbs       *LimbDetails        `json:"limbs,omitempty"`
	Critic      *critic.Details     `json:"critic,omitempty"`
}

// BoneFraction names a bone (parent joint → child joint) and the fraction of its
// length outside the mesh.
type BoneFraction struct {
	Parent string `json:"parent"`
	Child  string `json:"child"`
	// OutsideFraction is the share of the bone's sample points outside the mesh
	// (each counted by how far it is from earning containment's full credit), 0 to
	// 1. Until reward version 2 the field was "fraction" and held the share inside.
	OutsideFraction float64 `json:"outside_fraction"`
}

// ContainmentDetails lists the bones that leave the mesh.
type ContainmentDetails struct {
	// Outside lists bones with more than 5% of their length outside, worst (most
	// outside) first.
	Outside []BoneFraction `json:"outside"`
}

// Protrusion is a cluster of mesh surface that no bone moving it reaches.
type Protrusion struct {
	Where        string       `json:"where"` // e.g. "left top front"
	Position     vecmath.Vec3 `json:"position"`
	Cube         vecmath.Vec3 `json:"cube"`
	AreaFraction float64      `json:"area_fraction"`
	// NearestJoint is the joint whose bone is nearest among those that move the
	// cluster's farthest sample (among all bones for samples without weights).
	NearestJoint string `json:"nearest_joint"`
	// Distance is how far (cube units) that sample is from that bone.
	Distance float64 `json:"distance"`
	// Detail marks small thin detail left unboned (an ear, a strand, a flap):
	// its samples count as covered.
	Detail  bool    `json:"detail,omitempty"`
	excused float64 // the credit Detail restores, in samples
}

// CoverageDetails names the uncovered protrusions, largest first.
type CoverageDetails struct {
	Uncovered []Protrusion `json:"uncovered"`
}

// SkinDetails counts unusable vertices by reason and lists some of them.
type SkinDetails struct {
	BadVertices int            `json:"bad_vertices"`
	Reasons     map[string]int `json:"reasons,omitempty"`
	Examples    []int          `json:"examples,omitempty"`
}

// LocalityDetails breaks the locality reward into its factors.
type LocalityDetails struct {
	MeanInfluences float64 `json:"mean_influences"`
	Sparsity       float64 `json:"sparsity"`
	Distance       float64 `json:"distance"`
	Connectivity   float64 `json:"connectivity"`
	// Scattered lists joints whose influence region splits into separate pieces,
	// with the fraction of their weight outside the main piece.
	Scattered []JointValue `json:"scattered,omitempty"`
}

// JointValue pairs a joint name with a number.
type JointValue struct {
	Joint string  `json:"joint"`
	Value float64 `json:"value"`
}

// DeformationDetails summarizes the posed meshes.
type DeformationDetails struct {
	Poses int `json:"poses"`
	// MotionFrames is how many of the poses were Options.Motion's frames (the
	// others are random).
	MotionFrames int     `json:"motion_frames"`
	TornEdges    float64 `json:"torn_edges"` // share of edges torn (weights jumping by 0.5 to 1 in total variation count 0 to 1)
	RMSStrain    float64 `json:"rms_strain"`
	// DistortedEdges is the share of sampled edges, over the poses, whose length
	// changes by more than 10%: what the strain factor charges.
	DistortedEdges float64 `json:"distorted_edges"`
	// RegionEdges is the fraction of edges whose two ends have different heaviest
	// joints at most two bones apart: the region boundaries that strain and tears are
	// counted against.
	RegionEdges float64 `json:"region_edges"`
	FlipRate    float64 `json:"flip_rate"`
	VolumeDrift float64 `json:"volume_drift"` // mean |V_posed/V_rest - 1|; 0 when the mesh is open
	// Articulation is the mean relative distance of the posed mesh from the best
	// affine image of its rest shape (sampled vertices) over the random poses: 0 when they move the
	// mesh rigidly or by any one affine map.
	Articulation float64 `json:"articulation"`
	// WorstVertices are vertices at the most stretched edges, with the joint that
	// weighs most on them.
	WorstVertices []VertexJoint `json:"worst_vertices,omitempty"`
}

// VertexJoint names a vertex, its dominant joint and a value.
type VertexJoint struct {
	Vertex int     `json:"vertex"`
	Joint  string  `json:"joint"`
	Value  float64 `json:"value"`
}

// SanityDetails lists the skeleton's structural problems.
type SanityDetails struct {
	Joints      int      `json:"joints"`
	JointBudget int      `json:"joint_budget"`
	ShortBones  []string `json:"short_bones,omitempty"`
	// Coincident lists redundant joints: on another joint's place, moving the same
	// vertices.
	Coincident    []string     `json:"coincident_joints,omitempty"`
	OutsideJoints []JointValue `json:"outside_joints,omitempty"` // with distance outside, cube units
	// OutsideMass is the share of the skin mass on joints that sit outside the mesh
	// (more than 0.05 beyond its surface, not enclosed). At CarrierOutsideMass or
	// more the skeleton was built around another body (see Carried).
	OutsideMass float64 `json:"outside_mass"`
}

// CarrierOutsideMass is the OutsideMass from which a rig counts as carried.
const CarrierOutsideMass = 0.5

// Carried reports whether the rig's skeleton was built around another body: the
// joints that carry at least half of the skin mass sit outside the mesh. That is
// how worn and attached props are rigged (a blanket, a cape, a horse's mane or
// armour moved by the wearer's spine and legs, a sail by its ship's yard). The
// rewards judge a mesh on its own, so for such a rig they cannot tell where the
// wearer's joints belong: a skeleton moved into the worn mesh (shrunk, or bones
// poked into it) can legitimately score higher than the wearer's. The weights are
// still judged as usual.
func (r *Report) Carried() bool {
	return r != nil && r.Details.Sanity != nil && r.Details.Sanity.OutsideMass >= CarrierOutsideMass
}
