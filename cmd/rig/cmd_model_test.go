package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
)

func TestAutoWritesValidRigsAndReports(t *testing.T) {
	in := t.TempDir()
	for i, kind := range []string{"quadruped", "winged"} {
		c, err := synth.Generate(kind, int64(i+1), synth.Options{TargetVertices: 800})
		if err != nil {
			t.Fatal(err)
		}
		c.Skeleton, c.Skin, c.Animations = nil, nil, nil // a bare mesh
		if err := assets.Save(filepath.Join(in, kind+".glb"), c); err != nil {
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
		c, err := assets.Load(filepath.Join(out, kind+".glb"))
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
