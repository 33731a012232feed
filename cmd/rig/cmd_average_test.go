package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/train"
)

// saveTinyModel writes a small untrained checkpoint with seed and skin-token state.
func saveTinyModel(t *testing.T, path string, seed uint64, skin bool) {
	t.Helper()
	cfg := rigmodel.Config{DModel: 16, Layers: 1, Heads: 2, Latents: 4, Points: 24, Fourier: 2,
		MaxSeq: 264, Vocab: tokens.VocabSize, MaxJoint: 32}
	m, err := rigmodel.NewModel(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := train.SaveCheckpointFile(path, m, &rigmodel.TrainState{Config: cfg, Step: int(seed), SkinTokens: skin}); err != nil {
		t.Fatal(err)
	}
}

func TestAverageCommand(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors"), filepath.Join(dir, "c.safetensors")
	saveTinyModel(t, a, 1, false)
	saveTinyModel(t, b, 2, false)
	saveTinyModel(t, c, 3, true)
	out := filepath.Join(dir, "avg.safetensors")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"averages", []string{"--out", out, "--weights", "1,3", a, b}, exitOK, ""},
		{"one input", []string{"--out", out, a}, exitUsage, "at least two"},
		{"weight count", []string{"--out", out, "--weights", "1", a, b}, exitUsage, "1 values for 2"},
		{"bad weight", []string{"--out", out, "--weights", "1,-2", a, b}, exitUsage, "positive"},
		{"other tokens", []string{"--out", out, a, c}, exitFailed, "other tokens"},
		{"missing file", []string{"--out", out, a, filepath.Join(dir, "none.safetensors")}, exitFailed, "none.safetensors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"average"}, tc.args...), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
	_, st, err := rigmodel.LoadCheckpointFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Step != 2 || len(st.Averaged) != 2 || !strings.Contains(st.Averaged[0], "a.safetensors (step 1)") {
		t.Fatalf("state: step %d, averaged %q", st.Step, st.Averaged)
	}
}
