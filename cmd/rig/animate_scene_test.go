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

// TestAnimateRetargetsMotionFixtures rigs a synthetic biped's bare mesh with
// `rig auto` and retargets the walk of every motion fixture onto it (Mixamo
// armature rotated and scaled, Z-up centimetres, Biped, Unreal and VRM names, A
// pose, a mesh outside the armature): each exits 0, which `rig animate` allows
// only after the posed mesh stays upright and sized at 5 times, and the output
// keeps the rigged scene.
func TestAnimateRetargetsMotionFixtures(t *testing.T) {
	dir := t.TempDir()
	c, err := fixtures.SynthBiped(5, 1500)
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton, c.Skin, c.Animations = nil, nil, nil
	mesh := filepath.Join(dir, "human.glb")
	if _, err := assets.Save(mesh, c); err != nil {
		t.Fatal(err)
	}
	rigged := filepath.Join(dir, "rigged")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"auto", mesh, "--out", rigged, "--quiet", "--skin", "heat"}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig auto: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	rig := filepath.Join(rigged, "human.glb")
	for _, f := range fixtures.Motions() {
		src, err := f.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, f.Name+"-on-human.glb")
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"animate", rig, "--clip-from", src, "--out", out}, &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", f.Name, code, stdout.String(), stderr.String())
			continue
		}
		if !bytes.Contains(stdout.Bytes(), []byte("Walk (humanoid)")) {
			t.Errorf("%s: no Walk report in %s", f.Name, stdout.String())
		}
		checkScene(t, "rig animate --clip-from "+f.Name, rig, out)
	}
}
