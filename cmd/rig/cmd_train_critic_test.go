package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/dataset"
)

// writeCandidates writes a CANDIDATES.json whose first feature grows with the
// distance to the artist's skeleton, for refitting with --from.
func writeCandidates(t *testing.T, path string) {
	t.Helper()
	var chars []critic.Character
	for i := 0; i < 8; i++ {
		c := critic.Character{File: "f.glb", Half: dataset.TuneHalf}
		if i%2 == 1 {
			c.Half = dataset.ReportHalf
		}
		for k := 0; k < 4; k++ {
			f := make([]float64, len(critic.FeatureNames))
			f[0], f[1] = float64(k), float64((k*7+i)%3)
			c.Cands = append(c.Cands, critic.Candidate{Name: "k", CD: 0.05 * float64(k), F: f})
		}
		chars = append(chars, c)
	}
	b, err := json.Marshal(chars)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTrainCriticCommand(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "cands.json")
	writeCandidates(t, from)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.json")
	if err := os.WriteFile(short, []byte(`[{"file": "x.glb", "half": "tune", "candidates": [{"name": "artist", "cd_j2j": 0, "features": [1, 2]}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "critic.json")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"refits", []string{"--from", from, "--out", out, "--features", "log_joints,leaf_share"}, exitOK, ""},
		{"no out", []string{"--from", from}, exitUsage, "--out"},
		{"data and from", []string{"--from", from, "--data", dir, "--out", out}, exitUsage, "one of --data or --from"},
		{"stdout", []string{"--from", from, "--out", "-"}, exitUsage, "writes a file"},
		{"bad l2", []string{"--from", from, "--out", out, "--l2", "0"}, exitUsage, "--l2"},
		{"unknown feature", []string{"--from", from, "--out", out, "--features", "nope"}, exitFailed, "unknown feature"},
		{"missing candidates", []string{"--from", filepath.Join(dir, "none.json"), "--out", out}, exitFailed, "none.json"},
		{"broken candidates", []string{"--from", bad, "--out", out}, exitFailed, "bad.json"},
		{"short features", []string{"--from", short, "--out", out}, exitFailed, "x.glb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"train-critic"}, tc.args...), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := critic.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !(m.Weights[0] < 0) || m.Weights[2] != 0 || !strings.Contains(m.Training.Command, "--features") {
		t.Errorf("weights %v, command %q: want the first feature fitted against distance, the third left out, the command recorded", m.Weights, m.Training.Command)
	}
}

// TestEvalRewardFlag: --reward belongs to the rewards task and takes what
// rewards.WeightsFor takes.
func TestEvalRewardFlag(t *testing.T) {
	samples := filepath.Join("..", "..", "assets", "samples")
	for _, tc := range []struct {
		name, task, reward, stderr string
	}{
		{"other task", "skin", "v3", "needs --task rewards"},
		{"unknown reward", "rewards", "coverage=1,nope=2", "unknown reward"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"eval", "--data", samples, "--task", tc.task, "--reward", tc.reward, "--out", filepath.Join(t.TempDir(), "r.md"), "--quiet"}
			if code := run(args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), exitUsage, tc.stderr)
			}
		})
	}
}
