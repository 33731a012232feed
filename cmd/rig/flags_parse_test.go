package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestParseInterleavedEnds checks where flags end and inputs begin: flags anywhere,
// "--" ending them, and a file whose name looks like a flag kept as an input.
func TestParseInterleavedEnds(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, n := range []string{"-evil.glb", "--out=x.glb"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		args    []string
		wantPos []string
		wantOut string
		wantErr bool
	}{
		{"flags after inputs", []string{"a.glb", "--out", "o", "b.glb"}, []string{"a.glb", "b.glb"}, "o", false},
		{"flag with =", []string{"--out=o", "a.glb"}, []string{"a.glb"}, "o", false},
		{"bool flag takes no value", []string{"--quiet", "a.glb", "--out", "o"}, []string{"a.glb"}, "o", false},
		{"-- ends flags", []string{"--out", "o", "--", "-evil.glb", "--out", "p"}, []string{"-evil.glb", "--out", "p"}, "o", false},
		{"glob-expanded file named like a flag", []string{"-evil.glb", "a.glb", "--out", "o"}, []string{"-evil.glb", "a.glb"}, "o", false},
		{"file named like a defined flag is the flag", []string{"--out=x.glb", "a.glb"}, []string{"a.glb"}, "x.glb", false},
		{"stdin dash", []string{"-", "--out", "o"}, []string{"-"}, "o", false},
		{"unknown flag, no such file", []string{"--bogus", "a.glb"}, nil, "", true},
		{"a value that looks like --", []string{"--out", "--", "a.glb"}, []string{"a.glb"}, "--", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFlags("test")
			out := fs.String("out", "", "")
			fs.Bool("quiet", false, "")
			pos, err := parseInterleaved(fs, tc.args)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if !slices.Equal(pos, tc.wantPos) || *out != tc.wantOut {
				t.Errorf("positionals %q, --out %q; want %q, %q", pos, *out, tc.wantPos, tc.wantOut)
			}
		})
	}
}
