package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/khronos"

	"github.com/rigkit/rigkit/assets/gltfio"
	"github.com/rigkit/rigkit/internal/browsercheck"
	"github.com/rigkit/rigkit/internal/fixtures"
)

// TestAutoAndSkinKeepTheScene runs `rig auto`, `rig skin` and `rig convert` on every
// fixture (internal/fixtures) and checks that each output is its input plus a rig:
// rest world positions within 1e-5 of the mesh size, the same primitives,
// materials, textures, samplers, images and non-joint node names, a report of what
// was replaced, and 0 Khronos validator errors.
func TestAutoAndSkinKeepTheScene(t *testing.T) {
	in := t.TempDir()
	paths, err := fixtures.WriteAll(in)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"auto", in, "--out", out, "--quiet", "--workers", "1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig auto: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var written []string
	for i, f := range fixtures.All() {
		p := paths[i]
		if filepath.Ext(p) != ".glb" {
			continue // other formats are checked where they are read
		}
		name := filepath.Base(p[:len(p)-4])
		auto := filepath.Join(out, name+".glb")
		checkScene(t, "rig auto "+name, p, auto)
		checkAutoReport(t, filepath.Join(out, name+".json"), f.Rigged)
		written = append(written, auto)

		conv := filepath.Join(out, name+"-convert.glb")
		if code := run([]string{"convert", p, conv}, &stdout, &stderr); code != 0 {
			t.Fatalf("rig convert %s: exit %d: %s", name, code, stderr.String())
		}
		checkScene(t, "rig convert "+name, p, conv)
		written = append(written, conv)
		if !f.Rigged {
			continue
		}
		skinned := filepath.Join(out, name+"-skin.glb")
		stdout.Reset()
		if code := run([]string{"skin", p, "--out", skinned, "--method", "heat", "--json"}, &stdout, &stderr); code != 0 {
			t.Fatalf("rig skin %s: exit %d: %s", name, code, stderr.String())
		}
		var rep skinRun
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Scene == nil || rep.Scene.Rig != "reweighted" {
			t.Errorf("rig skin %s --json: %v: %s", name, err, stdout.String())
		}
		checkScene(t, "rig skin "+name, p, skinned)
		written = append(written, skinned)
	}
	report, err := khronos.Validate(written...)
	switch {
	case errors.Is(err, khronos.ErrNoValidator) && os.Getenv("RIGKIT_REQUIRE_VALIDATOR") == "1":
		t.Fatalf("%v and RIGKIT_REQUIRE_VALIDATOR=1", err)
	case errors.Is(err, khronos.ErrNoValidator):
		t.Log(err)
	case err != nil:
		t.Fatal(err)
	case testing.Verbose():
		t.Log(report)
	}
}

func checkScene(t *testing.T, label, in, out string) {
	t.Helper()
	if err := fixtures.Compare(in, out, 1e-5); err != nil {
		t.Errorf("%s: %v", label, err)
	}
}

// checkAutoReport checks the asset's JSON says what its output did to the scene,
// and that the anatomy found every fixture Y-up: each stands Y-up in its file's
// world, the Mixamo ones Z-up in centimetres under a rotated armature.
func checkAutoReport(t *testing.T, path string, rigged bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Status string              `json:"status"`
		Scene  *gltfio.SceneReport `json:"scene"`
		Rig    struct {
			Anatomy *struct {
				Up       string   `json:"up"`
				Warnings []string `json:"warnings"`
			} `json:"anatomy"`
		} `json:"rig"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Status != "ok" || rep.Scene == nil {
		t.Fatalf("%s: %v: %s", path, err, data)
	}
	if a := rep.Rig.Anatomy; a == nil || a.Up != "y" || strings.Contains(strings.Join(a.Warnings, " "), "Z-up") {
		t.Errorf("%s: anatomy %+v, want up y without a Z-up warning", path, a)
	}
	want := map[bool]string{false: "added", true: "replaced"}[rigged]
	if rep.Scene.Rig != want || rep.Scene.Added.Joints == 0 || (rigged && rep.Scene.Replaced.Joints == 0) {
		t.Errorf("%s: scene report %+v, want rig %q with joints added (and replaced)", path, rep.Scene, want)
	}
}

// TestScenesKeepTheirBoundsInThreeJS: three.js (headless Chromium) sees the same
// bounding box for every real-world fixture and its `rig auto` output, so a
// dropped "Armature" scale or rotation (a character 100× too large, or lying on its
// back) cannot pass. It skips without the browser unless RIGKIT_REQUIRE_BROWSER=1.
func TestScenesKeepTheirBoundsInThreeJS(t *testing.T) {
	in := t.TempDir()
	paths, err := fixtures.WriteAll(in)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"auto", in, "--out", out, "--quiet", "--workers", "1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig auto: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, p := range paths {
		if filepath.Ext(p) != ".glb" {
			continue
		}
		name := filepath.Base(p[:len(p)-4])
		before, after := threeBounds(t, p), threeBounds(t, filepath.Join(out, name+".glb"))
		tol := 1e-4 * before.BBox.Diagonal
		for a := 0; a < 3; a++ {
			if math.Abs(before.BBox.Min[a]-after.BBox.Min[a]) > tol || math.Abs(before.BBox.Max[a]-after.BBox.Max[a]) > tol {
				t.Errorf("%s: three.js bounds %v..%v became %v..%v", name, before.BBox.Min, before.BBox.Max, after.BBox.Min, after.BBox.Max)
				break
			}
		}
	}
}

// threeBounds is three.js's report of a file, or a skip without the browser.
func threeBounds(t *testing.T, file string) *browsercheck.Report {
	t.Helper()
	r := browsercheck.ForTest(t, file)
	if r.Error != "" {
		t.Fatalf("three.js cannot load %s: %s", file, r.Error)
	}
	return r
}
