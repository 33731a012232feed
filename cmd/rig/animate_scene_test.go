package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/fixtures"
)

// TestAnimateKeepsTheScene adds a walk to every scene fixture (internal/fixtures;
// the static ones rigged by `rig auto` first) and checks that the output is its
// input plus the walk: rest world positions within 1e-5 of the mesh size, the
// same primitives, materials, textures and node names, and the input's own
// animations kept (or dropped with --replace).
func TestAnimateKeepsTheScene(t *testing.T) {
	in := t.TempDir()
	paths, err := fixtures.WriteAll(in)
	if err != nil {
		t.Fatal(err)
	}
	rigged := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"auto", in, "--out", rigged, "--quiet", "--workers", "1", "--skin", "heat"}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig auto: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	out := t.TempDir()
	for i, f := range fixtures.All() {
		p := paths[i]
		if filepath.Ext(p) != ".glb" {
			continue
		}
		src := p
		if !f.Rigged {
			src = filepath.Join(rigged, f.Name+".glb")
		}
		before := loadAnimations(t, src)
		for _, replace := range []bool{false, true} {
			dst := filepath.Join(out, f.Name+map[bool]string{false: "-walk.glb", true: "-replaced.glb"}[replace])
			args := []string{"animate", src, "--clip", "walk", "--out", dst}
			if f.Name == "pbr-material" || f.Name == "vertex-colors" {
				// A statue and a painted box are not characters: their rigs get
				// the walk only when forced.
				args = append(args, "--force")
			}
			if replace {
				args = append(args, "--replace")
			}
			stdout.Reset()
			stderr.Reset()
			if code := run(args, &stdout, &stderr); code != 0 {
				t.Fatalf("rig %v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
			}
			checkScene(t, "rig animate "+f.Name, src, dst)
			want := map[bool]int{false: before + 1, true: 1}[replace]
			if got := loadAnimations(t, dst); got != want {
				t.Errorf("%s (replace %v): %d joint animations, want %d", f.Name, replace, got, want)
			}
		}
	}
}

// loadAnimations counts the joint animations of a file.
func loadAnimations(t *testing.T, path string) int {
	t.Helper()
	c, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return len(c.Animations)
}
