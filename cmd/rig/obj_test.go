package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/khronos"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
)

// writeCreatureOBJ writes a synthetic creature's mesh as OBJ quads-and-triangles
// text with a textured MTL in dir/models (negative indices, no normals) and returns
// the OBJ path and the creature.
func writeCreatureOBJ(t *testing.T, dir string) (string, *character.Character) {
	t.Helper()
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 400})
	if err != nil {
		t.Fatal(err)
	}
	var obj strings.Builder
	obj.WriteString("mtllib body.mtl\no creature\n")
	for _, p := range c.Mesh.Positions {
		fmt.Fprintf(&obj, "v %.9g %.9g %.9g\n", p[0], p[1], p[2])
	}
	obj.WriteString("vt 0.25 0.75\nusemtl body\n")
	n := len(c.Mesh.Positions)
	for _, tr := range c.Mesh.Triangles {
		fmt.Fprintf(&obj, "f %d/-1 %d/-1 %d/-1\n", tr[0]-n, tr[1]-n, tr[2]-n)
	}
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(dir, "models")
	files := map[string][]byte{
		"creature.obj":      []byte(obj.String()),
		"body.mtl":          []byte("newmtl body\nKd 0.6 0.4 0.2\nPr 0.7\nmap_Kd textures/body.png\n"),
		"textures/body.png": img.Bytes(),
	}
	for name, data := range files {
		p := filepath.Join(models, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(models, "creature.obj"), c
}

// TestAutoRigsOBJ rigs an OBJ with an MTL and a texture through `rig auto`: the
// rigged GLB keeps the mesh and the textured material and passes the Khronos
// validator.
func TestAutoRigsOBJ(t *testing.T) {
	dir := t.TempDir()
	objPath, src := writeCreatureOBJ(t, dir)
	out := filepath.Join(dir, "out")
	code, stdout, errOut := runWith(t, nil, "auto", filepath.Dir(objPath), "--out", out, "--skin", "heat", "--workers", "1", "--quiet")
	if code != 0 || !strings.Contains(stdout, "rigged 1,") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, errOut)
	}
	if !strings.Contains(errOut, "skipped, not meshes: 2 files (.mtl 1, .png 1)") {
		t.Errorf("stderr does not list the skipped MTL and PNG: %q", errOut)
	}
	c, _, err := assets.Load(filepath.Join(out, "creature.glb"), assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Rigged() || len(c.Mesh.Triangles) != len(src.Mesh.Triangles) {
		t.Fatalf("rigged %v, %d triangles (input %d)", c.Rigged(), len(c.Mesh.Triangles), len(src.Mesh.Triangles))
	}
	lo, hi := c.Mesh.Bounds()
	slo, shi := src.Mesh.Bounds()
	if lo.Dist(slo) > 1e-5*shi.Dist(slo) || hi.Dist(shi) > 1e-5*shi.Dist(slo) {
		t.Fatalf("bounds %v..%v, input %v..%v", lo, hi, slo, shi)
	}
	if len(c.Materials) != 1 || c.Materials[0].Name != "body" || c.Materials[0].BaseColorTexture == nil ||
		c.Materials[0].BaseColor != [4]float64{0.6, 0.4, 0.2, 1} || c.Materials[0].Roughness != 0.7 {
		t.Fatalf("materials %+v", c.Materials)
	}
	khronos.Check(t, filepath.Join(out, "creature.glb"))
	// The same file named directly, and inspected.
	code, stdout, _ = runWith(t, nil, "inspect", objPath)
	if code != 0 || !strings.Contains(stdout, "materials    1: body") {
		t.Fatalf("inspect: exit %d, %s", code, stdout)
	}
}
