package character

import (
	"github.com/rigkit/rigkit/vecmath"
	"math"
	"math/rand"
)

// Pose is a rotation per joint, applied in the joint's own bind-pose frame on top of
// the bind pose. The zero rotation (identity) for every joint is the bind pose.
type Pose []vecmath.Quat

// RestPose returns the identity pose for n joints.
func RestPose(n int) Pose {
	p := make(Pose, n)
	for i := range p {
		p[i] = vecmath.Quat{0, 0, 0, 1}
	}
	return p
}

// RandomPose returns the pose of METRICS.md: each joint rotates about a uniformly
// random axis by an angle uniform in [0, maxAngle] radians.
func RandomPose(rng *rand.Rand, n int, maxAngle float64) Pose {
	p := make(Pose, n)
	for i := range p {
		// Uniform direction on the sphere.
		z := 2*rng.Float64() - 1
		phi := 2 * math.Pi * rng.Float64()
		r := math.Sqrt(1 - z*z)
		axis := vecmath.Vec3{r * math.Cos(phi), r * math.Sin(phi), z}
		p[i] = vecmath.QuatAxisAngle(axis, rng.Float64()*maxAngle)
	}
	return p
}

// PosedWorld runs forward kinematics: each joint's world transform after rotating
// every joint by pose in its local frame. Joints keep their bind-pose offsets from
// their parents.
func (s *Skeleton) PosedWorld(pose Pose) []vecmath.Mat4 {
	n := len(s.Names)
	out := make([]vecmath.Mat4, n)
	for j := 0; j < n; j++ {
		rot := vecmath.Identity4()
		if j < len(pose) {
			rot = pose[j].Mat4()
		}
		p := s.Parents[j]
		if p < 0 {
			out[j] = s.BindWorld[j].Mul(rot)
			continue
		}
		parentInv, ok := s.BindWorld[p].Inverse()
		if !ok {
			parentInv = vecmath.Identity4()
		}
		local := parentInv.Mul(s.BindWorld[j]) // bind-pose transform relative to the parent
		out[j] = out[p].Mul(local).Mul(rot)
	}
	return out
}

// SkinningMatrices returns posed·inverse(bind) for every joint: the transform that
// carries a bind-pose vertex rigidly with that joint.
func (s *Skeleton) SkinningMatrices(posed []vecmath.Mat4) []vecmath.Mat4 {
	m := make([]vecmath.Mat4, len(posed))
	for j := range posed {
		inv, ok := s.BindWorld[j].Inverse()
		if !ok {
			inv = vecmath.Identity4()
		}
		m[j] = posed[j].Mul(inv)
	}
	return m
}

// LinearBlendSkin deforms bind-pose positions by the skin under the given skinning
// matrices (see SkinningMatrices). Vertices without influences stay where they are.
func LinearBlendSkin(positions []vecmath.Vec3, skin *Skin, skinning []vecmath.Mat4) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(positions))
	for v, p := range positions {
		if v >= len(skin.Weights) || len(skin.Weights[v]) == 0 {
			out[v] = p
			continue
		}
		var acc vecmath.Vec3
		for _, in := range skin.Weights[v] {
			if in.Joint < 0 || in.Joint >= len(skinning) {
				continue
			}
			acc = acc.Add(skinning[in.Joint].Point(p).Scale(in.Weight))
		}
		out[v] = acc
	}
	return out
}

// Deform poses a rigged character: forward kinematics then linear blend skinning.
// It returns the deformed vertex positions and the posed joint world transforms.
func (c *Character) Deform(pose Pose) ([]vecmath.Vec3, []vecmath.Mat4) {
	posed := c.Skeleton.PosedWorld(pose)
	return LinearBlendSkin(c.Mesh.Positions, c.Skin, c.Skeleton.SkinningMatrices(posed)), posed
}
