package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/copilot"
)

// TestAutoCompletesSample is the worked example of docs/model.md: the sample
// biped's partial JSON in, a rig out whose skeleton starts with the given joints,
// exactly, and stays within --max-joints.
func TestAutoCompletesSample(t *testing.T) {
	partialPath := filepath.Join("..", "..", "assets", "samples", "biped_partial.json")
	partial, _, err := copilot.LoadPartial(partialPath, format.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"auto", filepath.Join("..", "..", "assets", "samples", "biped.glb"), "--skeleton", partialPath,
		"--detail", "high", "--max-joints", "30", "--skin", "geodesic", "--out", out, "--quiet"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	c, _, err := assets.Load(filepath.Join(out, "biped.glb"), assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk := c.Skeleton
	if n := sk.NumJoints(); n <= partial.NumJoints() || n > 30 {
		t.Fatalf("%d joints: want more than the %d given and at most 30", n, partial.NumJoints())
	}
	at := map[string]int{}
	for j, n := range sk.Names {
		at[n] = j
	}
	for j, n := range partial.Names {
		k, ok := at[n]
		if !ok {
			t.Fatalf("given joint %s missing", n)
		}
		if p := partial.Parents[j]; (p < 0) != (sk.Parents[k] < 0) || (p >= 0 && sk.Names[sk.Parents[k]] != partial.Names[p]) {
			t.Fatalf("given joint %s has another parent", n)
		}
		if d := sk.Position(k).Dist(partial.Position(j)); d > 1e-6 { // float32 in the GLB
			t.Fatalf("given joint %s moved by %g", n, d)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "biped.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rig struct{ Completion copilot.Report }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Rig.Completion; len(got.Given) != partial.NumJoints() || len(got.Given)+len(got.Added) != sk.NumJoints() {
		t.Fatalf("report lists %d given and %d added joints of %d", len(got.Given), len(got.Added), sk.NumJoints())
	}
}

func TestAutoCopilotErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	sample := filepath.Join("..", "..", "assets", "samples", "biped.glb")
	far := write("far.json", `{"joints": [{"name": "Hips", "parent": null, "position": [0, 1000, 0]}]}`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown parent", []string{"--skeleton", write("p.json", `{"joints": [{"name": "A", "parent": "B", "position": [0, 1, 0]}]}`)}, `unknown parent "B"`},
		{"detail", []string{"--detail", "ultra"}, "--detail"},
		{"given over max", []string{"--skeleton", filepath.Join("..", "..", "assets", "samples", "biped_partial.json"), "--max-joints", "4"}, "alone has 18 joints"},
		{"another frame", []string{"--skeleton", far}, "far outside the mesh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"auto", sample, "--out", t.TempDir(), "--quiet", "--skin", "geodesic"}, tt.args...)
			if code := run(args, &stdout, &stderr); code == 0 || !strings.Contains(stdout.String()+stderr.String(), tt.want) {
				t.Fatalf("exit %d, want a failure naming %q\nstdout %s\nstderr %s", code, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

// TestAutoPartialKeepsIdleJoints: a rigged partial whose skin gives its floor root
// no weight completes into a rig whose skin gives it none either, and the report
// lists it among the idle joints (with the weightless end joints), whether the
// skin is geodesic or tokens refined by heat weights; the same skeleton as a JSON partial, which carries no skin, lets the
// root take weight (so the test can fail).
func TestAutoPartialKeepsIdleJoints(t *testing.T) {
	dir := t.TempDir()
	rigged := floorRootBiped(t, dir)
	sk, _, err := copilot.LoadPartial(rigged, format.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := copilot.MarshalPartial(sk)
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "partial.json")
	if err := os.WriteFile(plain, js, 0o644); err != nil {
		t.Fatal(err)
	}
	rootMass := func(partial, skin, name string) (float64, []string) {
		out := filepath.Join(dir, name)
		var so, se bytes.Buffer
		args := []string{"auto", rigged, "--skeleton", partial, "--skin", skin, "--out", out, "--quiet"}
		if code := run(args, &so, &se); code != 0 {
			t.Fatalf("rig auto --skeleton %s: exit %d: %s", partial, code, se.String())
		}
		c, _, err := assets.Load(filepath.Join(out, "floor_root.glb"), assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(out, "floor_root.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Rig struct {
				Completion struct {
					Idle []string `json:"idle_joints"`
				} `json:"completion"`
			} `json:"rig"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		return jointMass(c, "FloorRoot"), rep.Rig.Completion.Idle
	}
	for _, skin := range []string{"geodesic", "tokens"} { // tokens: refined by heat weights after
		if m, idle := rootMass(rigged, skin, "rigged-"+skin); m != 0 || !slices.Contains(idle, "FloorRoot") {
			t.Errorf("rigged partial, --skin %s: the floor root takes %.2f of weight; idle_joints %v", skin, m, idle)
		}
	}
	if m, idle := rootMass(plain, "geodesic", "json"); m == 0 || idle != nil {
		t.Errorf("JSON partial: the floor root takes %.2f of weight; idle_joints %v (want weight, none listed)", m, idle)
	}
}
