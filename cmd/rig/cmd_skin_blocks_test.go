package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// writeBlockyLeg saves a body box over a leg box, each face with its own
// vertices, rigged with a chain body → thigh → shin.
func writeBlockyLeg(t *testing.T, path string) {
	t.Helper()
	m := character.Mesh{}
	meshtest.AppendLooseBox(&m, vecmath.Vec3{-1, 6, -1}, vecmath.Vec3{1, 12, 1})
	meshtest.AppendLooseBox(&m, vecmath.Vec3{-1, 0, -1}, vecmath.Vec3{1, 6, 1})
	at := func(y float64) vecmath.Mat4 { return vecmath.Translate4(vecmath.Vec3{0, y, 0}) }
	c := &character.Character{Name: "blocky", Mesh: m, Skeleton: &character.Skeleton{
		Names: []string{"body", "thigh", "shin"}, Parents: []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{at(9), at(6), at(3)}}}
	c.Skin = character.RigidSkin(m.Positions, c.Skeleton)
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
}

// TestSkinBindsBlocks checks that `rig skin` binds each box wholly to one joint
// by default, says so, and keeps the method's weights with --blocks=false.
func TestSkinBindsBlocks(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "blocky.glb")
	writeBlockyLeg(t, in)
	for _, tc := range []struct {
		flag       string
		wantMethod string
		wantBlocks int
		wantRigid  bool
	}{
		{"--blocks=true", "heat/blocks", 2, true},
		{"--blocks=false", "heat", 0, false},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			out := filepath.Join(dir, tc.flag+".glb")
			var stdout, stderr bytes.Buffer
			if code := run([]string{"skin", in, "--method", "heat", "--out", out, "--json", tc.flag}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var rep struct {
				Method string
				Blocks struct{ Blocks, Vertices int }
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Method != tc.wantMethod || rep.Blocks.Blocks != tc.wantBlocks {
				t.Errorf("method %q with %d blocks, want %q with %d", rep.Method, rep.Blocks.Blocks, tc.wantMethod, tc.wantBlocks)
			}
			c, _, err := assets.Load(out, assets.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rigid := everyVertexOneJoint(c.Skin); rigid != tc.wantRigid {
				t.Errorf("every vertex on one joint: %v, want %v", rigid, tc.wantRigid)
			}
		})
	}
}

func everyVertexOneJoint(k *character.Skin) bool {
	for _, ws := range k.Weights {
		n := 0
		for _, in := range ws {
			if in.Weight > 1e-3 {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}
