package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/train"
)

func TestGRPOCommandRunsAndResumes(t *testing.T) {
	in := t.TempDir()
	for i, kind := range []string{"quadruped", "biped"} {
		c, err := synth.Generate(kind, int64(i+1), synth.Options{TargetVertices: 500})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := assets.Save(filepath.Join(in, kind+".glb"), c); err != nil {
			t.Fatal(err)
		}
	}
	// A tiny untrained model: its streams are random, so rewards differ within a group.
	cfg := rigmodel.Config{DModel: 16, Layers: 1, Heads: 2, Latents: 4, Points: 32, Fourier: 2, MaxSeq: 136,
		Vocab: tokens.VocabSize, MaxJoint: 16}
	m, err := rigmodel.NewModel(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	init := filepath.Join(dir, "init.safetensors")
	if err := train.SaveCheckpointFile(init, m, &rigmodel.TrainState{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "grpo.safetensors")
	args := func(steps string, extra ...string) []string {
		return append([]string{"grpo", "--data", in, "--all-files", "--model", init, "--out", out, "--steps", steps, "--group", "3",
			"--meshes", "1", "--lr", "1e-3", "--quiet"}, extra...)
	}
	var stdout, stderr bytes.Buffer
	if code := run(args("2"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "grpo step 2: mean reward") {
		t.Errorf("stdout lacks the step log:\n%s", stdout.String())
	}
	_, st, err := rigmodel.LoadCheckpointFile(out)
	if err != nil || st.GRPO == nil || st.GRPO.Step != 2 || st.GRPO.Files != 2 {
		t.Fatalf("checkpoint %v: %+v", err, st)
	}
	// --resume continues to step 3 and appends to the log.
	stdout.Reset()
	if code := run(args("3", "--resume"), &stdout, &stderr); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr.String())
	}
	var final struct {
		GRPO struct{ Step int } `json:"grpo"`
	}
	js := stdout.String()[strings.Index(stdout.String(), "{"):]
	if err := json.Unmarshal([]byte(js), &final); err != nil || final.GRPO.Step != 3 {
		t.Fatalf("final state %q: %v", js, err)
	}
	log, err := os.ReadFile(strings.TrimSuffix(out, ".safetensors") + ".log.jsonl")
	if err != nil || strings.Count(string(log), "\n") != 3 {
		t.Errorf("log %q: %v", log, err)
	}
	// --kl keeps the policy near --model: the log rows carry the KL and the
	// checkpoint records its weight.
	klOut := filepath.Join(dir, "kl.safetensors")
	stdout.Reset()
	klArgs := []string{"grpo", "--data", in, "--all-files", "--model", init, "--out", klOut, "--steps", "3", "--group", "3",
		"--meshes", "1", "--lr", "1e-2", "--kl", "0.5", "--quiet"}
	if code := run(klArgs, &stdout, &stderr); code != 0 {
		t.Fatalf("--kl: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "KL ") {
		t.Errorf("stdout lacks the KL:\n%s", stdout.String())
	}
	if _, st, err := rigmodel.LoadCheckpointFile(klOut); err != nil || st.GRPO == nil || st.GRPO.KL != 0.5 {
		t.Fatalf("--kl checkpoint %v: %+v", err, st)
	}
	klLog, err := os.ReadFile(strings.TrimSuffix(klOut, ".safetensors") + ".log.jsonl")
	if err != nil || !strings.Contains(string(klLog), `"kl":`) {
		t.Errorf("--kl log lacks the KL: %q %v", klLog, err)
	}
	// Bad flags are usage errors.
	if code := run([]string{"grpo", "--data", in, "--out", out, "--skin", "paint"}, &stdout, &stderr); code != 2 {
		t.Errorf("--skin paint: exit %d, want 2", code)
	}
}
