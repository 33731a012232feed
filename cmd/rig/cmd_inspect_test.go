package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

func writeTriangleRig(t *testing.T, path string) {
	t.Helper()
	c := &character.Character{
		Name: "tri",
		Mesh: character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}}},
		Skeleton: &character.Skeleton{Names: []string{"root"}, Parents: []int{-1},
			BindWorld: []vecmath.Mat4{vecmath.Identity4()}},
		Skin: &character.Skin{Weights: [][]character.Influence{{{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}}},
	}
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
}

func TestInspectAndConvertCommands(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tri.glb")
	writeTriangleRig(t, in)

	var out, errb bytes.Buffer
	if code := run([]string{"inspect", in}, &out, &errb); code != 0 {
		t.Fatalf("inspect exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"vertices     3", "triangles    1", "joints       1", "3 boundary edges"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"inspect", in, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("inspect --json exit %d: %s", code, errb.String())
	}
	var r assets.InspectReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Vertices != 3 || r.Joints != 1 {
		t.Fatalf("json %v: %+v", err, r)
	}

	dst := filepath.Join(dir, "tri.gltf")
	out.Reset()
	if code := run([]string{"convert", in, dst}, &out, &errb); code != 0 {
		t.Fatalf("convert exit %d: %s", code, errb.String())
	}
	if c, _, err := assets.Load(dst, assets.Options{}); err != nil || c.Skeleton.Names[0] != "root" {
		t.Fatalf("converted file: %v", err)
	}

	// Errors: one line on stderr, exit 1; bad arguments exit 2.
	errb.Reset()
	bad := filepath.Join(dir, "bad.glb")
	os.WriteFile(bad, []byte("glTF\x02\x00\x00\x00"), 0o644)
	if code := run([]string{"inspect", bad}, &out, &errb); code != 1 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), bad) {
		t.Errorf("corrupt file: exit %d, stderr %q", code, errb.String())
	}
	if code := run([]string{"convert", in}, &out, &errb); code != 2 {
		t.Errorf("convert with one argument: exit %d, want 2", code)
	}
}
