package rigmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseShardEnv(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		env     map[string]string
		k, n    int
		wantErr string
	}{
		{"kubernetes index", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 2, 4, ""},
		{"slurm id", "auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, 3, 4, ""},
		{"slurm from 1", "auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1"}, 3, 4, ""},
		{"kubernetes first", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "3"}, 1, 4, ""},
		{"explicit ignores env", "0/2", map[string]string{"JOB_COMPLETION_INDEX": "1"}, 0, 2, ""},
		{"no env", "auto/4", nil, 0, 0, "JOB_COMPLETION_INDEX"},
		{"index too large", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "4"}, 0, 0, "0 <= k < n"},
		{"not a number", "auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, 0, 0, "not an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, n, err := ParseShardEnv(tc.in, func(v string) string { return tc.env[v] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || k != tc.k || n != tc.n {
				t.Fatalf("= %d/%d, %v; want %d/%d", k, n, err, tc.k, tc.n)
			}
		})
	}
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

// TestProgressPlainLines checks that progress written to a file (not a terminal)
// is plain lines, without carriage returns or escape codes.
func TestProgressPlainLines(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is a terminal")
	}
	p := NewProgress(f, "work", 3)
	for i := 0; i < 3; i++ {
		p.Add(1, 0)
	}
	p.Finish()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if strings.ContainsAny(s, "\r\x1b") || !strings.HasPrefix(s, "work 3/3 ") || strings.Count(s, "\n") != 1 {
		t.Fatalf("progress %q: want one plain final line (updates come every %v)", s, PlainEvery)
	}
}
