package rewards

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// randomMotion reproduces the deformation reward's own random poses (Options.Seed
// 1) as Motion frames in the character's units: scored through Motion they must
// give the random poses' reward, which pins the move into the normalized cube.
func randomMotion(poses int) func(*character.Skeleton) [][]vecmath.Mat4 {
	return func(sk *character.Skeleton) [][]vecmath.Mat4 {
		var out [][]vecmath.Mat4
		for k := 0; k < poses; k++ {
			rng := rand.New(rand.NewSource(1*7919 + 17 + int64(k)*104729))
			pose := character.RandomPose(rng, sk.NumJoints(), defaultMaxAngle)
			out = append(out, sk.SkinningMatrices(sk.PosedWorld(pose)))
		}
		return out
	}
}

// TestMotionPoses: Options.Motion's frames join the random poses when they fit the
// skeleton, and are ignored when there are none or they do not fit.
func TestMotionPoses(t *testing.T) {
	c := capsuleMan(2, true).character(32)
	// The character moved far from the origin and scaled, so that a frame left in
	// the character's units would not score as the cube's.
	for i, p := range c.Mesh.Positions {
		c.Mesh.Positions[i] = p.Scale(40).Add(vecmath.Vec3{300, -20, 75})
	}
	move := vecmath.Translate4(vecmath.Vec3{300, -20, 75}).Mul(vecmath.Scale4(40))
	for j, b := range c.Skeleton.BindWorld {
		c.Skeleton.BindWorld[j] = move.Mul(b).Mul(vecmath.Scale4(1.0 / 40))
	}
	base, err := Score(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bd := base.Details.Deformation
	spin := vecmath.Translate4(vecmath.Vec3{310, 0, 70}).Mul(vecmath.QuatAxisAngle(vecmath.Vec3{0, 1, 0}, 1.2).Mat4())
	rigid := func(sk *character.Skeleton) [][]vecmath.Mat4 {
		f := make([]vecmath.Mat4, sk.NumJoints())
		for j := range f {
			f[j] = spin
		}
		return [][]vecmath.Mat4{f, f}
	}
	same := func(d *DeformationDetails) [3]float64 {
		return [3]float64{d.DistortedEdges, d.FlipRate, d.Articulation}
	}
	tests := []struct {
		name   string
		motion func(*character.Skeleton) [][]vecmath.Mat4
		frames int
		// want is the strain, fold and articulation figures: the random poses'
		// when the frames are ignored or repeat them; when two rigid frames join
		// the eight random poses, 8/10 of the strain and folds, and the same
		// articulation (the random poses' alone).
		want [3]float64
	}{
		{"none", nil, 0, same(bd)},
		{"no frames", func(*character.Skeleton) [][]vecmath.Mat4 { return nil }, 0, same(bd)},
		{"frames for another skeleton", func(*character.Skeleton) [][]vecmath.Mat4 {
			return [][]vecmath.Mat4{{vecmath.Identity4()}}
		}, 0, same(bd)},
		{"non-finite frame", func(sk *character.Skeleton) [][]vecmath.Mat4 {
			f := rigid(sk)[0]
			f[0][12] = math.NaN()
			return [][]vecmath.Mat4{f}
		}, 0, same(bd)},
		{"the random poses again as frames", randomMotion(8), 8, same(bd)},
		{"two rigid motions of the whole body", rigid, 2, [3]float64{bd.DistortedEdges * 0.8, bd.FlipRate * 0.8, bd.Articulation}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Score(c, Options{Motion: tc.motion})
			if err != nil {
				t.Fatal(err)
			}
			d := rep.Details.Deformation
			if d.MotionFrames != tc.frames || d.Poses != 8+tc.frames {
				t.Errorf("%d poses, %d of them motion frames; want %d and %d", d.Poses, d.MotionFrames, 8+tc.frames, tc.frames)
			}
			got := same(d)
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-9 {
					t.Errorf("distorted edges, fold rate, articulation %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}
