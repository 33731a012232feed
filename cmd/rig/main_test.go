package main

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"nope"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "unknown command") {
		t.Fatalf("stderr %q", errb.String())
	}
}

func TestParseInterleaved(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	js := fs.Bool("json", false, "")
	n := fs.Int("n", 0, "")
	pos, err := parseInterleaved(fs, []string{"a.glb", "--json", "b.glb", "-n", "3", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !*js || *n != 3 || strings.Join(pos, ",") != "a.glb,b.glb,c" {
		t.Fatalf("json=%v n=%d pos=%v", *js, *n, pos)
	}
}
