package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertRefusesUnwritableExtensions checks that `rig convert` writes only the
// formats it names and refuses the others before writing anything.
func TestConvertRefusesUnwritableExtensions(t *testing.T) {
	in := writeCreature(t, "biped", false)
	dir := t.TempDir()
	cases := []struct {
		out  string
		code int
		msg  string
	}{
		{"a.fbx", 2, "cannot write .fbx; rigkit writes .glb or .gltf"},
		{"a.obj", 2, "cannot write .obj"},
		{"a.dae", 2, "cannot write .dae"},
		{"noext", 2, "cannot write no extension"},
		{"a.GLB", 0, "wrote"},
		{"a.gltf", 0, "wrote"},
	}
	for _, tc := range cases {
		t.Run(tc.out, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			var stdout, stderr bytes.Buffer
			code := run([]string{"convert", in, out}, &stdout, &stderr)
			text := stdout.String() + stderr.String()
			if code != tc.code || !strings.Contains(text, tc.msg) {
				t.Fatalf("exit %d (want %d): %q, want %q", code, tc.code, text, tc.msg)
			}
			_, err := os.Stat(out)
			if written := err == nil; written != (tc.code == 0) {
				t.Errorf("file written: %v, want %v", written, tc.code == 0)
			}
		})
	}
}
