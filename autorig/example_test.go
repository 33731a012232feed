package autorig_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/sampler"
)

// Load a mesh, rig it, save the rigged GLB: what `rig auto` does for one file, here
// with the classical rigger (a Reeb-graph skeleton and geodesic weights). A
// *autorig.ModelRigger is used the same way and adds the model's samples.
func Example() {
	c, _, err := assets.Load("../assets/samples/biped.glb", assets.Options{})
	if err != nil {
		log.Fatal(err)
	}
	rigger := autorig.ClassicalRigger{Skin: sampler.GeodesicSkin, SkinName: "geodesic"}
	rigged, info, err := rigger.Rig(c)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rigkit-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := assets.Save(filepath.Join(dir, "biped.glb"), rigged); err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Method, sampler.CheckRig(rigged) == nil)
	// Output: classical-skeleton+geodesic true
}
