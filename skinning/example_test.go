package skinning_test

import (
	"fmt"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/vecmath"
)

// boxArm is a box-shaped "arm" (a closed cuboid from x=0 to x=2) with a shoulder, an
// elbow at x=1 and a wrist.
func boxArm() *character.Character {
	c := &character.Character{Mesh: character.Mesh{
		Positions: []vecmath.Vec3{
			{0, -0.2, -0.2}, {2, -0.2, -0.2}, {2, 0.2, -0.2}, {0, 0.2, -0.2},
			{0, -0.2, 0.2}, {2, -0.2, 0.2}, {2, 0.2, 0.2}, {0, 0.2, 0.2},
		},
		Triangles: [][3]int{
			{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
			{3, 6, 2}, {3, 7, 6}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5},
		},
	}}
	c.Skeleton = &character.Skeleton{
		Names:   []string{"upper", "lower", "wrist"},
		Parents: []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{
			vecmath.Translate4(vecmath.Vec3{0, 0, 0}),
			vecmath.Translate4(vecmath.Vec3{1, 0, 0}),
			vecmath.Translate4(vecmath.Vec3{2, 0, 0}),
		},
	}
	return c
}

// The box arm skinned by geodesic binding: vertices near the shoulder follow the
// upper arm rigidly.
func ExampleGeodesic() {
	c := boxArm()
	skin, err := skinning.Geodesic(c, skinning.GeodesicOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("orphans:", len(skin.Orphans()))
	fmt.Println("vertex 0 heaviest joint:", c.Skeleton.Names[skin.Weights[0][0].Joint])
	// Output:
	// orphans: 0
	// vertex 0 heaviest joint: upper
}

// The same box arm skinned by heat diffusion: every vertex gets weights, and the
// shoulder end follows the upper arm.
func ExampleHeat() {
	c := boxArm()
	skin, err := skinning.Heat(c, skinning.HeatOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("orphans:", len(skin.Orphans()))
	fmt.Println("vertex 0 heaviest joint:", c.Skeleton.Names[skin.Weights[0][0].Joint])
	// Output:
	// orphans: 0
	// vertex 0 heaviest joint: upper
}
