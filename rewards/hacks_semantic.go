package rewards

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Hacks aimed at the semantic rewards and at coverage's excuse for thin detail: a
// skeleton that is perfectly mirror-symmetric but flattened onto the mirror plane
// (symmetry), a star of spokes from the centre to every limb tip (limbs), and a
// rig whose thin parts are all left unboned (the detail excuse); and, aimed at
// the clip poses of the deformation reward, a rig renamed to play clips on joints
// that are not the clip's.

// semanticHacks are appended to Hacks.
var semanticHacks = []Hack{
	{Name: "plane_collapsed", Doc: "every joint moved onto the mesh's left-right mirror plane (x of the bounds' centre): symmetric, legs and arms merged; weights kept", Build: planeCollapsed, MovesSkeleton: true, CharactersOnly: true},
	{Name: "tip_spokes", Doc: "a root at the joints' centroid and one bone from it to every limb tip the limbs reward finds, rigid nearest-bone weights", Build: tipSpokes, MovesSkeleton: true, CharactersOnly: true},
	{Name: "thin_unboned", Doc: "the true skeleton with every vertex of a thin part (under the detail thickness) moved onto the root joint", Build: thinUnboned, CharactersOnly: true},
	{Name: "borrowed_names", Doc: "the true rig with its joints renamed, in hierarchy order, to a humanoid's Mixamo names (the others joint_k), so that a scorer's clips play on it whatever its shape; joints and weights kept", Build: borrowedNames, NamesOnly: true},
}

// mixamoOrder are the humanoid names borrowedNames hands out, parents first.
var mixamoOrder = []string{"Hips", "Spine", "Spine1", "Spine2", "Neck", "Head",
	"LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand", "RightShoulder", "RightArm", "RightForeArm", "RightHand",
	"LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot"}

// borrowedNames renames the joints of the true rig: the first ones, in the
// skeleton's order (parents before children), take mixamoOrder's names, the rest
// joint_k. Clips matched by name then move whatever joints got the names, which
// the deformation's clip poses (Options.Motion) must not reward. It applies to
// skeletons of at least 6 joints.
func borrowedNames(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 6 {
		return nil, false
	}
	h := c.Clone()
	for j := range h.Skeleton.Names {
		if j < len(mixamoOrder) {
			h.Skeleton.Names[j] = mixamoOrder[j]
		} else {
			h.Skeleton.Names[j] = fmt.Sprintf("joint_%d", j)
		}
	}
	return h, true
}

func init() { Hacks = append(Hacks, semanticHacks...) }

// planeCollapsed moves every joint onto the plane x = centre of the mesh bounds. It
// applies when at least two joints lie off that plane by 5% of the width.
func planeCollapsed(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	lo, hi := h.Mesh.Bounds()
	mid := (lo[0] + hi[0]) / 2
	off := 0
	for j := range h.Skeleton.BindWorld {
		p := h.Skeleton.Position(j)
		if math.Abs(p[0]-mid) > 0.05*(hi[0]-lo[0]) {
			off++
		}
		p[0] = mid
		h.Skeleton.BindWorld[j] = withTranslation(h.Skeleton.BindWorld[j], p)
	}
	return h, off >= 2 // joints already on the plane: not a degenerate rig
}

// tipSpokes builds a star skeleton: a root at the true joints' centroid and one
// bone to each limb tip of the mesh, rigidly weighted. It needs two tips.
func tipSpokes(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) {
		return nil, false
	}
	p, err := Prepare(&c.Mesh, Options{Seed: seed})
	if err != nil || len(p.shape.tips) < 2 {
		return nil, false
	}
	var ctr vecmath.Vec3
	for _, q := range c.Skeleton.Positions() {
		ctr = ctr.Add(q)
	}
	ctr = ctr.Scale(1 / float64(c.Skeleton.NumJoints()))
	sk := &character.Skeleton{Names: []string{"spoke_root"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Translate4(ctr)}}
	for i, t := range p.shape.tips {
		w := p.Norm.InversePoint(t.p)
		mid := ctr.Add(w).Scale(0.5)
		sk.Names = append(sk.Names, fmt.Sprintf("spoke%d", i), fmt.Sprintf("spoke%d_end", i))
		sk.Parents = append(sk.Parents, 0, len(sk.Names)-2)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(mid), vecmath.Translate4(w))
	}
	h := c.Clone()
	h.Skeleton = sk
	h.Skin = character.RigidSkin(h.Mesh.Positions, sk)
	return h, true
}

// thinUnboned moves every vertex whose inward ray meets the far side within
// detailThickness onto the root joint (the first joint without a parent). It does
// not apply when no vertex is that thin.
func thinUnboned(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	p, err := Prepare(&c.Mesh, Options{Seed: seed})
	if err != nil {
		return nil, false
	}
	root := 0
	for j, par := range c.Skeleton.Parents {
		if par < 0 {
			root = j
			break
		}
	}
	normals := vertexNormals(p.pos, p.tris)
	h := c.Clone()
	moved := 0
	for v := range h.Skin.Weights {
		t, ok := p.bvh.RayCapped(p.pos[v], normals[v].Scale(-1), 1e-4, maxThickness, thicknessRayMax)
		if ok && t < detailThickness && !math.IsNaN(t) {
			h.Skin.Weights[v] = []character.Influence{{Joint: root, Weight: 1}}
			moved++
		}
	}
	return h, moved > 0
}
