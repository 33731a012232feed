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

// `rig auto --isolate` rigs each input in a worker process and reports each as
// the in-process batch does.
func TestAutoIsolate(t *testing.T) {
	t.Setenv(asRigEnv, "1")
	in := t.TempDir()
	c, err := synth.Generate("quadruped", 1, synth.Options{TargetVertices: 800})
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton, c.Skin, c.Animations = nil, nil, nil
	if _, err := assets.Save(filepath.Join(in, "quadruped.glb"), c); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in, "broken.glb"), []byte("not a glb"), 0o644)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"auto", in, "--out", out, "--quiet", "--isolate", "--skin", "heat"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "rigged 1, skipped 0 (already done), failed 1 of 2") {
		t.Fatalf("exit %d (want 1)\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	var rep struct{ Status, Error string }
	data, _ := os.ReadFile(filepath.Join(out, "quadruped.json"))
	if json.Unmarshal(data, &rep); rep.Status != "ok" {
		t.Errorf("quadruped: %s", data)
	}
	data, _ = os.ReadFile(filepath.Join(out, "broken.json"))
	if json.Unmarshal(data, &rep); rep.Status != "failed" || !strings.Contains(rep.Error, "not a glTF file") {
		t.Errorf("broken: %s", data)
	}
	if _, _, err := assets.Load(filepath.Join(out, "quadruped.glb"), assets.Options{}); err != nil {
		t.Error(err)
	}
	// Workers that die are each reported with the runtime's message, and the batch
	// still ends with a summary.
	t.Setenv(asRigEnv, "die")
	out = t.TempDir()
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"auto", in, "--out", out, "--quiet", "--isolate"}, &stdout, &stderr)
	if code != 1 || strings.Count(stderr.String(), "worker process died (exit status 2): fatal error: runtime: out of memory") != 2 {
		t.Fatalf("dying workers: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "summary-0-of-1.json")); err != nil {
		t.Error(err)
	}
}
