package autorig

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/rigmodel"
)

func TestDiscoverInputs(t *testing.T) {
	dir := writeInputs(t, map[string]string{
		"m/horse.glb":      "x",
		"m/cube.obj":       "x",
		"m/cube.mtl":       "x",
		"m/skin.png":       "x",
		"m/hero.fbx":       "x",
		"m/scan.stl":       "x",
		"list.jsonl":       `{"file": "m/hero.fbx"}` + "\n",
		"model.obj":        "x",
		"char.fbx":         "x",
		"char.dae":         "x",
		"notes.md":         "x",
		"looks_like.jsonx": "x",
	})
	items, skipped, err := rigmodel.DiscoverInputs([]string{filepath.Join(dir, "m")})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Name != "cube" || items[1].Name != "horse" {
		t.Fatalf("items %+v", items)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	if len(skipped) != 4 || !strings.Contains(reasons["hero.fbx"], "convert it to GLB") ||
		!strings.Contains(reasons["scan.stl"], "not a format rigkit reads") || !strings.Contains(reasons["skin.png"], "not a mesh") {
		t.Fatalf("skipped %+v", skipped)
	}
	var log bytes.Buffer
	rigmodel.LogSkipped(&log, skipped)
	if s := log.String(); !strings.Contains(s, "hero.fbx") || !strings.Contains(s, "scan.stl") || !strings.Contains(s, "2 files (.mtl 1, .png 1)") {
		t.Fatalf("log %q", s)
	}
	// Named files: meshes and manifests are read, anything else is an error.
	for _, tc := range []struct{ file, wantErr string }{
		{"model.obj", ""},
		{"list.jsonl", ""}, // the listed .fbx fails later, as that asset
		{"char.fbx", "assimp export"},
		{"char.dae", "collada_import"},
		{"notes.md", `unknown extension ".md"`},
		{"looks_like.jsonx", "manifests (.jsonl, .txt)"},
	} {
		_, _, err := rigmodel.DiscoverInputs([]string{filepath.Join(dir, tc.file)})
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.wantErr)
		}
	}
}
