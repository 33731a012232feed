package assets_test

import (
	"fmt"
	"os"

	"github.com/rigkit/rigkit/assets/format"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/hostile"
)

// A file that places one 1,000-vertex mesh with 50 nodes needs 50,000 vertices: a
// budget of 10,000 refuses it before reading any geometry, and raising the limit
// loads it.
func ExampleLoad_budget() {
	dir, _ := os.MkdirTemp("", "rigkit")
	defer os.RemoveAll(dir)
	path, err := hostile.Mesh(dir, "fifty.glb", 1000, 50)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, err = assets.Load(path, assets.Options{Budget: format.Budget{Vertices: 10_000}, AllowOrphans: true})
	fmt.Println("over budget:", format.IsBudgetError(err))
	c, _, err := assets.Load(path, assets.Options{Budget: format.Budget{Vertices: 50_000}, AllowOrphans: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("vertices:", len(c.Mesh.Positions))
	// Output:
	// over budget: true
	// vertices: 50000
}
