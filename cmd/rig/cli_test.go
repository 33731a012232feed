package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skincodec"
)

// sampleGLB is a bundled rigged character.
const sampleGLB = "../../assets/samples/biped.glb"

// runWith runs the rig command line in-process with stdin set to in.
func runWith(t *testing.T, in []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	old := stdin
	stdin = bytes.NewReader(in)
	defer func() { stdin = old }()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestHelpEveryCommand checks, for every command, that -h, --help and `rig help
// CMD` exit 0 and print the same help with the synopsis and every flag the command
// defines.
func TestHelpEveryCommand(t *testing.T) {
	for _, name := range commandNames() {
		t.Run(name, func(t *testing.T) {
			lastFlags = nil
			code, out, errOut := runWith(t, nil, name, "-h")
			if code != 0 || errOut != "" {
				t.Fatalf("rig %s -h: exit %d, stderr %q", name, code, errOut)
			}
			if !strings.HasPrefix(out, "usage: rig "+name+" ") || !strings.Contains(out, "exit status") {
				t.Fatalf("rig %s -h: %q", name, out)
			}
			if lastFlags != nil {
				lastFlags.VisitAll(func(f *flag.Flag) {
					if !strings.Contains(out, "  -"+f.Name) {
						t.Errorf("rig %s -h does not list -%s", name, f.Name)
					}
				})
			}
			for _, args := range [][]string{{name, "--help"}, {"help", name}, {name, "in.glb", "--out", "x", "-help"}} {
				c2, out2, _ := runWith(t, nil, args...)
				if c2 != 0 || out2 != out {
					t.Errorf("rig %s: exit %d, output differs from rig %s -h", strings.Join(args, " "), c2, name)
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	tok, err := skincodec.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, _ := runWith(t, nil, arg)
		if code != 0 || !strings.HasPrefix(out, "rig ") || !strings.Contains(out, tok.Fingerprint()) ||
			!strings.Contains(out, rigmodel.ShippedFingerprint()) || rigmodel.ShippedFingerprint() == "" {
			t.Fatalf("rig %s: exit %d, %q", arg, code, out)
		}
	}
	old := version
	version = "v9.9.9"
	defer func() { version = old }()
	if _, out, _ := runWith(t, nil, "--version"); !strings.HasPrefix(out, "rig v9.9.9 ") {
		t.Fatalf("-ldflags version not printed: %q", out)
	}
}

// TestExitCodes checks the documented exit statuses: 0 ok, 1 some inputs failed,
// 2 usage, with messages on stderr.
func TestExitCodes(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	dir := t.TempDir()
	fbx := filepath.Join(dir, "hero.fbx")
	if err := os.WriteFile(fbx, []byte("Kaydara FBX Binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.glb")
	tests := []struct {
		args    []string
		code    int
		stderr  string // substring of stderr
		noStdio bool   // stdout must be empty
	}{
		{args: nil, code: 2, stderr: "usage: rig COMMAND"},
		{args: []string{"nope"}, code: 2, stderr: "unknown command"},
		{args: []string{"help", "nope"}, code: 2, stderr: "unknown command"},
		{args: []string{"help"}, code: 0},
		{args: []string{"inspect"}, code: 2, stderr: "usage: rig inspect"},
		{args: []string{"inspect", "--bogus", sampleGLB}, code: 2, stderr: "flag provided but not defined: -bogus"},
		{args: []string{"inspect", sampleGLB}, code: 0},
		{args: []string{"inspect", missing}, code: 1, stderr: "missing.glb", noStdio: true},
		{args: []string{"inspect", fbx}, code: 1, stderr: "assimp export", noStdio: true},
		{args: []string{"convert", sampleGLB}, code: 2, stderr: "want IN and OUT"},
		{args: []string{"score", sampleGLB, missing}, code: 1, stderr: "missing.glb"},
		{args: []string{"score", "-", "-"}, code: 2, stderr: "stdin"},
		{args: []string{"skin", sampleGLB}, code: 2, stderr: "--out"},
		{args: []string{"auto", fbx, "--out", dir}, code: 1, stderr: "bpy.ops.import_scene.fbx", noStdio: true},
		{args: []string{"auto", sampleGLB, "--out", dir, "--shard", "auto/2"}, code: 2, stderr: "JOB_COMPLETION_INDEX"},
		{args: []string{"auto", sampleGLB, "--out", dir, "--shard", "2/2"}, code: 2, stderr: "0 <= k < n"},
		{args: []string{"auto", sampleGLB, "--out", dir, "--votes", "0"}, code: 2, stderr: "--votes 0: want 1..64"},
		{args: []string{"eval", "--data", dir, "--out", "x.md", "--votes", "65"}, code: 2, stderr: "--votes 65: want 0..64"},
		{args: []string{"detokenize", "-", "--mesh", "-", "--out", "x.glb"}, code: 2, stderr: "stdin"},
		{args: []string{"gen", "--kind", "nope", "--out", "x.glb"}, code: 2, stderr: "unknown kind"},
		{args: []string{"eval", "--task", "skin"}, code: 2, stderr: "--data"},
		{args: []string{"serve", "extra"}, code: 2, stderr: "unexpected argument"},
		{args: []string{"view", "-"}, code: 2, stderr: "works with --screenshot"},
		{args: []string{"auto", sampleGLB, "--out", "-"}, code: 2, stderr: "--out -: this command writes a folder"},
		{args: []string{"eval", "--data", dir, "--out", "-"}, code: 2, stderr: "--out -"},
		{args: []string{"train", "--data", dir, "--out", "-"}, code: 2, stderr: "--out -"},
		{args: []string{"grpo", "--data", dir, "--out", "-"}, code: 2, stderr: "--out -"},
		{args: []string{"train-tokenizer", "--data", dir, "--out", "-"}, code: 2, stderr: "--out -"},
		{args: []string{"view", "-", "--compare", "-", "--screenshot", "x.png"}, code: 2, stderr: "stdin"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			code, out, errOut := runWith(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.stderr)
			}
			if tc.noStdio && out != "" {
				t.Fatalf("stdout %q: failures belong on stderr", out)
			}
		})
	}
}

// TestStdio runs every command that reads or writes one file with "-".
func TestStdio(t *testing.T) {
	glb, err := os.ReadFile(sampleGLB)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	decodes := func(t *testing.T, data []byte, rigged bool) *character.Character {
		t.Helper()
		if !bytes.HasPrefix(data, []byte("glTF")) {
			t.Fatalf("stdout is not GLB: %q", data[:min(len(data), 40)])
		}
		c, _, err := assets.Decode(bytes.NewReader(data), "stdout.glb", nil, assets.Options{AllowOrphans: true})
		if err != nil || c.Rigged() != rigged || len(c.Mesh.Positions) != 2956 {
			t.Fatalf("stdout GLB: %v", err)
		}
		return c
	}
	t.Run("inspect -", func(t *testing.T) {
		code, out, _ := runWith(t, glb, "inspect", "-", "--json")
		var r assets.InspectReport
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Vertices != 2956 || r.Joints != 25 {
			t.Fatalf("exit %d, %q", code, out)
		}
	})
	t.Run("score -", func(t *testing.T) {
		code, out, _ := runWith(t, glb, "score", "-", "--poses", "1")
		var line scoreLine
		if code != 0 || json.Unmarshal([]byte(out), &line) != nil || line.File != "stdin" || line.Score <= 0 {
			t.Fatalf("exit %d, %q", code, out)
		}
	})
	t.Run("convert - file", func(t *testing.T) {
		out := filepath.Join(dir, "c.glb")
		if code, _, errOut := runWith(t, glb, "convert", "-", out); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, _, err := assets.Load(out, assets.Options{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("convert file -", func(t *testing.T) {
		code, out, errOut := runWith(t, nil, "convert", sampleGLB, "-")
		if code != 0 || !strings.Contains(errOut, "wrote stdout") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		decodes(t, []byte(out), true)
	})
	t.Run("skin - --out -", func(t *testing.T) {
		code, out, errOut := runWith(t, glb, "skin", "-", "--out", "-", "--method", "heat")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		decodes(t, []byte(out), true)
	})
	t.Run("gen --out -", func(t *testing.T) {
		code, out, errOut := runWith(t, nil, "gen", "--kind", "biped", "--seed", "1", "--out", "-")
		if code != 0 || !bytes.HasPrefix([]byte(out), []byte("glTF")) {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("tokenize and detokenize", func(t *testing.T) {
		code, tokens, errOut := runWith(t, glb, "tokenize", "-", "--out", "-", "--refine", "0", "--mine", "0")
		var sf skincodec.StreamFile
		if code != 0 || json.Unmarshal([]byte(tokens), &sf) != nil || sf.Source != "stdin" || len(sf.Tokens) == 0 {
			t.Fatalf("tokenize: exit %d, %s", code, errOut)
		}
		code, out, errOut := runWith(t, []byte(tokens), "detokenize", "-", "--mesh", sampleGLB, "--out", "-")
		if code != 0 {
			t.Fatalf("detokenize: exit %d: %s", code, errOut)
		}
		decodes(t, []byte(out), true)
	})
	t.Run("advantages reads stdin", func(t *testing.T) {
		code, out, _ := runWith(t, []byte("1\n3\n"), "advantages")
		if code != 0 || strings.TrimSpace(out) != "[-1,1]" {
			t.Fatalf("exit %d, %q", code, out)
		}
	})
	t.Run("stdin refuses external files", func(t *testing.T) {
		gltfJSON := `{"asset":{"version":"2.0"},"buffers":[{"uri":"mesh.bin","byteLength":12}]}`
		code, _, errOut := runWith(t, []byte(gltfJSON), "inspect", "-")
		if code != 1 || !strings.Contains(errOut, `external file "mesh.bin"`) {
			t.Fatalf("exit %d, %q", code, errOut)
		}
	})
	t.Run("stdin sniffs the format", func(t *testing.T) {
		code, _, errOut := runWith(t, []byte("v 0 0 0\nf 1 1 1\n"), "inspect", "-")
		if code != 1 || !strings.Contains(errOut, "neither GLB") {
			t.Fatalf("exit %d, %q", code, errOut)
		}
	})
}
