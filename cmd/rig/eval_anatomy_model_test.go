package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalAnatomyModelMethod names the shipped model's skeleton (whatever checkpoint
// is shipped) of a biped file and of a generated biped: one file each, a per-file
// line; a missing checkpoint is an error that names it.
func TestEvalAnatomyModelMethod(t *testing.T) {
	data := rigFolder(t, "biped", "quadruped")
	md := runReport(t, 0, "eval", "--task", "anatomy", "--data", data, "--split", "all", "--method", "model")
	if !strings.Contains(md, "| files | model joints | with Mixamo names |") || !strings.Contains(md, "| biped.glb | humanoid |") ||
		strings.Contains(md, "quadruped.glb") || !strings.Contains(md, "one root (before)") {
		t.Errorf("model naming report (the biped alone):\n%s", md)
	}
	if line := strings.Split(md, "\n")[2]; !strings.HasPrefix(line, "| 1 | ") {
		t.Errorf("summary %q, want one file", line)
	}
	md = runReport(t, 0, "eval", "--task", "anatomy", "--synthetic", "1", "--method", "model")
	if !strings.Contains(md, "| files | model joints | with Mixamo names |") || !strings.Contains(md, "| synth/biped_1 | humanoid |") {
		t.Errorf("model naming report of a synthetic biped:\n%s", md)
	}
	missing := filepath.Join(data, "missing.safetensors")
	if msg := runReport(t, 1, "eval", "--task", "anatomy", "--data", data, "--split", "all", "--method", "model="+missing); !strings.Contains(msg, "missing.safetensors") {
		t.Errorf("missing checkpoint: %s", msg)
	}
}
