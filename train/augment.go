package train

import (
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// This file is the augmentation of training characters: each training example is
// a randomly stretched, turned, mirrored and re-posed copy of a rigged character.

// AugmentOptions bounds the random augmentation of a training character.
type AugmentOptions struct {
	// MaxScale is the largest per-axis stretch factor (e.g. 0.15 for 0.85..1.15).
	MaxScale float64
	// Rotate turns the character about the up (+Y) axis by a uniform angle.
	Rotate bool
	// QuarterTurns (instead of Rotate) turns the character about the up axis by a
	// random multiple of 90° plus a uniform jitter of up to Jitter radians: the
	// facings that differ between asset sources, without asking a small model to
	// read arbitrary orientations.
	QuarterTurns bool
	Jitter       float64
	// MirrorProb is the probability of mirroring across the YZ plane.
	MirrorProb float64
	// PoseProb is the probability of re-posing with a random pose of up to PoseAngle
	// radians per joint (the posed skeleton becomes the new bind pose).
	PoseProb, PoseAngle float64
}

// DefaultAugment is the augmentation used by `rig train`.
var DefaultAugment = AugmentOptions{MaxScale: 0.15, Rotate: true, MirrorProb: 0.5, PoseProb: 0.5, PoseAngle: 0.35}

// augment returns a randomly stretched, rotated, mirrored and re-posed copy of a
// rigged character, and the affine map it applied after re-posing. The skin is
// unchanged (vertex order is kept).
func augment(c *character.Character, opt AugmentOptions, rng *rand.Rand) (*character.Character, vecmath.Mat4) {
	o := c.Clone()
	if o.Skeleton != nil && o.Skin != nil && rng.Float64() < opt.PoseProb {
		pose := character.RandomPose(rng, o.Skeleton.NumJoints(), opt.PoseAngle)
		pos, posed := o.Deform(pose)
		o.Mesh.Positions = pos
		o.Skeleton.BindWorld = posed
	}
	m := vecmath.Identity4()
	switch {
	case opt.QuarterTurns:
		a := float64(rng.Intn(4))*math.Pi/2 + opt.Jitter*(2*rng.Float64()-1)
		m = vecmath.QuatAxisAngle(vecmath.Vec3{0, 1, 0}, a).Mat4()
	case opt.Rotate:
		q := vecmath.QuatAxisAngle(vecmath.Vec3{0, 1, 0}, rng.Float64()*2*math.Pi)
		m = q.Mat4()
	}
	mirror := rng.Float64() < opt.MirrorProb
	if mirror {
		m = vecmath.Mat4{-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}.Mul(m)
	}
	if opt.MaxScale > 0 {
		var s vecmath.Mat4
		for a := 0; a < 3; a++ {
			s[a*5] = 1 + opt.MaxScale*(2*rng.Float64()-1)
		}
		s[15] = 1
		m = s.Mul(m)
	}
	for i, p := range o.Mesh.Positions {
		o.Mesh.Positions[i] = m.Point(p)
	}
	o.Mesh.Normals = nil
	if mirror {
		for t, tri := range o.Mesh.Triangles {
			o.Mesh.Triangles[t] = [3]int{tri[0], tri[2], tri[1]}
		}
	}
	if o.Skeleton != nil {
		for j, b := range o.Skeleton.BindWorld {
			// Keep the joint frame a rotation: move the position, keep the orientation.
			t := m.Point(b.Translation())
			b[12], b[13], b[14] = t[0], t[1], t[2]
			o.Skeleton.BindWorld[j] = b
		}
	}
	return o, m
}
