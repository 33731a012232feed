package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/synth"
)

// TestViewScript replays edit scripts through `rig view --script`: a good one saves
// the edited rig and its report; bad ones fail with messages naming the file and
// the edit, and none writes over the input.
func TestViewScript(t *testing.T) {
	dir := t.TempDir()
	c, err := synth.Generate("biped", 2, synth.Options{TargetVertices: 800})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "biped.glb")
	if _, err := assets.Save(in, c); err != nil {
		t.Fatal(err)
	}
	original, _ := os.ReadFile(in)
	for _, tc := range []struct {
		name, script, out string
		want              string // in stdout, or in the error when fail
		fail              bool
	}{
		{"move and rename", `[{"op":"move","joint":"head","delta":[0,0.01,0]},{"op":"rename","joint":"head","name":"Head"}]`,
			"fixed.glb", "saved " + filepath.Join(dir, "fixed.glb"), false},
		{"default output beside the input", `[{"op":"lock","joint":"chest"}]`, "", "biped.edited.glb", false},
		{"unknown joint", `[{"op":"delete","joint":"tail"}]`, "x.glb", `edit 1 (delete): no joint called "tail"`, true},
		{"unknown op", `[{"op":"explode"}]`, "x.glb", "edits.json: edit 1 (\"explode\"): unknown op", true},
		{"not a list", `{"op":"undo"}`, "x.glb", "want a JSON array", true},
		{"unknown field", `[{"op":"undo","joint2":"x"}]`, "x.glb", "unknown field", true},
		{"over the input", `[]`, "biped.glb", "that is the input file", true},
		{"nothing to undo", `[{"op":"undo"}]`, "x.glb", "nothing to undo", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := filepath.Join(dir, "edits.json")
			if err := os.WriteFile(script, []byte(tc.script), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"view", in, "--script", script}
			if tc.out != "" {
				args = append(args, "--out", filepath.Join(dir, tc.out))
			}
			var so, se bytes.Buffer
			code := run(args, &so, &se)
			if (code != 0) != tc.fail {
				t.Fatalf("exit %d, want failure %v: %s%s", code, tc.fail, so.String(), se.String())
			}
			if got := so.String() + se.String(); !strings.Contains(got, tc.want) {
				t.Errorf("output %q lacks %q", got, tc.want)
			}
			if now, _ := os.ReadFile(in); !bytes.Equal(now, original) {
				t.Fatal("the input file changed")
			}
		})
	}
	out, _, err := assets.Load(filepath.Join(dir, "fixed.glb"), assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "fixed.json")); err != nil {
		t.Errorf("no report beside the output: %v", err)
	}
	if out.Skeleton.Names[3] != "Head" {
		t.Errorf("joint 3 is %q after the rename, want Head", out.Skeleton.Names[3])
	}
}
