package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeInputs writes files (relative path: content) under a new temporary folder
// and returns it.
func writeInputs(t *testing.T, names map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range names {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

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
	items, skipped, err := DiscoverInputs([]string{filepath.Join(dir, "m")})
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
	LogSkipped(&log, skipped)
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
		_, _, err := DiscoverInputs([]string{filepath.Join(dir, tc.file)})
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.wantErr)
		}
	}
}

func TestListInputsNamesAndManifests(t *testing.T) {
	dir := writeInputs(t, map[string]string{
		"a/horse.glb":      "x",
		"b/horse.glb":      "x",
		"b/cow.gltf":       "x",
		"b/notes.txt":      "not a mesh",
		"c/deep/pig.glb":   "x",
		"list.jsonl":       `{"file": "a/horse.glb"}` + "\n" + `{"file": "c/deep/pig.glb"}` + "\n",
		"plain/list.txt":   "../b/cow.gltf\n# comment\n",
		"plain/ignore.bin": "x",
		"broken.jsonl":     `{"file": "a/horse.glb"}` + "\n" + `{"file": ` + "\n",
	})
	tests := []struct {
		name   string
		inputs []string
		want   []string // output names
	}{
		{"folder", []string{dir}, []string{"a_horse", "b_horse", "cow", "pig"}},
		{"jsonl manifest", []string{filepath.Join(dir, "list.jsonl")}, []string{"horse", "pig"}},
		{"txt manifest", []string{filepath.Join(dir, "plain", "list.txt")}, []string{"cow"}},
		{"duplicates merge", []string{filepath.Join(dir, "b", "cow.gltf"), filepath.Join(dir, "b")}, []string{"cow", "horse"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items, err := ListInputs(tc.inputs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Name)
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("names %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := ListInputs([]string{filepath.Join(dir, "missing.glb")}); err == nil {
		t.Error("missing input: no error")
	}
	broken := filepath.Join(dir, "broken.jsonl")
	if _, err := ListInputs([]string{broken}); err == nil || !strings.Contains(err.Error(), broken+" line 2") {
		t.Errorf("broken manifest: err %v, want one naming %s line 2", err, broken)
	}
}

func TestHeldOutSplitsByFamily(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/data not present")
	}
	items, err := ListInputs([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	fam := DescribeItems(items)
	held := map[string]bool{}
	n := 0
	for _, it := range items {
		f := fam[it.Path]
		h := f.HeldOut()
		if prev, ok := held[f.Family]; ok && prev != h {
			t.Fatalf("family %s split across train and validation", f.Family)
		}
		held[f.Family] = h
		if h {
			n++
		}
	}
	if n == 0 || n > len(items)/3 {
		t.Errorf("%d of %d files held out", n, len(items))
	}
}
