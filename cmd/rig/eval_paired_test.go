package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/metrics"
)

// skinRes is a scored result for the paired tests.
func skinRes(file, category, method string, deform float64) skinEvalResult {
	return skinEvalResult{File: file, Category: category, Method: method, Metrics: &metrics.SkinResult{DeformMean: deform}}
}

func TestPairSkin(t *testing.T) {
	all := func(string) bool { return true }
	results := []skinEvalResult{
		skinRes("a", "biped", "base", 3), skinRes("a", "biped", "m", 2),
		skinRes("b", "biped", "base", 5), skinRes("b", "biped", "m", 4),
		skinRes("c", "prop", "base", 9), skinRes("c", "prop", "m", 12),
		skinRes("d", "biped", "m", 100), // the baseline did not score d
		{File: "e", Category: "biped", Method: "m", Error: "failed"},
		skinRes("e", "biped", "base", 1),
	}
	tests := []struct {
		name                string
		keep                func(string) bool
		files, lower, upper int
		mean, low, high     float64
	}{
		{"constant difference has a point interval", isCharacter, 2, 2, 0, -1, -1, -1},
		{"mixed signs", all, 3, 2, 1, 1.0 / 3, -1, 3},
		{"props only", func(c string) bool { return !isCharacter(c) }, 1, 0, 1, 3, 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := pairSkin(results, "m", "base", "s", tc.keep, 1)
			if !ok {
				t.Fatal("no files paired")
			}
			if p.Files != tc.files || p.Lower != tc.lower || p.Higher != tc.upper {
				t.Fatalf("files %d lower %d higher %d, want %d %d %d", p.Files, p.Lower, p.Higher, tc.files, tc.lower, tc.upper)
			}
			if math.Abs(p.MeanDiff-tc.mean) > 1e-12 {
				t.Fatalf("mean difference %v, want %v", p.MeanDiff, tc.mean)
			}
			if !(p.Low <= p.MeanDiff && p.MeanDiff <= p.High) || p.Low < tc.low-1e-12 || p.High > tc.high+1e-12 {
				t.Fatalf("interval [%v, %v] around %v, want within [%v, %v]", p.Low, p.High, p.MeanDiff, tc.low, tc.high)
			}
			if tc.files > 1 && tc.low != tc.high && !(p.Low < p.High) {
				t.Fatalf("interval [%v, %v] has no width over differing files", p.Low, p.High)
			}
		})
	}
	if _, ok := pairSkin(results, "m", "nobody", "s", all, 1); ok {
		t.Error("paired against a method that scored nothing")
	}
	p1, _ := pairSkin(results, "m", "base", "s", all, 7)
	p2, _ := pairSkin(results, "m", "base", "s", all, 7)
	if p1 != p2 {
		t.Errorf("same seed, different intervals: %+v, %+v", p1, p2)
	}
}

func writeReport(t *testing.T, dir, name string, rep skinEvalReport) string {
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
	a := writeReport(t, dir, "a.json", skinEvalReport{Task: "skin", Seed: 1, Methods: []string{"base"}, Results: []skinEvalResult{
		skinRes("x.glb", "biped", "base", 3), skinRes("y.glb", "prop", "base", 8),
	}})
	b := writeReport(t, dir, "b.json", skinEvalReport{Task: "skin", Seed: 1, Methods: []string{"m", "base"}, Results: []skinEvalResult{
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
	var all *skinPaired
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

	seed2 := writeReport(t, dir, "seed2.json", skinEvalReport{Task: "skin", Seed: 2, Methods: []string{"m"}, Results: []skinEvalResult{skinRes("x.glb", "biped", "m", 2)}})
	conflict := writeReport(t, dir, "conflict.json", skinEvalReport{Task: "skin", Seed: 1, Methods: []string{"base"}, Results: []skinEvalResult{skinRes("x.glb", "biped", "base", 4)}})
	notSkin := writeReport(t, dir, "skel.json", skinEvalReport{Task: "skeleton", Seed: 1})
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
