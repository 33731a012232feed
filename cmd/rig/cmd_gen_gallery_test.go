package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/synth"
)

// TestGenGallery writes the gallery of two small creatures: each gets a contact
// sheet of two tiles and a GLB with the generated rig, and the index lists them
// with their real counts.
func TestGenGallery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gallery")
	for _, kind := range []string{"snake", "prop"} {
		var out, errb bytes.Buffer
		args := []string{"gen", "--gallery", dir, "--kind", kind, "--seed", "3", "--vertices", "800"}
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		f, err := os.Open(filepath.Join(dir, kind+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 2*gallerySize || img.Bounds().Dy() != gallerySize {
			t.Fatalf("%s.png: %v, bounds %v", kind, err, img.Bounds())
		}
		c, _, err := assets.Load(filepath.Join(dir, kind+".glb"), assets.Options{})
		if err != nil || !c.Rigged() {
			t.Fatalf("%s.glb: %v (rigged %v)", kind, err, c != nil && c.Rigged())
		}
		want, err := synth.Generate(kind, 3, synth.Options{TargetVertices: 800})
		if err != nil {
			t.Fatal(err)
		}
		index, err := os.ReadFile(filepath.Join(dir, "index.md"))
		if err != nil {
			t.Fatal(err)
		}
		row := fmt.Sprintf("| %s | ![%s](%s.png) | %d | %d | %s | [%s.glb](%s.glb) |", kind, kind, kind,
			len(want.Mesh.Positions), want.Skeleton.NumJoints(), want.Skeleton.Names[synth.ShowcaseJoint(want.Skeleton)], kind, kind)
		if !strings.Contains(string(index), row) {
			t.Errorf("index.md lacks %q:\n%s", row, index)
		}
		if c.Skeleton.NumJoints() != want.Skeleton.NumJoints() {
			t.Errorf("%s.glb has %d joints, the generator %d", kind, c.Skeleton.NumJoints(), want.Skeleton.NumJoints())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"gen", "--gallery", dir, "--out", "x.glb"}, &out, &errb); code != 2 {
		t.Errorf("--gallery with --out: exit %d, want 2 (%s)", code, errb.String())
	}
}
