package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

func TestResolveSkinMethod(t *testing.T) {
	tests := []struct {
		give, want string
		note       bool
		err        bool
	}{
		{"geodesic", "geodesic", false, false},
		{"rigid", "rigid", false, false},
		{"heat", "heat", false, false},
		{"nope", "", false, true},
	}
	if _, ok := skinMethods[defaultSkinMethod]; ok {
		tests = append(tests, struct {
			give, want string
			note       bool
			err        bool
		}{"", defaultSkinMethod, false, false})
	} else {
		tests = append(tests, struct {
			give, want string
			note       bool
			err        bool
		}{"", fallbackSkinMethod, true, false})
	}
	for _, tc := range tests {
		var errb bytes.Buffer
		got, fn, err := resolveSkinMethod(tc.give, &errb)
		if (err != nil) != tc.err || got != tc.want || (err == nil && fn == nil) {
			t.Errorf("%q: got %q, %v", tc.give, got, err)
		}
		if tc.note != (errb.Len() > 0) || strings.Count(errb.String(), "\n") > 1 {
			t.Errorf("%q: stderr %q", tc.give, errb.String())
		}
	}
}

func TestEvalPlannedTask(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"eval", "--data", t.TempDir(), "--task", "skeleton", "--out", filepath.Join(t.TempDir(), "r.md")}, &out, &errb)
	if _, ok := evalTasks["skeleton"]; !ok && (code != 1 || !strings.Contains(errb.String(), "not available yet")) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestSkinAndEvalRoundTrip skins one real rig, checks the output keeps the skeleton
// and positions, and evaluates two files.
func TestSkinAndEvalRoundTrip(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "data", "0ad")
	in := filepath.Join(data, "tiger.glb")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("real data not found: %v", err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "tiger.glb")
	var so, se bytes.Buffer
	if code := run([]string{"skin", in, "--method", "geodesic", "--out", out}, &so, &se); code != 0 {
		t.Fatalf("rig skin: exit %d: %s", code, se.String())
	}
	a, err := assets.Load(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := assets.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Skeleton.Names, ",") != strings.Join(b.Skeleton.Names, ",") || len(a.Mesh.Positions) != len(b.Mesh.Positions) {
		t.Fatalf("skeleton or vertices changed")
	}
	if err := b.Validate(); err != nil || len(b.Skin.Orphans()) > 0 {
		t.Fatalf("output rig: %v", err)
	}
	// Evaluate a folder of two files (the input and its geodesic re-skin).
	evalDir := filepath.Join(dir, "data")
	os.MkdirAll(evalDir, 0o755)
	for _, f := range []string{in, out} {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(evalDir, filepath.Base(filepath.Dir(f))+"_"+filepath.Base(f)), b, 0o644)
	}
	report := filepath.Join(dir, "report.md")
	so.Reset()
	se.Reset()
	if code := run([]string{"eval", "--data", evalDir, "--method", "rigid,geodesic", "--leak=false", "--out", report}, &so, &se); code != 0 {
		t.Fatalf("rig eval: exit %d: %s", code, se.String())
	}
	md, _ := os.ReadFile(report)
	if !strings.Contains(string(md), "| geodesic | 2 | 0 |") || !strings.Contains(string(md), "| rigid | 2 | 0 |") {
		t.Errorf("report:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Error(err)
	}
}
