package assets_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// A one-joint character saved as GLB and loaded back.
func ExampleSave() {
	c := &character.Character{
		Name: "triangle",
		Mesh: character.Mesh{
			Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
			Triangles: [][3]int{{0, 1, 2}},
		},
		Skeleton: &character.Skeleton{Names: []string{"root"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Identity4()}},
		Skin:     &character.Skin{Weights: [][]character.Influence{{{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}}},
	}
	dir, _ := os.MkdirTemp("", "rigkit")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "triangle.glb")
	if _, err := assets.Save(path, c); err != nil {
		fmt.Println(err)
		return
	}
	back, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(back.Mesh.Positions), "vertices,", back.Skeleton.Names)
	// Output: 3 vertices, [root]
}

// Inspect reports the defects of a mesh: a lone triangle is one part with three
// boundary edges.
func ExampleInspect() {
	c := &character.Character{Mesh: character.Mesh{
		Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Triangles: [][3]int{{0, 1, 2}},
	}}
	r := assets.Inspect(c)
	fmt.Println(r.Triangles, "triangle,", r.Mesh.Components, "part,", r.Mesh.BoundaryEdges, "boundary edges")
	// Output: 1 triangle, 1 part, 3 boundary edges
}

// LoadFile returns the loader's repairs with the character; Load rejects orphan
// vertices instead.
func ExampleLoad_report() {
	_, _, err := assets.Load("missing.glb", assets.Options{AllowOrphans: true})
	fmt.Println(err)
	// Output: load missing.glb: open missing.glb: no such file or directory
}
