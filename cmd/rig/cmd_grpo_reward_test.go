package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/train"
)

// TestGRPORewardFlag checks `rig grpo --reward`: a version or a list of weights
// trains and is recorded in the checkpoint as given; anything else is a usage
// error (exit 2) that names the problem, before any training.
func TestGRPORewardFlag(t *testing.T) {
	in := t.TempDir()
	c, err := synth.Generate("quadruped", 1, synth.Options{TargetVertices: 500})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assets.Save(filepath.Join(in, "q.glb"), c); err != nil {
		t.Fatal(err)
	}
	cfg := rigmodel.Config{DModel: 16, Layers: 1, Heads: 2, Latents: 4, Points: 32, Fourier: 2, MaxSeq: 136,
		Vocab: tokens.VocabSize, MaxJoint: 16}
	m, err := rigmodel.NewModel(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	init := filepath.Join(t.TempDir(), "init.safetensors")
	if err := train.SaveCheckpointFile(init, m, &rigmodel.TrainState{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, value string
		code        int
		record      string // GRPOState.Reward of the checkpoint (exit 0)
		stderr      string // part of the message (exit 2)
	}{
		{"version 3", "v3", 0, "v3", ""},
		{"version 4", "v4", 0, "v4", ""},
		{"current weights", "", 0, "", ""},
		{"explicit weights, spaces trimmed", " coverage=2,limbs=1 ", 0, "coverage=2,limbs=1", ""},
		{"unknown version", "v9", 2, "", "not a version"},
		{"unknown reward", "motion=1", 2, "", "unknown reward"},
		{"negative weight", "coverage=-2", 2, "", "finite weight"},
		{"all zero", "coverage=0", 2, "", "every weight is 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "grpo.safetensors")
			args := []string{"grpo", "--data", in, "--all-files", "--model", init, "--out", out, "--steps", "1",
				"--group", "2", "--meshes", "1", "--quiet", "--reward", tc.value}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			if code != 0 {
				if !strings.Contains(stderr.String(), tc.stderr) {
					t.Errorf("stderr %q lacks %q", stderr.String(), tc.stderr)
				}
				return
			}
			_, st, err := rigmodel.LoadCheckpointFile(out)
			if err != nil || st.GRPO == nil || st.GRPO.Reward != tc.record {
				t.Fatalf("checkpoint %v: %+v, want reward %q", err, st.GRPO, tc.record)
			}
		})
	}
}
