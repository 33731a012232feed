package assets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/fixtures"
)

// TestLoadMotion reads clips from files with and without a mesh and refuses, naming
// the file, the ones that hold no motion or are not glTF.
func TestLoadMotion(t *testing.T) {
	dir := t.TempDir()
	write := func(f fixtures.Fixture) string {
		p, err := f.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var bare, skinned, static, meshes string
	for _, f := range fixtures.Motions() {
		switch f.Name {
		case "walk-unreal-names":
			bare = write(f)
		case "walk-biped-names":
			skinned = write(f)
		}
	}
	for _, f := range fixtures.All() {
		switch f.Name {
		case "vertex-colors":
			static = write(f)
		case "pbr-material":
			meshes = write(f)
		}
	}
	garbage := filepath.Join(dir, "garbage.glb")
	if err := os.WriteFile(garbage, []byte("glTF not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		path   string
		joints int    // with want ""
		want   string // error text
	}{
		{"bare skeleton", bare, 59, ""},
		{"skinned mesh", skinned, 59, ""},
		{"no animation", static, 0, "no animation drives its"},
		{"only mesh nodes", meshes, 0, "no skin and no node to use as a joint"},
		{"not glTF", garbage, 0, "garbage.glb"},
		{"OBJ", filepath.Join(dir, "a.obj"), 0, "an OBJ file holds no skeleton"},
		{"FBX", filepath.Join(dir, "a.fbx"), 0, "a.fbx"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := assets.LoadMotion(tc.path, assets.Options{})
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want an error containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Skeleton.NumJoints() != tc.joints || len(c.Animations) != 1 || len(c.Mesh.Positions) != 0 {
				t.Errorf("%d joints, %d animations, %d vertices; want %d, 1, 0",
					c.Skeleton.NumJoints(), len(c.Animations), len(c.Mesh.Positions), tc.joints)
			}
		})
	}
}
