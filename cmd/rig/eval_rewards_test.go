package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/rewards"
)

// rankCands builds candidates whose rewards are all r except coverage, and whose
// score and error are given.
func rankCands(scores, errs, coverage []float64) []rankCandidate {
	var out []rankCandidate
	for i := range scores {
		rw := map[string]float64{}
		for _, n := range rewards.RewardNames {
			rw[n] = 0.5
		}
		rw[rewards.Coverage] = coverage[i]
		out = append(out, rankCandidate{Method: string(rune('a' + i)), Score: scores[i], Deform: errs[i], Rewards: rw})
	}
	return out
}

func TestRankTaus(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		scores, errs, coverage []float64
		tau, coverageAlone     float64
		undefinedAlone         string // a reward tied on every candidate: τ alone undefined
	}{
		{"agree", []float64{0.9, 0.8, 0.1}, []float64{0, 1, 5}, []float64{0.9, 0.5, 0.1}, 1, 1, rewards.Sanity},
		{"reversed", []float64{0.1, 0.8, 0.9}, []float64{0, 1, 5}, []float64{0.1, 0.5, 0.9}, -1, -1, rewards.Locality},
		{"one swap", []float64{0.9, 0.7, 0.8, 0.1}, []float64{0, 1, 2, 5}, []float64{0.9, 0.8, 0.7, 0.1}, 4.0 / 6, 1, rewards.SkinReward},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tau, alone, without := rankTaus(rankCands(tc.scores, tc.errs, tc.coverage))
			if tau == nil || math.Abs(*tau-tc.tau) > 1e-12 {
				t.Fatalf("τ %v, want %v", tau, tc.tau)
			}
			if a := alone[rewards.Coverage]; a == nil || math.Abs(*a-tc.coverageAlone) > 1e-12 {
				t.Errorf("coverage alone %v, want %v", a, tc.coverageAlone)
			}
			if alone[tc.undefinedAlone] != nil {
				t.Errorf("%s alone: τ %v of a tied reward, want undefined", tc.undefinedAlone, *alone[tc.undefinedAlone])
			}
			// Without coverage every candidate scores alike: undefined.
			if without[rewards.Coverage] != nil {
				t.Errorf("score without coverage: τ %v, want undefined", *without[rewards.Coverage])
			}
			// Without another reward the score is coverage's order.
			if w := without[rewards.Sanity]; w == nil || math.Abs(*w-tc.coverageAlone) > 1e-12 {
				t.Errorf("score without sanity: τ %v, want %v", w, tc.coverageAlone)
			}
		})
	}
	// Failed candidates are left out; under three left, nothing is defined.
	c := rankCands([]float64{0.9, 0.8, 0.1}, []float64{0, 1, 5}, []float64{0.9, 0.5, 0.1})
	c[2].Error = "failed"
	if tau, _, _ := rankTaus(c); tau != nil {
		t.Errorf("two candidates: τ %v, want undefined", *tau)
	}
}

// TestEvalRewardsTask runs `rig eval --task rewards` on the sample biped filed
// under two families: one in the report half (scored) and one in the tuning half
// (left out), plus a prop in the report half (left out).
func TestEvalRewardsTask(t *testing.T) {
	b, err := os.ReadFile(externalSample)
	if err != nil {
		t.Skipf("sample biped: %v", err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	manifest := ""
	for _, row := range []struct{ file, cat, fam string }{
		{"held.glb", "biped", "family-a"},      // report half
		{"tuned.glb", "biped", "family-c"},     // tuning half
		{"prop.glb", "prop/thing", "family-b"}, // report half, a prop
	} {
		if err := os.WriteFile(filepath.Join(data, row.file), b, 0o644); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(map[string]string{"file": row.file, "category": row.cat, "family": row.fam})
		manifest += string(js) + "\n"
	}
	if dataset.FamilyHalf("family-a") != dataset.ReportHalf || dataset.FamilyHalf("family-c") != dataset.TuneHalf {
		t.Fatal("the test's families changed halves")
	}
	os.WriteFile(filepath.Join(data, "manifest.jsonl"), []byte(manifest), 0o644)
	out := filepath.Join(dir, "r.md")
	var so, se bytes.Buffer
	if code := run([]string{"eval", "--data", data, "--task", "rewards", "--method", "heat,rigid,heat+rigid@0.3", "--out", out}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	var rep rankReport
	js, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Characters) != 1 || filepath.Base(rep.Characters[0].File) != "held.glb" {
		t.Fatalf("characters %+v, want held.glb alone", rep.Characters)
	}
	c := rep.Characters[0]
	if len(c.Candidates) != 4 || c.Candidates[0].Method != rankTruth || c.Candidates[0].Deform != 0 {
		t.Fatalf("candidates %+v", c.Candidates)
	}
	for _, k := range c.Candidates[1:] {
		if k.Error != "" || !(k.Deform > 0) || !(k.Score > 0) {
			t.Errorf("candidate %+v", k)
		}
	}
	if c.Tau == nil || *c.Tau < -1 || *c.Tau > 1 || rep.TauCount != 1 || rep.MeanTau != *c.Tau {
		t.Errorf("τ %v, mean %v over %d", c.Tau, rep.MeanTau, rep.TauCount)
	}
	if !strings.Contains(so.String(), "Mean Kendall τ") || !strings.Contains(so.String(), "held.glb") {
		t.Errorf("stdout:\n%s", so.String())
	}
}
