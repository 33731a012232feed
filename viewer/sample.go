package viewer

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// sampleCharacter builds a rigged figure in code, for tests, benchmarks and demos
// without data files: a capsule body along +Y with a chain of `joints` joints, the
// surface tessellated into about `tris` triangles, and smooth weights that blend
// neighbouring joints (up to 4 influences per vertex). Arms branch off the chain so
// that the skeleton is a tree. It never fails for joints ≥ 2 and tris ≥ 64.
func sampleCharacter(joints, tris int) *character.Character {
	joints = max(joints, 2)
	// Rings × segments ≈ tris/2 quads.
	seg := max(8, int(math.Sqrt(float64(tris)/2)/1.5))
	rings := max(4, tris/(2*seg))
	height, radius := 2.0, 0.25
	c := &character.Character{Name: fmt.Sprintf("sample_%dj_%dt", joints, tris)}
	// Spine chain along Y, then two arm joints branching from the chain's 2/3 point.
	spine := joints
	arms := 0
	if joints >= 6 {
		arms = 2
		spine = joints - 2
	}
	sk := &character.Skeleton{}
	for j := 0; j < spine; j++ {
		y := height * float64(j) / float64(spine)
		sk.Names = append(sk.Names, fmt.Sprintf("spine%d", j))
		sk.Parents = append(sk.Parents, j-1)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{0, y - height/2, 0}))
	}
	if arms > 0 {
		at := spine * 2 / 3
		y := sk.BindWorld[at].Translation()[1]
		for i, side := range []float64{-1, 1} {
			sk.Names = append(sk.Names, []string{"arm_L", "arm_R"}[i])
			sk.Parents = append(sk.Parents, at)
			sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{side * 0.6, y, 0}))
		}
	}
	c.Skeleton = sk
	// Capsule body.
	var pos []vecmath.Vec3
	for r := 0; r <= rings; r++ {
		t := float64(r) / float64(rings)
		y := height*t - height/2
		rad := radius * (0.75 + 0.25*math.Sin(math.Pi*t)) // a little waist
		if t < 0.08 || t > 0.92 {                         // rounded caps
			e := math.Min(t, 1-t) / 0.08
			rad *= math.Sqrt(math.Max(e*(2-e), 0.05))
		}
		for s := 0; s < seg; s++ {
			a := 2 * math.Pi * float64(s) / float64(seg)
			pos = append(pos, vecmath.Vec3{rad * math.Cos(a), y, rad * math.Sin(a)})
		}
	}
	var tri [][3]int
	for r := 0; r < rings; r++ {
		for s := 0; s < seg; s++ {
			a, b := r*seg+s, r*seg+(s+1)%seg
			c2, d := a+seg, b+seg
			tri = append(tri, [3]int{a, c2, b}, [3]int{b, c2, d})
		}
	}
	// Arm boxes (a few vertices, rigid to their arm joint) so arms are visible.
	armVerts := map[int]int{}
	for a := 0; a < arms; a++ {
		j := spine + a
		p := sk.BindWorld[j].Translation()
		base := len(pos)
		dx := 0.35
		if a == 0 {
			dx = -0.35
		}
		for _, q := range [][3]float64{{0, -1, -1}, {0, 1, -1}, {0, 1, 1}, {0, -1, 1}, {1, -1, -1}, {1, 1, -1}, {1, 1, 1}, {1, -1, 1}} {
			pos = append(pos, vecmath.Vec3{p[0] - dx*0.9 + q[0]*dx*1.6, p[1] + q[1]*0.07, p[2] + q[2]*0.07})
			armVerts[len(pos)-1] = j
		}
		for _, f := range [][4]int{{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1}, {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}} {
			tri = append(tri, [3]int{base + f[0], base + f[1], base + f[2]}, [3]int{base + f[0], base + f[2], base + f[3]})
		}
	}
	c.Mesh = character.Mesh{Positions: pos, Triangles: tri}
	// Weights: Gaussian falloff in height over the spine joints; arm boxes rigid.
	dense := make([][]float64, len(pos))
	sigma := height / float64(spine) * 0.6
	for v, p := range pos {
		dense[v] = make([]float64, sk.NumJoints())
		if j, ok := armVerts[v]; ok {
			dense[v][j] = 1
			continue
		}
		for j := 0; j < spine; j++ {
			// Joint j's segment runs from its origin up to the next joint.
			mid := sk.BindWorld[j].Translation()[1] + height/float64(spine)/2
			d := (p[1] - mid) / sigma
			dense[v][j] = math.Exp(-d * d / 2)
		}
	}
	c.Skin = character.SkinFromDense(dense, 4)
	c.Mesh.Normals = c.Mesh.ComputeNormals()
	return c
}
