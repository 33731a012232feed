package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenCommand(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"gen", "--list"}, 0, "quadruped"},
		{[]string{"gen", "--kind", "dragonfly", "--out", filepath.Join(dir, "x.glb")}, 2, ""},
		{[]string{"gen", "--kind", "prop"}, 2, ""},
		{[]string{"gen", "--kind", "prop", "--seed", "4", "--vertices", "800", "--out", filepath.Join(dir, "p.glb")}, 0, "joints"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != tc.code || !strings.Contains(out.String(), tc.out) {
			t.Errorf("%v: exit %d stdout %q stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
}

func TestGenManyResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "many")
	args := []string{"gen", "--count", "5", "--out", dir, "--vertices", "600", "--workers", "2", "--seed", "9"}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first, _ := os.ReadFile(filepath.Join(dir, "manifest.jsonl"))
	// Remove one file: a rerun regenerates only it.
	var recs []genRecord
	sc := bufio.NewScanner(bytes.NewReader(first))
	for sc.Scan() {
		var r genRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, r.File)); err != nil || r.Vertices == 0 || r.Joints == 0 {
			t.Fatalf("manifest entry %+v: %v", r, err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 5 || recs[0].Seed != 9 || recs[4].Seed != 13 {
		t.Fatalf("manifest %s", first)
	}
	if err := os.Remove(filepath.Join(dir, recs[2].File)); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "wrote 1 creatures") || !strings.Contains(out.String(), "4 already there") {
		t.Errorf("rerun: %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, recs[2].File)); err != nil {
		t.Error("removed file was not regenerated")
	}
}
