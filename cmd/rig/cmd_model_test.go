package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/synth"
)

func TestAutoWritesValidRigsAndReports(t *testing.T) {
	in := t.TempDir()
	for i, kind := range []string{"quadruped", "winged"} {
		c, err := synth.Generate(kind, int64(i+1), synth.Options{TargetVertices: 800})
		if err != nil {
			t.Fatal(err)
		}
		c.Skeleton, c.Skin, c.Animations = nil, nil, nil // a bare mesh
		if _, err := assets.Save(filepath.Join(in, kind+".glb"), c); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(in, "broken.glb"), []byte("not a glb"), 0o644)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"auto", in, "--out", out, "--quiet", "--workers", "2"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "failed 1 of 3") {
		t.Fatalf("exit %d (want 1: one broken input)\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	for _, kind := range []string{"quadruped", "winged"} {
		c, _, err := assets.Load(filepath.Join(out, kind+".glb"), assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil || !c.Rigged() || len(c.Skin.Orphans()) > 0 {
			t.Errorf("%s: rig invalid (%v) or has orphans", kind, err)
		}
		data, err := os.ReadFile(filepath.Join(out, kind+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Status string
			Score  *float64
			Rig    struct{ Method string }
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Status != "ok" || rep.Score == nil || rep.Rig.Method == "" {
			t.Errorf("%s: report %s", kind, data)
		}
	}
	// Rerunning skips the finished assets.
	stdout.Reset()
	run([]string{"auto", in, "--out", out, "--quiet"}, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "skipped 2") {
		t.Errorf("rerun: %s", stdout.String())
	}
}

func TestEvalSkeletonTask(t *testing.T) {
	dir := t.TempDir()
	c, err := synth.Generate("quadruped", 3, synth.Options{TargetVertices: 600})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assets.Save(filepath.Join(dir, "quad.glb"), c); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.md")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"eval", "--data", dir, "--task", "skeleton", "--method", "classical", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(strings.TrimSuffix(out, ".md") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary map[string]struct {
			Assets, Failed int
			CDJ2J          float64 `json:"cd_j2j"`
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	s, ok := rep.Summary["classical"]
	if !ok || s.Assets != 1 || s.Failed != 0 || !(s.CDJ2J > 0 && s.CDJ2J < 0.5) {
		t.Errorf("summary %+v", rep.Summary)
	}
}

// TestAutoSkinMethods rigs one bare mesh with each --skin binding: the report names
// the method that skinned the rig, and the rig is valid with no orphan vertices.
func TestAutoSkinMethods(t *testing.T) {
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 800})
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton, c.Skin, c.Animations = nil, nil, nil
	in := filepath.Join(t.TempDir(), "biped.glb")
	if _, err := assets.Save(in, c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ skin, want string }{
		{"geodesic", "+geodesic"},
		{"heat", "+heat"},
		{"heat+geodesic@0.5", "+heat+geodesic@0.5"},
		{"envelope", ""},        // not a method: usage error
		{"heat+tokens", ""},     // tokens cannot be blended into every rig
		{"heat+geodesic@2", ""}, // no such share
	} {
		t.Run(tc.skin, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := run([]string{"auto", in, "--out", out, "--quiet", "--skin", tc.skin}, &stdout, &stderr)
			if tc.want == "" {
				if code != 2 || !strings.Contains(stderr.String(), "want tokens, geodesic, heat or a blend") {
					t.Fatalf("exit %d, stderr %s", code, stderr.String())
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
			}
			rig, _, err := assets.Load(filepath.Join(out, "biped.glb"), assets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := rig.Validate(); err != nil || len(rig.Skin.Orphans()) > 0 {
				t.Errorf("rig invalid (%v) or has orphans", err)
			}
			data, err := os.ReadFile(filepath.Join(out, "biped.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct{ Rig struct{ Method string } }
			if err := json.Unmarshal(data, &rep); err != nil || !strings.HasSuffix(rep.Rig.Method, tc.want) {
				t.Errorf("method %q (%v), want …%s", rep.Rig.Method, err, tc.want)
			}
		})
	}
}

// TestEvalSkinModelCheckpoint evaluates the shipped checkpoint's skin tokens through
// --method model=PATH: the same model and seeds as --method tokens, so the same
// metrics; a checkpoint that cannot be loaded is an error naming it.
func TestEvalSkinModelCheckpoint(t *testing.T) {
	if _, ok := skinMethods["tokens"]; !ok {
		t.Skip("no shipped model with skin tokens")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	b, err := os.ReadFile(filepath.Join("..", "..", "assets", "samples", "biped.glb"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "biped.glb"), b, 0o644)
	ckpt := filepath.Join("..", "..", "rigmodel", "checkpoints", "tokenrig.safetensors")
	var so, se bytes.Buffer
	args := []string{"eval", "--data", data, "--task", "skin", "--leak=false", "--method", "tokens,model=" + ckpt,
		"--out", filepath.Join(dir, "r.md")}
	if code := run(args, &so, &se); code != 0 {
		t.Fatalf("rig eval: exit %d: %s", code, se.String())
	}
	_, by := readSkinReport(t, filepath.Join(dir, "r.json"))
	tok, mod := by["tokens"], by["model"]
	if tok.Metrics == nil || mod.Metrics == nil {
		t.Fatalf("tokens: %q, model: %q", tok.Error, mod.Error)
	}
	if tok.Metrics.L1 != mod.Metrics.L1 || tok.Metrics.DeformMean != mod.Metrics.DeformMean {
		t.Errorf("model=shipped L1 %v deform %v, tokens L1 %v deform %v", mod.Metrics.L1, mod.Metrics.DeformMean, tok.Metrics.L1, tok.Metrics.DeformMean)
	}
	args[7] = "model=" + filepath.Join(dir, "nope.safetensors")
	se.Reset()
	if code := run(args, &so, &se); code == 0 || !strings.Contains(se.String(), "nope.safetensors") {
		t.Errorf("missing checkpoint: exit %d, %s", code, se.String())
	}
}
