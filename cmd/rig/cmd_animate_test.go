package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// writeCreature saves a synthetic creature, its joints renamed joint_NN when unnamed.
func writeCreature(t *testing.T, kind string, unnamed bool) string {
	t.Helper()
	c, err := synth.Generate(kind, 2, synth.Options{TargetVertices: 1200})
	if err != nil {
		t.Fatal(err)
	}
	if unnamed {
		for j := range c.Skeleton.Names {
			c.Skeleton.Names[j] = fmt.Sprintf("joint_%02d", j)
		}
	}
	path := filepath.Join(t.TempDir(), kind+".glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeWolfNamedAsBiped saves a synthetic quadruped whose legs carry a biped's
// joint names (hind legs as legs, front legs as arms): names that say humanoid
// on a shape that is not.
func writeWolfNamedAsBiped(t *testing.T) string {
	t.Helper()
	c, err := synth.Generate("quadruped", 2, synth.Options{TargetVertices: 1200})
	if err != nil {
		t.Fatal(err)
	}
	rename := map[string]string{"leg_bl_upper": "LeftUpLeg", "leg_bl_lower": "LeftLeg", "leg_bl_foot": "LeftFoot",
		"leg_br_upper": "RightUpLeg", "leg_br_lower": "RightLeg", "leg_br_foot": "RightFoot",
		"leg_fl_upper": "LeftArm", "leg_fl_lower": "LeftForeArm", "leg_fl_foot": "LeftHand",
		"leg_fr_upper": "RightArm", "leg_fr_lower": "RightForeArm", "leg_fr_foot": "RightHand"}
	n := 0
	for j, name := range c.Skeleton.Names {
		if to, ok := rename[name]; ok {
			c.Skeleton.Names[j] = to
			n++
		}
	}
	if n != len(rename) {
		t.Fatalf("renamed %d of the quadruped's joints, want %d: %v", n, len(rename), c.Skeleton.Names)
	}
	path := filepath.Join(t.TempDir(), "wolf.glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeLyingClip saves a synthetic biped with a clip "lie" that turns its hips 90°
// about its left axis: motion the self-check must refuse.
func writeLyingClip(t *testing.T) string {
	t.Helper()
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 1200})
	if err != nil {
		t.Fatal(err)
	}
	_, q, _ := vecmath.DecomposeTRS(c.Skeleton.BindWorld[0])
	s := math.Sqrt(0.5)
	r := [4]float64{s*q[3] + s*q[0], s*q[1] - s*q[2], s*q[2] + s*q[1], s*q[3] - s*q[0]} // (s,0,0,s)·q
	c.Animations = []character.Animation{{Name: "lie", Channels: []character.AnimationChannel{{Joint: 0, Path: "rotation",
		Times: []float64{0, 1}, Values: append(r[:], r[:]...)}}}}
	path := filepath.Join(t.TempDir(), "lie.glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAnimateCommand(t *testing.T) {
	biped := writeCreature(t, "biped", false)
	unnamed := writeCreature(t, "biped", true)
	snake := writeCreature(t, "snake", true)
	unnamedQuad := writeCreature(t, "quadruped", true)
	quad := writeCreature(t, "quadruped", false)
	wolf := writeWolfNamedAsBiped(t)
	lie := writeLyingClip(t)
	dir := t.TempDir()
	walked := filepath.Join(dir, "walk.glb")
	cases := []struct {
		name    string
		args    []string
		code    int
		out     string // in stdout (code 0) or stderr
		anims   int    // animations in --out when code is 0
		outFile string
	}{
		{"list", []string{"--list"}, 0, "quadruped  walk", 0, ""},
		{"two clips", []string{biped, "--clip", "walk", "--clip", "wave", "--out", walked}, 0, "wrote", 2, walked},
		{"same clip twice replaces", []string{walked, "--clip", "walk", "--out", filepath.Join(dir, "w2.glb")}, 0, "walk (humanoid)", 2, filepath.Join(dir, "w2.glb")},
		{"quadruped walk", []string{quad, "--clip", "walk", "--out", filepath.Join(dir, "q.glb")}, 0, "walk (quadruped)", 1, filepath.Join(dir, "q.glb")},
		{"unnamed biped guessed", []string{unnamed, "--clip", "run", "--out", filepath.Join(dir, "u.glb")}, 0, "guessed from the skeleton's shape", 1, filepath.Join(dir, "u.glb")},
		{"retarget one", []string{unnamed, "--clip-from", walked, "--from-anim", "wave", "--out", filepath.Join(dir, "r1.glb")}, 0, "wave (humanoid)", 1, filepath.Join(dir, "r1.glb")},
		{"retarget all", []string{biped, "--clip-from", walked, "--out", filepath.Join(dir, "r2.glb")}, 0, "walk (humanoid)", 2, filepath.Join(dir, "r2.glb")},
		{"retarget other kind", []string{quad, "--clip-from", walked, "--out", filepath.Join(dir, "r3.glb")}, 1, "a humanoid clip on a rig whose joint names are a quadruped's; pass --force", 0, ""},
		{"quadruped clip on a biped", []string{biped, "--clip", "walk", "--kind", "quadruped", "--out", filepath.Join(dir, "x.glb")}, 1, "a quadruped clip on a rig whose joint names are a humanoid's", 0, ""},
		{"humanoid clip on a quadruped shape", []string{wolf, "--clip", "walk", "--out", filepath.Join(dir, "x.glb")}, 1, "not shaped as a humanoid", 0, ""},
		{"humanoid clip forced on a quadruped shape", []string{wolf, "--clip", "idle", "--force", "--out", filepath.Join(dir, "wf.glb")}, 0, "idle (humanoid)", 1, filepath.Join(dir, "wf.glb")},
		{"kept and added", []string{walked, "--clip", "run", "--out", filepath.Join(dir, "k.glb")}, 0, "run (humanoid)", 3, filepath.Join(dir, "k.glb")},
		{"replace", []string{walked, "--clip", "run", "--replace", "--out", filepath.Join(dir, "rp.glb")}, 0, "run (humanoid)", 1, filepath.Join(dir, "rp.glb")},
		{"in place", []string{biped, "--clip", "walk", "--in-place", "--out", filepath.Join(dir, "ip.glb")}, 0, "walk (humanoid)", 1, filepath.Join(dir, "ip.glb")},
		{"self-check refuses lying down", []string{biped, "--clip-from", lie, "--out", filepath.Join(dir, "lie-out.glb")}, 1, `animation "lie" at 0.000 s:`, 0, ""},
		{"unwritable out", []string{biped, "--clip", "walk", "--out", filepath.Join(dir, "x.fbx")}, 2, "cannot write .fbx; rigkit writes .glb or .gltf", 0, ""},
		{"retarget no such anim", []string{biped, "--clip-from", walked, "--from-anim", "dance", "--out", filepath.Join(dir, "r4.glb")}, 1, "no animation \"dance\"", 0, ""},
		{"retarget from a still file", []string{biped, "--clip-from", biped, "--out", filepath.Join(dir, "r5.glb")}, 1, "no animation", 0, ""},
		{"unnamed quadruped guessed", []string{unnamedQuad, "--clip", "walk", "--out", filepath.Join(dir, "uq.glb")}, 0, "guessed from the skeleton's shape (quadruped)", 1, filepath.Join(dir, "uq.glb")},
		{"snake", []string{snake, "--clip", "walk", "--out", filepath.Join(dir, "s.glb")}, 1, "LeftUpLeg", 0, ""},
		{"unknown clip", []string{biped, "--clip", "dance", "--out", filepath.Join(dir, "x.glb")}, 1, "have: arms_up, crouch, idle, run, walk, wave", 0, ""},
		{"wrong kind", []string{quad, "--clip", "wave", "--out", filepath.Join(dir, "x.glb")}, 1, "exists for humanoid", 0, ""},
		{"no out", []string{biped, "--clip", "walk"}, 2, "--out is required", 0, ""},
		{"no clip", []string{biped, "--out", filepath.Join(dir, "x.glb")}, 2, "--clip", 0, ""},
		{"bad kind", []string{biped, "--clip", "walk", "--kind", "fish", "--out", filepath.Join(dir, "x.glb")}, 2, "--kind", 0, ""},
		{"missing file", []string{filepath.Join(dir, "none.glb"), "--clip", "walk", "--out", filepath.Join(dir, "x.glb")}, 1, "none.glb", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"animate"}, tc.args...), &out, &errb)
			text := out.String()
			if tc.code != 0 {
				text = errb.String()
			}
			if code != tc.code || !strings.Contains(text, tc.out) {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q; want %q", code, tc.code, out.String(), errb.String(), tc.out)
			}
			if tc.outFile == "" {
				if tc.code != 0 {
					if _, err := os.Stat(filepath.Join(dir, "lie-out.glb")); err == nil {
						t.Error("a refused clip was written")
					}
				}
				return
			}
			c, _, err := assets.Load(tc.outFile, assets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Animations) != tc.anims {
				t.Errorf("%d animations in the output, want %d", len(c.Animations), tc.anims)
			}
		})
	}
}
