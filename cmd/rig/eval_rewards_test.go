package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/eval"
)

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
	var rep eval.RankReport
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
	if len(c.Candidates) != 4 || c.Candidates[0].Method != "truth" || c.Candidates[0].Deform != 0 {
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
