package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/hostile"
)

// TestHostileCheckpointsCommands runs every hostile checkpoint config through the
// commands that read it, as subprocesses under rigLimited's memory and time
// limits: each must exit with an error naming the file and the field, never crash
// or run out of memory.
func TestHostileCheckpointsCommands(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the memory limit with ulimit")
	}
	dir := t.TempDir()
	model, err := os.ReadFile("../../rigmodel/checkpoints/tokenrig.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	skin, err := os.ReadFile("../../skincodec/checkpoints/skin.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	models, err := hostile.Checkpoints(dir, "model", model, hostile.ModelConfigLies)
	if err != nil {
		t.Fatal(err)
	}
	skins, err := hostile.Checkpoints(dir, "skin", skin, hostile.SkinConfigLies)
	if err != nil {
		t.Fatal(err)
	}
	mesh, err := hostile.Mesh(dir, "mesh.glb", 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	toks := filepath.Join(dir, "tokens.json")
	if err := os.WriteFile(toks, []byte(`{"tokens":[0]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := func(tc hostile.Case) [][]string {
		if strings.HasPrefix(tc.Name, "model") {
			return [][]string{{"auto", "--model", tc.Path, "--out", out, "--quiet", mesh}}
		}
		return [][]string{{"serve", "--checkpoint", tc.Path, "--addr", "127.0.0.1:0"},
			{"tokenize", "--checkpoint", tc.Path, mesh}, {"detokenize", "--checkpoint", tc.Path, "--mesh", mesh, "--out", filepath.Join(out, "d.glb"), toks}}
	}
	for _, tc := range append(models, skins...) {
		for _, args := range runs(tc) {
			stdout, stderr, err := rigLimited(t, args...)
			if err == nil || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "fatal error") {
				t.Fatalf("rig %s on %s: %v\n%s%s", args[0], tc.What, err, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.Path) || !strings.Contains(stderr, tc.Want) {
				t.Errorf("rig %s on %s: stderr does not name the file and %q:\n%s", args[0], tc.What, tc.Want, stderr)
			}
		}
	}
}
