package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
	"github.com/rigkit/rigkit/tokenizer"
)

// TestTokenizeDetokenize runs `rig tokenize` then `rig detokenize` on a synthetic
// creature with an untrained tokenizer: the commands' plumbing, not its quality.
func TestTokenizeDetokenize(t *testing.T) {
	dir := t.TempDir()
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 800})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.glb")
	if err := assets.Save(in, c); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.NewSkinTokenizer(tokenizer.DefaultCVAEConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "skin.safetensors")
	if err := tok.Save(ckpt); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.json")
	var out, errb bytes.Buffer
	if code := run([]string{"tokenize", in, "--out", tokens, "--checkpoint", ckpt}, &out, &errb); code != 0 {
		t.Fatalf("tokenize: exit %d: %s", code, errb.String())
	}
	var rep tokenizeReport
	data, err := os.ReadFile(tokens)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Joints != c.Skeleton.NumJoints() || rep.VocabSize != tokenizer.VocabSize || !strings.HasPrefix(rep.Readable, "<BOS>") {
		t.Fatalf("report: %d joints (want %d), vocab %d, readable %.20q", rep.Joints, c.Skeleton.NumJoints(), rep.VocabSize, rep.Readable)
	}
	if rep.RoundTrip.Skin.Orphans != 0 || rep.RoundTrip.Skeleton.CDJ2J > 0.01 {
		t.Fatalf("round trip: %d orphans, CD-J2J %v", rep.RoundTrip.Skin.Orphans, rep.RoundTrip.Skeleton.CDJ2J)
	}
	rig := filepath.Join(dir, "rig.glb")
	out.Reset()
	errb.Reset()
	if code := run([]string{"detokenize", tokens, "--mesh", in, "--out", rig, "--checkpoint", ckpt}, &out, &errb); code != 0 {
		t.Fatalf("detokenize: exit %d: %s", code, errb.String())
	}
	got, err := assets.Load(rig)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range c.Skeleton.Names {
		want[n] = true
	}
	for _, n := range got.Skeleton.Names {
		if !want[n] {
			t.Fatalf("detokenized joint %q is not a source joint name", n)
		}
	}
	if got.Skeleton.NumJoints() != c.Skeleton.NumJoints() || len(got.Mesh.Positions) != len(c.Mesh.Positions) {
		t.Fatalf("rig: %d joints, %d vertices", got.Skeleton.NumJoints(), len(got.Mesh.Positions))
	}
}

func TestTokenizeUsage(t *testing.T) {
	for _, args := range [][]string{{"tokenize"}, {"tokenize", "x.glb", "--mine", "-1"}, {"tokenize", "x.glb", "--refine", "-2"},
		{"detokenize", "x.json"}, {"train-tokenizer", "--out", "x"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}

// TestTokenizeSearchFlags runs `rig tokenize` with the shipped tokenizer and the code
// search switched off: it works, and the shared shipped tokenizer keeps its defaults.
func TestTokenizeSearchFlags(t *testing.T) {
	dir := t.TempDir()
	c, err := synth.Generate("quadruped", 2, synth.Options{TargetVertices: 600})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.glb")
	if err := assets.Save(in, c); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.json")
	var out, errb bytes.Buffer
	if code := run([]string{"tokenize", in, "--out", tokens, "--refine", "0", "--mine", "0"}, &out, &errb); code != 0 {
		t.Fatalf("tokenize: exit %d: %s", code, errb.String())
	}
	var rep tokenizeReport
	data, err := os.ReadFile(tokens)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Joints != c.Skeleton.NumJoints() || rep.RoundTrip.Skin.Orphans != 0 {
		t.Fatalf("report: %d joints (want %d), %d orphans", rep.Joints, c.Skeleton.NumJoints(), rep.RoundTrip.Skin.Orphans)
	}
	shared, err := tokenizer.DefaultSkinTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	if shared.RefineRounds != tokenizer.DefaultRefineRounds || shared.MinePasses != tokenizer.DefaultMinePasses {
		t.Fatalf("the shared tokenizer now has %d rounds, %d passes", shared.RefineRounds, shared.MinePasses)
	}
}
