package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoAnatomy: rig auto names the demo biped's classical skeleton with Mixamo's
// names, roots it at Hips and reports the detection; --kind and --up are checked.
func TestAutoAnatomy(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	in := filepath.Join("..", "..", "assets", "samples", "biped.glb")
	if code := run([]string{"auto", in, "--out", out, "--quiet", "--compare-classical=true", "--up", "y"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "biped.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rig struct {
			Method  string
			Anatomy *struct {
				Kind       string
				Confidence float64
				Up         string
				UpGiven    bool `json:"up_given"`
			}
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(rep.Rig.Method, "classical") {
		a := rep.Rig.Anatomy
		if a == nil || a.Kind != "humanoid" || a.Up != "y" || !a.UpGiven || a.Confidence <= 0.5 {
			t.Errorf("anatomy report %s", data)
		}
	}
	for _, bad := range [][]string{{"--kind", "dragon"}, {"--up", "x"}} {
		args := append([]string{"auto", in, "--out", t.TempDir(), "--quiet"}, bad...)
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", bad, code)
		}
	}
}
