package anatomy_test

import (
	"fmt"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// A model's three-joint skeleton rooted in the chest, named after a fitted
// template on a mesh 2 high: the root moves to the hips, and the joint no template
// joint lies near is named after its named ancestor.
func ExampleNameFromTemplate() {
	at := func(x, y float64) vecmath.Mat4 { return vecmath.Translate4(vecmath.Vec3{x, y, 0}) }
	template := &character.Skeleton{
		Names:     []string{"Hips", "Spine", "Head"},
		Parents:   []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{at(0, 1), at(0, 1.3), at(0, 1.8)},
	}
	model := &character.Skeleton{
		Names:     []string{"joint_000", "joint_001", "joint_002"},
		Parents:   []int{-1, 0, 0},
		BindWorld: []vecmath.Mat4{at(0, 1.32), at(0.01, 1.02), at(0.4, 1.5)},
	}
	mesh := &character.Mesh{Positions: []vecmath.Vec3{{-0.5, 0, -0.2}, {0.5, 2, 0.2}}}
	named, err := anatomy.NameFromTemplate(model, template, mesh, anatomy.Options{Up: "y"})
	if err != nil {
		fmt.Println(err)
		return
	}
	sk := named.Skeleton
	for j, name := range sk.Names {
		parent := "-"
		if p := sk.Parents[j]; p >= 0 {
			parent = sk.Names[p]
		}
		fmt.Printf("%s ← %s (was %s)\n", name, parent, model.Names[named.Order[j]])
	}
	fmt.Printf("named %d of %d, re-rooted %v\n", named.Naming.Named, named.Naming.Of, named.Naming.Rerooted)
	// Output:
	// Hips ← - (was joint_001)
	// Spine ← Hips (was joint_000)
	// Spine_extra_1 ← Spine (was joint_002)
	// named 2 of 3, re-rooted true
}
