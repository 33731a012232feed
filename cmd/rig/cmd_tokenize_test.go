package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// TestTokenizeDetokenize runs `rig tokenize` then `rig detokenize` on a synthetic
// creature with an untrained tokenizer: the commands' plumbing, not its quality.
func TestTokenizeDetokenize(t *testing.T) {
	dir := t.TempDir()
	tok, err := skincodec.NewSkinTokenizer(skincodec.DefaultCVAEConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "skin.safetensors")
	if err := tok.Save(ckpt); err != nil {
		t.Fatal(err)
	}
	c, in, streamPath, rep := tokenizeSynth(t, dir, "biped", 3, 800, "--checkpoint", ckpt)
	if rep.Joints != c.Skeleton.NumJoints() || rep.VocabSize != tokens.VocabSize || !strings.HasPrefix(rep.Readable, "<BOS>") {
		t.Fatalf("report: %d joints (want %d), vocab %d, readable %.20q", rep.Joints, c.Skeleton.NumJoints(), rep.VocabSize, rep.Readable)
	}
	if rep.RoundTrip.Skin.Orphans != 0 || rep.RoundTrip.Skeleton.CDJ2J > 0.01 {
		t.Fatalf("round trip: %d orphans, CD-J2J %v", rep.RoundTrip.Skin.Orphans, rep.RoundTrip.Skeleton.CDJ2J)
	}
	rig := filepath.Join(dir, "rig.glb")
	var out, errb bytes.Buffer
	if code := run([]string{"detokenize", streamPath, "--mesh", in, "--out", rig, "--checkpoint", ckpt}, &out, &errb); code != 0 {
		t.Fatalf("detokenize: exit %d: %s", code, errb.String())
	}
	got, _, err := assets.Load(rig, assets.Options{})
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
	// A tokenizer with another K, or another network of the same K (its codes mean
	// something else), cannot read the stream: a clear refusal naming both.
	cfg4 := skincodec.DefaultCVAEConfig()
	cfg4.K = 4
	for _, tc := range []struct {
		name string
		cfg  skincodec.CVAEConfig
		want string
	}{
		{"a K = 4 tokenizer", cfg4, fmt.Sprintf("%d skin tokens per joint, the skin tokenizer 4", tok.K())},
		{"another tokenizer of the same K", tok.Config, "written by skin tokenizer " + tok.Fingerprint()},
	} {
		other, err := skincodec.NewSkinTokenizer(tc.cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		ckptOther := filepath.Join(dir, "other.safetensors")
		if err := other.Save(ckptOther); err != nil {
			t.Fatal(err)
		}
		errb.Reset()
		if code := run([]string{"detokenize", streamPath, "--mesh", in, "--out", rig, "--checkpoint", ckptOther}, &out, &errb); code == 0 ||
			!strings.Contains(errb.String(), tc.want) {
			t.Fatalf("detokenize with %s: exit %d: %s", tc.name, code, errb.String())
		}
	}
}

func TestTokenizeUsage(t *testing.T) {
	for _, args := range [][]string{{"tokenize"}, {"tokenize", "x.glb", "--mine", "-1"}, {"tokenize", "x.glb", "--refine", "-2"},
		{"detokenize", "x.json"}, {"train-tokenizer", "--out", "x"},
		{"train-tokenizer", "--data", "d", "--out", "x", "--k", "0"}, {"train-tokenizer", "--data", "d", "--out", "x", "--k", "17"},
		{"train-tokenizer", "--export", "a", "--run", "b", "--out", "x", "--snap", "1.5"},
		{"train-tokenizer", "--export", "a", "--run", "b", "--out", "x", "--odds", "-1"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}

// TestTokenizeSearchFlags runs `rig tokenize` with the shipped tokenizer and the code
// search switched off: it works, and writes the encoder's own codes, the tokens
// skincodec.Tokenize gives with those options.
func TestTokenizeSearchFlags(t *testing.T) {
	c, path, _, rep := tokenizeSynth(t, t.TempDir(), "quadruped", 2, 600, "--refine", "0", "--mine", "0")
	if rep.Joints != c.Skeleton.NumJoints() || rep.RoundTrip.Skin.Orphans != 0 {
		t.Fatalf("report: %d joints (want %d), %d orphans", rep.Joints, c.Skeleton.NumJoints(), rep.RoundTrip.Skin.Orphans)
	}
	shared, err := skincodec.Load("")
	if err != nil {
		t.Fatal(err)
	}
	opt := shared.Options()
	opt.RefineRounds, opt.MinePasses = 0, 0
	saved, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := skincodec.Tokenize(saved, shared, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Tokens, want.Tokens) {
		t.Fatalf("rig tokenize --refine 0 --mine 0 wrote\n%v\nTokenize without the search gives\n%v", rep.Tokens, want.Tokens)
	}
}

// tokenizeSynth saves a synthetic creature into dir and runs `rig tokenize` on it
// with args after the file; it returns the creature, its path, the token file and
// the report.
func tokenizeSynth(t *testing.T, dir, kind string, seed int64, vertices int, args ...string) (*character.Character, string, string, tokenizeReport) {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: vertices})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.glb")
	if _, err := assets.Save(in, c); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.json")
	var out, errb bytes.Buffer
	if code := run(append([]string{"tokenize", in, "--out", tokens}, args...), &out, &errb); code != 0 {
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
	return c, in, tokens, rep
}

// TestTokenizeCheckpointK writes a stream with another tokenizer's K (a K = 4
// tokenizer saved to a file, untrained: only the stream's shape is checked), reads it
// back with the same --checkpoint, and the shipped tokenizer refuses it.
func TestTokenizeCheckpointK(t *testing.T) {
	dir := t.TempDir()
	cfg := skincodec.DefaultCVAEConfig()
	cfg.K = 4
	other, err := skincodec.NewSkinTokenizer(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "k4.safetensors")
	if err := other.Save(ckpt); err != nil {
		t.Fatal(err)
	}
	c, in, streamPath, rep := tokenizeSynth(t, dir, "biped", 4, 600, "--checkpoint", ckpt, "--refine", "0", "--mine", "0")
	if rep.K != 4 || rep.Joints != c.Skeleton.NumJoints() {
		t.Fatalf("stream has K = %d (want 4), %d joints", rep.K, rep.Joints)
	}
	if _, err := tokens.NewGrammar(0, 4).Run(rep.Tokens); err != nil {
		t.Fatalf("stream breaks the grammar of K = 4: %v", err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"detokenize", streamPath, "--mesh", in, "--out", filepath.Join(dir, "rig.glb"), "--checkpoint", ckpt}, &out, &errb); code != 0 {
		t.Fatalf("detokenize --checkpoint %s: exit %d: %s", ckpt, code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"detokenize", streamPath, "--mesh", in, "--out", filepath.Join(dir, "rig2.glb")}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "K") {
		t.Fatalf("the shipped tokenizer read a K = 4 stream: exit %d: %s", code, errb.String())
	}
}
