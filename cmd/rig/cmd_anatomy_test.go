package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

// TestAutoAnatomy: rig auto names the demo biped's skeleton, classical or the
// model's, with Mixamo's names, roots it at Hips and reports the detection (and, for
// the model's, the naming); --kind and --up are checked.
func TestAutoAnatomy(t *testing.T) {
	in := filepath.Join("..", "..", "assets", "samples", "biped.glb")
	for _, compare := range []string{"--compare-classical=true", "--compare-classical=false"} {
		t.Run(compare, func(t *testing.T) { autoAnatomy(t, in, compare) })
	}
	var stdout, stderr bytes.Buffer
	for _, bad := range [][]string{{"--kind", "dragon"}, {"--up", "x"}} {
		args := append([]string{"auto", in, "--out", t.TempDir(), "--quiet"}, bad...)
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", bad, code)
		}
	}
}

// autoAnatomy rigs in with rig auto and checks the report and the written skeleton.
func autoAnatomy(t *testing.T, in, compare string) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"auto", in, "--out", out, "--quiet", compare, "--up", "y"}, &stdout, &stderr); code != 0 {
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
			Naming *struct {
				Named, Of int
				Root      string
			}
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	a := rep.Rig.Anatomy
	if a == nil || a.Kind != "humanoid" || a.Up != "y" || !a.UpGiven || a.Confidence <= 0.5 {
		t.Errorf("anatomy report %s", data)
	}
	model := !strings.HasPrefix(rep.Rig.Method, "classical")
	if n := rep.Rig.Naming; model && (n == nil || n.Root != "Hips" || n.Of < 2) {
		t.Errorf("naming report %s", data)
	}
	c, _, err := assets.Load(filepath.Join(out, "biped.glb"), assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk := c.Skeleton
	if sk.Names[0] != "Hips" {
		t.Errorf("%s rig: root %q", rep.Rig.Method, sk.Names[0])
	}
	for j, name := range sk.Names {
		if strings.HasPrefix(name, "joint_") || (j > 0 && sk.Parents[j] < 0) {
			t.Errorf("%s rig: joint %d %q with parent %d", rep.Rig.Method, j, name, sk.Parents[j])
		}
	}
}
