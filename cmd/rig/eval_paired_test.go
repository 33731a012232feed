package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/eval"
	"github.com/rigkit/rigkit/metrics"
)

// skinRes is a scored result for the paired tests.
func skinRes(file, category, method string, deform float64) eval.SkinResult {
	return eval.SkinResult{File: file, Category: category, Method: method, Metrics: &metrics.SkinResult{DeformMean: deform}}
}

func writeReport(t *testing.T, dir, name string, rep eval.SkinReport) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalFromReports merges two skin reports and pairs their methods, and rejects
// reports that cannot be merged.
func TestEvalFromReports(t *testing.T) {
	dir := t.TempDir()
	a := writeReport(t, dir, "a.json", eval.SkinReport{Task: "skin", Seed: 1, Methods: []string{"base"}, Results: []eval.SkinResult{
		skinRes("x.glb", "biped", "base", 3), skinRes("y.glb", "prop", "base", 8),
	}})
	b := writeReport(t, dir, "b.json", eval.SkinReport{Task: "skin", Seed: 1, Methods: []string{"m", "base"}, Results: []eval.SkinResult{
		skinRes("x.glb", "biped", "m", 2), skinRes("y.glb", "prop", "m", 9), skinRes("x.glb", "biped", "base", 3),
	}})
	out := filepath.Join(dir, "merged.md")
	var so, se bytes.Buffer
	if code := run([]string{"eval", "--task", "skin", "--from", a, "--from", b, "--baseline", "base", "--out", out}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	rep, _ := readSkinReport(t, strings.TrimSuffix(out, ".md")+".json")
	if len(rep.Results) != 4 {
		t.Errorf("%d results after merging, want 4 (the duplicate dropped)", len(rep.Results))
	}
	var all *eval.SkinPaired
	for i, p := range rep.Paired {
		if p.Split == "all" && p.Method == "m" {
			all = &rep.Paired[i]
		}
	}
	if all == nil || all.Files != 2 || math.Abs(all.MeanDiff) > 1e-12 || all.Lower != 1 || all.Higher != 1 {
		t.Fatalf("paired over all: %+v", all)
	}
	md, _ := os.ReadFile(out)
	if !strings.Contains(string(md), "### paired against base") || !strings.Contains(string(md), "2 files;") {
		t.Errorf("markdown lacks the paired table or the file count:\n%s", md)
	}

	seed2 := writeReport(t, dir, "seed2.json", eval.SkinReport{Task: "skin", Seed: 2, Methods: []string{"m"}, Results: []eval.SkinResult{skinRes("x.glb", "biped", "m", 2)}})
	conflict := writeReport(t, dir, "conflict.json", eval.SkinReport{Task: "skin", Seed: 1, Methods: []string{"base"}, Results: []eval.SkinResult{skinRes("x.glb", "biped", "base", 4)}})
	notSkin := writeReport(t, dir, "skel.json", eval.SkinReport{Task: "skeleton", Seed: 1})
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte("{not json"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"seeds differ", []string{"--from", a, "--from", seed2}, "share it"},
		{"same file and method differ", []string{"--from", a, "--from", conflict}, "differs from an earlier report"},
		{"not a skin report", []string{"--from", notSkin}, "want a skin report"},
		{"broken JSON", []string{"--from", broken}, "not a skin report"},
		{"missing file", []string{"--from", filepath.Join(dir, "none.json")}, "none.json"},
		{"unknown baseline", []string{"--from", a, "--baseline", "heat"}, "not one of the report's methods"},
		{"with --data", []string{"--from", a, "--data", dir}, "without --data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			so.Reset()
			se.Reset()
			args := append([]string{"eval", "--task", "skin", "--out", filepath.Join(dir, "r.md")}, tc.args...)
			if code := run(args, &so, &se); code == 0 || !strings.Contains(se.String(), tc.want) {
				t.Errorf("exit %d, stderr %q, want an error with %q", code, se.String(), tc.want)
			}
		})
	}
	so.Reset()
	se.Reset()
	if code := run([]string{"eval", "--task", "skeleton", "--data", dir, "--baseline", "x", "--out", filepath.Join(dir, "r.md")}, &so, &se); code == 0 || !strings.Contains(se.String(), "needs --task skin") {
		t.Errorf("--baseline with the skeleton task: exit %d, stderr %q", code, se.String())
	}
}
