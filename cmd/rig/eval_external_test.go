package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/eval"
)

const externalSample = "../../assets/samples/biped.glb"

func TestExternalFlagSet(t *testing.T) {
	tests := []struct {
		values  []string
		wantErr string // "" for success
	}{
		{[]string{"blender-heat=/runs/heat"}, ""},
		{[]string{"blender-heat=/runs/heat", "heat-weld=/runs/heat_weld"}, ""},
		{[]string{"blender-heat=a=b"}, ""}, // the folder may hold '='
		{[]string{"blender-heat"}, "want NAME=DIR"},
		{[]string{"=/runs/heat"}, "want NAME=DIR"},
		{[]string{"blender-heat="}, "want NAME=DIR"},
		{[]string{"geodesic=/runs/heat"}, "already a skin method"},
		{[]string{"rigid=/runs/heat"}, "already a skin method"},
		{[]string{"heat=/runs/heat"}, "already a skin method"}, // rigkit's own heat diffusion
		{[]string{"all=/runs/heat"}, "already a skin method"},
		{[]string{eval.GroundTruthMethod + "=/runs/heat"}, "already a skin method"},
		{[]string{"blender-heat=/a", "blender-heat=/b"}, "given twice"},
	}
	for _, tt := range tests {
		f := externalFlag{}
		var err error
		for _, v := range tt.values {
			if err = f.Set(v); err != nil {
				break
			}
		}
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.values, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: error %v, want %q", tt.values, err, tt.wantErr)
		case tt.wantErr == "" && len(f) != len(tt.values):
			t.Errorf("%q: got %v", tt.values, f)
		}
	}
	f := externalFlag{}
	f.Set("b=/y")
	f.Set("a=/x")
	if got := f.String(); got != "a=/x,b=/y" {
		t.Errorf("String() = %q", got)
	}
	if dir := f["a"]; dir != "/x" {
		t.Errorf("a = %q", dir)
	}
}

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

// TestEvalExternal scores a rig's own weights (a perfect match), weights all on
// joint 0 (worse) and a folder without the file (a reported failure) through
// `rig eval --external`.
func TestEvalExternal(t *testing.T) {
	gt := loadExternalSample(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	b, err := os.ReadFile(externalSample)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(data, "sub"), 0o755)
	if err := os.WriteFile(filepath.Join(data, "sub", "biped.glb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The weights of data/sub/biped.glb live at DIR/sub/biped.json.
	writeJSON(t, filepath.Join(dir, "own", "sub", "biped.json"), externalDoc(gt))
	wrong := externalDoc(gt)
	for v := range wrong["weights"].([][][]float64) {
		wrong["weights"].([][][]float64)[v] = [][]float64{{0, 1}}
	}
	writeJSON(t, filepath.Join(dir, "joint0", "sub", "biped.json"), wrong)
	missing := filepath.Join(dir, "missing")

	report := filepath.Join(dir, "report.md")
	var so, se bytes.Buffer
	args := []string{"eval", "--data", data, "--task", "skin", "--method", "rigid", "--leak=false",
		"--external", "own=" + filepath.Join(dir, "own"), "--external", "joint0=" + filepath.Join(dir, "joint0"),
		"--external", "missing=" + missing, "--out", report}
	if code := run(args, &so, &se); code != 0 {
		t.Fatalf("rig eval: exit %d: %s", code, se.String())
	}
	rep, byMethod := readSkinReport(t, filepath.Join(dir, "report.json"))
	if got := strings.Join(rep.Methods, ","); got != "rigid,joint0,missing,own" {
		t.Errorf("methods %s", got)
	}
	own, j0, miss := byMethod["own"], byMethod["joint0"], byMethod["missing"]
	if own.Metrics == nil || j0.Metrics == nil {
		t.Fatalf("own: %q, joint0: %q", own.Error, j0.Error)
	}
	if m := own.Metrics; m.L1 > 1e-6 || m.DeformMean > 1e-6 || m.DeformMax > 1e-6 ||
		math.Abs(m.Precision-1) > 1e-9 || math.Abs(m.Recall-1) > 1e-9 || m.Orphans != 0 || len(m.EmptyBones) != 0 {
		t.Errorf("own weights are not a perfect match: %+v", m)
	}
	if own.Seconds != 0.25 {
		t.Errorf("own: %v s, want the tool's 0.25", own.Seconds)
	}
	if m := j0.Metrics; m.L1 < 0.5 || m.DeformMean < 1 || len(m.EmptyBones) == 0 {
		t.Errorf("weights all on joint 0 score too well: %+v", m)
	}
	wantPath := filepath.Join(missing, "sub", "biped.json")
	if !strings.Contains(miss.Error, wantPath) || !strings.Contains(miss.Error, "no such file") {
		t.Errorf("missing: error %q", miss.Error)
	}
	md, _ := os.ReadFile(report)
	if !strings.Contains(string(md), "| own | 1 | 0 | 0 | 0.00 | 0.00 | 0 / 0 of 13 | 0.00 | 0.000 | 1.000 | 1.000 |") ||
		!strings.Contains(string(md), "| missing | 0 | 1 |") || !strings.Contains(string(md), wantPath) ||
		!strings.Contains(string(md), "### props (everything else): 1 assets") {
		t.Errorf("report:\n%s", md)
	}
}

// TestEvalListAndExternalUsage checks --list (the chosen files, nothing scored) and
// that --external needs the skin task.
func TestEvalListAndExternalUsage(t *testing.T) {
	data := t.TempDir()
	b, err := os.ReadFile(externalSample)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.glb", "b.glb", "c.glb"} {
		os.WriteFile(filepath.Join(data, n), b, 0o644)
	}
	var so, se bytes.Buffer
	if code := run([]string{"eval", "--data", data, "--list", "--limit", "2"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	want := filepath.Join(data, "a.glb") + "\n" + filepath.Join(data, "c.glb") + "\n"
	if so.String() != want {
		t.Errorf("--list printed %q, want %q", so.String(), want)
	}
	so.Reset()
	se.Reset()
	code := run([]string{"eval", "--data", data, "--task", "skeleton", "--external", "blender-heat=/x", "--out", filepath.Join(t.TempDir(), "r.md")}, &so, &se)
	if code == 0 || !strings.Contains(se.String(), "needs --task skin") {
		t.Errorf("exit %d, stderr %q", code, se.String())
	}
}

// readSkinReport reads a skin task's JSON report and its results by method (the
// last result of each method: these tests evaluate one asset).
func readSkinReport(t *testing.T, path string) (eval.SkinReport, map[string]eval.SkinResult) {
	t.Helper()
	js, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep eval.SkinReport
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	by := map[string]eval.SkinResult{}
	for _, r := range rep.Results {
		by[r.Method] = r
	}
	return rep, by
}
