package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

const externalSample = "../assets/samples/biped.glb"

// externalDoc is the JSON tools/blender/heat.py writes, here for c's own weights.
func externalDoc(c *character.Character) map[string]any {
	verts := make([][]float64, len(c.Mesh.Positions))
	for v, p := range c.Mesh.Positions {
		verts[v] = []float64{p[0], p[1], p[2]}
	}
	weights := make([][][]float64, len(c.Skin.Weights))
	for v, row := range c.Skin.Weights {
		weights[v] = [][]float64{}
		for _, in := range row {
			weights[v] = append(weights[v], []float64{float64(in.Joint), in.Weight})
		}
	}
	return map[string]any{"joints": c.Skeleton.Names, "vertices": verts, "weights": weights, "seconds": 0.25}
}

func writeJSON(t *testing.T, path string, doc any) {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func loadExternalSample(t *testing.T) *character.Character {
	t.Helper()
	gt, _, err := assets.Load(externalSample, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !gt.Rigged() {
		t.Fatalf("%s is not rigged", externalSample)
	}
	return gt
}

// TestExternalSkinBadInput checks that every malformed weights file is an error
// that names the file, never a panic or a silent zero.
func TestExternalSkinBadInput(t *testing.T) {
	gt := loadExternalSample(t)
	good := func() map[string]any { return externalDoc(gt) }
	tests := []struct {
		name    string
		doc     any    // JSON-encoded into the file; nil: raw is written instead
		raw     string // written as is when doc is nil
		noFile  bool
		wantErr string
	}{
		{name: "missing file", noFile: true, wantErr: "no such file"},
		{name: "tool error", raw: `{"error": "RuntimeError: no armature\nafter import"}`, wantErr: "the tool failed: RuntimeError: no armature after import"},
		{name: "not JSON", raw: `{"joints": [`, wantErr: "unexpected end of JSON"},
		{name: "NaN weight", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[[0, NaN]]]}`, wantErr: "invalid character 'N'"},
		{name: "negative weight", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[[0, -0.5]]]}`, wantErr: "weight -0.5 on joint 0"},
		{name: "overflowing weight", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[[0, 1e999]]]}`, wantErr: "cannot unmarshal"},
		{name: "joint index out of range", raw: `{"joints": ["a", "b"], "vertices": [[0,0,0]], "weights": [[[2, 1]]]}`, wantErr: "vertex 0 names joint 2 of 2"},
		{name: "negative joint index", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[[-1, 1]]]}`, wantErr: "names joint -1 of 1"},
		{name: "huge joint index", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[[1e300, 1]]]}`, wantErr: "names joint 1e+300 of 1"},
		{name: "fractional joint index", raw: `{"joints": ["a", "b"], "vertices": [[0,0,0]], "weights": [[[0.5, 1]]]}`, wantErr: "names joint 0.5 of 2"},
		{name: "short influence", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[[0]]]}`, wantErr: "influence of 1 numbers"},
		{name: "short vertex", raw: `{"joints": ["a"], "vertices": [[0,0]], "weights": [[]]}`, wantErr: "vertex 0 has 2 coordinates"},
		{name: "weights for fewer vertices", raw: `{"joints": ["a"], "vertices": [[0,0,0], [1,0,0]], "weights": [[]]}`, wantErr: "1 weight lists for 2 vertices"},
		{name: "negative seconds", raw: `{"joints": ["a"], "vertices": [[0,0,0]], "weights": [[]], "seconds": -1}`, wantErr: "seconds -1"},
		{name: "empty object", raw: `{}`, wantErr: "no vertices or no joints"},
		{name: "null", raw: `null`, wantErr: "no vertices or no joints"},
		{name: "joint not in the skeleton", doc: func() any {
			d := good()
			d["joints"] = append([]string{"not-a-bone"}, gt.Skeleton.Names[1:]...)
			return d
		}(), wantErr: `predicted joint "not-a-bone" has no ground-truth namesake`},
		{name: "fewer vertices than the mesh", doc: func() any {
			d := good()
			d["vertices"] = d["vertices"].([][]float64)[:100]
			d["weights"] = d["weights"].([][][]float64)[:100]
			return d
		}(), wantErr: "has no predicted vertex within"},
		{name: "vertices moved", doc: func() any {
			d := good()
			for _, p := range d["vertices"].([][]float64) {
				p[1] += 0.01
			}
			return d
		}(), wantErr: "has no predicted vertex within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "asset.json")
			switch {
			case tt.noFile:
			case tt.doc != nil:
				writeJSON(t, path, tt.doc)
			default:
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(tt.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, _, err := externalSkin(gt, path)
			if err == nil {
				t.Fatalf("no error (%d weight lists)", len(w.Weights))
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q, want the file and %q", err, tt.wantErr)
			}
		})
	}

	t.Run("oversize", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "big.json")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Truncate(path, maxExternalBytes+1); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		_, _, err = loadExternalSkin(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "more than the") {
			t.Fatalf("error %v", err)
		}
	})

	t.Run("own weights", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "asset.json")
		writeJSON(t, path, good())
		w, secs, err := externalSkin(gt, path)
		if err != nil {
			t.Fatal(err)
		}
		if secs != 0.25 || len(w.Weights) != len(gt.Mesh.Positions) {
			t.Fatalf("%v s, %d weight lists", secs, len(w.Weights))
		}
	})
}
