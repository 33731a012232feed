package edit

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
)

// fixture writes a synthetic biped with a material to a GLB and loads it back with
// its scene, as `rig view` loads a file. It returns the character and its path.
func fixture(t testing.TB, vertices int) (*character.Character, string) {
	t.Helper()
	c, err := synth.Generate("biped", 1, synth.Options{TargetVertices: vertices})
	if err != nil {
		t.Fatal(err)
	}
	c.Materials = []character.Material{{Name: "skin", BaseColor: [4]float64{0.8, 0.5, 0.3, 1}, Roughness: 0.7}}
	c.Mesh.Groups = []character.TriangleGroup{{Start: 0, Count: len(c.Mesh.Triangles), Material: 0}}
	path := filepath.Join(t.TempDir(), "biped.glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	loaded, _, err := assets.Load(path, assets.Options{KeepScene: true})
	if err != nil {
		t.Fatal(err)
	}
	return loaded, path
}

// newRig starts editing the fixture.
func newRig(t testing.TB, c *character.Character) *Rig {
	t.Helper()
	r, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// joint returns the index of a joint that must exist.
func joint(t testing.TB, r *Rig, name string) int {
	t.Helper()
	j, err := r.Joint(name)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
