package anatomy

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// orient returns bind matrices for joints at world positions pos (parents first):
// each joint's local +Y points from it to its first child, the Blender convention,
// so that an importer draws every bone toward its child. The roll keeps local +Z as
// close as it can to the character's forward, or to up for a bone that runs along
// forward (toes, a tail, a snake's body), which keeps the left and right sides
// mirror images of each other. A leaf keeps its parent's orientation; a lone root
// takes the character's own frame. Linear blend skinning gives the same deformed
// mesh for any bind rotation, so skin weights do not change with it.
func orient(pos []vecmath.Vec3, parents []int, up, fwd vecmath.Vec3) []vecmath.Mat4 {
	first := make([]int, len(pos))
	for j := range first {
		first[j] = -1
	}
	for j, p := range parents {
		if p >= 0 && first[p] < 0 && pos[j].Dist(pos[p]) > 1e-9 {
			first[p] = j
		}
	}
	rot := make([]vecmath.Mat4, len(pos))
	out := make([]vecmath.Mat4, len(pos))
	for j := range pos {
		switch {
		case first[j] >= 0:
			rot[j] = boneFrame(pos[first[j]].Sub(pos[j]), up, fwd)
		case parents[j] >= 0:
			rot[j] = rot[parents[j]]
		default:
			rot[j] = boneFrame(up, up, fwd)
		}
		out[j] = rot[j]
		out[j][12], out[j][13], out[j][14] = pos[j][0], pos[j][1], pos[j][2]
	}
	return out
}

// boneFrame returns the rotation whose +Y is along dir and whose +Z is forward
// made perpendicular to it (up when dir runs close to forward).
func boneFrame(dir, up, fwd vecmath.Vec3) vecmath.Mat4 {
	y := dir.Normalize()
	ref := fwd
	if math.Abs(y.Dot(fwd)) > 0.9 {
		ref = up
	}
	z := ref.Sub(y.Scale(ref.Dot(y))).Normalize()
	x := y.Cross(z)
	m := vecmath.Identity4()
	for r := 0; r < 3; r++ {
		m[0*4+r], m[1*4+r], m[2*4+r] = x[r], y[r], z[r]
	}
	return m
}

// OrientSkeleton returns a copy of a skeleton with its joints oriented by orient
// for a mesh whose up axis is "z" (Blender's, facing -Y) or otherwise Y (glTF's,
// facing +Z). Names, parents and positions are kept, so a skin made for the
// skeleton deforms the same with the copy.
func OrientSkeleton(sk *character.Skeleton, opt Options) *character.Skeleton {
	f := axesFrame(opt.Up, opt.World)
	out := sk.Clone()
	out.BindWorld = orient(sk.Positions(), sk.Parents, f.up, f.fwd)
	return out
}
