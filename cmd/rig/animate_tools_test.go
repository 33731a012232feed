package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/internal/blendercheck"
	"github.com/rigkit/rigkit/internal/browsercheck"
)

// TestAutoRigsWalkInBlenderAndThreeJS: what a user gets from `rig auto` then `rig
// animate --clip walk`, on the sample biped and a synthetic quadruped, imports into
// Blender 3.4 with every single-child bone pointing at its child and a walk action
// that moves bones, and plays in three.js with moving, finite, bounded vertices.
// Each tool skips when absent unless make test requires it.
func TestAutoRigsWalkInBlenderAndThreeJS(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	quad := filepath.Join(in, "quadruped.glb")
	if code := run([]string{"gen", "--kind", "quadruped", "--seed", "3", "--out", quad}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig gen: exit %d: %s", code, stderr.String())
	}
	inputs := []string{filepath.Join("..", "..", "assets", "samples", "biped.glb"), quad}
	var walks []string
	for _, p := range inputs {
		name := filepath.Base(p[:len(p)-4])
		if code := run([]string{"auto", p, "--out", out, "--quiet", "--workers", "1"}, &stdout, &stderr); code != 0 {
			t.Fatalf("rig auto %s: exit %d: %s", name, code, stderr.String())
		}
		walk := filepath.Join(out, name+"_walk.glb")
		if code := run([]string{"animate", filepath.Join(out, name+".glb"), "--clip", "walk", "--out", walk}, &stdout, &stderr); code != 0 {
			t.Fatalf("rig animate %s: exit %d: %s", name, code, stderr.String())
		}
		walks = append(walks, walk)
	}
	for file, r := range blendercheck.ForTest(t, walks...) {
		if !r.OK || r.Armatures != 1 || r.Pointing != r.SingleChildBones || len(r.Actions) == 0 || r.Actions[0].MovedBones == 0 {
			t.Errorf("Blender: %s: %+v", file, r)
		}
	}
	for _, walk := range walks {
		r := browsercheck.ForTest(t, walk)
		if !r.OK || len(r.Clips) == 0 || !r.Clips[0].Moved || !r.Clips[0].Finite || r.Clips[0].Exploded {
			t.Errorf("three.js: %s: %+v", walk, r)
		}
	}
}
