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

// rigFolder writes small rigged synthetic creatures and a manifest naming their
// categories: the data of the report tasks' end-to-end tests.
func rigFolder(t *testing.T, kinds ...string) string {
	t.Helper()
	dir := t.TempDir()
	var manifest strings.Builder
	for _, kind := range kinds {
		c, err := synth.Generate(kind, 2, synth.Options{TargetVertices: 800})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := assets.Save(filepath.Join(dir, kind+".glb"), c); err != nil {
			t.Fatal(err)
		}
		manifest.WriteString(`{"file":"` + kind + `.glb","category":"` + kind + `"}` + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.jsonl"), []byte(manifest.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runReport runs rig with args and returns the report it wrote to --out.
func runReport(t *testing.T, wantCode int, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.md")
	var stdout, stderr bytes.Buffer
	if code := run(append(args, "--out", out, "--quiet"), &stdout, &stderr); code != wantCode {
		t.Fatalf("rig %v: exit %d, want %d\nstdout %s\nstderr %s", args, code, wantCode, stdout.String(), stderr.String())
	}
	if wantCode != 0 {
		return stderr.String()
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), string(md)) {
		t.Errorf("stdout does not carry the report %s", out)
	}
	return string(md)
}

func TestEvalTokenizerTask(t *testing.T) {
	data := rigFolder(t, "biped", "quadruped")
	fast := []string{"eval", "--task", "tokenizer", "--data", data, "--split", "all", "--refine", "0", "--mine", "0"}
	md := runReport(t, 0, append(fast, "--synthetic", "0", "--ablate")...)
	for _, want := range []string{"| held-out real, characters | 2 |", "| held-out real, all | 2 |", "One constant code list", "| biped.glb |", "| quadruped.glb |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	md = runReport(t, 0, append(fast, "--tune", "--threshold", "0.1,0.3", "--sharpen", "1")...)
	if !strings.Contains(md, "on 2 training files") || strings.Count(md, "| 1 |") != 2 || !strings.Contains(md, "(best)") {
		t.Errorf("tune table:\n%s", md)
	}
	if msg := runReport(t, 2, append(fast, "--threshold", "0.1,0.3")...); !strings.Contains(msg, "one value without --tune") {
		t.Errorf("two thresholds without --tune: %s", msg)
	}
	if msg := runReport(t, 1, append(fast, "--checkpoint", filepath.Join(data, "missing.safetensors"))...); !strings.Contains(msg, "missing.safetensors") {
		t.Errorf("missing checkpoint: %s", msg)
	}
}

func TestEvalAnatomyTask(t *testing.T) {
	data := rigFolder(t, "biped", "quadruped")
	md := runReport(t, 0, "eval", "--task", "anatomy", "--data", data, "--split", "all")
	if !strings.Contains(md, "| 1 | 1 | 1 |") || !strings.Contains(md, "| biped.glb | humanoid | 1 |") || strings.Contains(md, "quadruped.glb") {
		t.Errorf("humanoid report (the biped alone):\n%s", md)
	}
	md = runReport(t, 0, "eval", "--task", "anatomy", "--synthetic", "1")
	if !strings.Contains(md, "| synth/biped_1 | humanoid |") {
		t.Errorf("synthetic report:\n%s", md)
	}
	md = runReport(t, 0, "eval", "--task", "anatomy", "--data", data, "--split", "all", "--kind-report")
	if !strings.Contains(md, "Files 2: kind as the manifest's category 2") {
		t.Errorf("kind report:\n%s", md)
	}
}

// TestQuadStress: rig stress writes a quadruped's variants beside a biped's (or
// alone, --kind quadruped), the artist skeleton carried along, and the anatomy
// task's --quad-stress detects the quadruped's kind under them.
func TestQuadStress(t *testing.T) {
	data := rigFolder(t, "biped", "quadruped", "snake")
	// At 800 vertices the synthetic quadruped's legs stand out farther from its
	// body than they are long, and no turn presses them together.
	c, err := synth.Generate("quadruped", 2, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assets.Save(filepath.Join(data, "quadruped.glb"), c); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"stress", "--data", data, "--out", out, "--split", "all", "--variant", "legs,fused+legs"}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig stress: exit %d\n%s", code, stderr.String())
	}
	manifest, err := os.ReadFile(filepath.Join(out, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"file":"quadruped__legs.glb","source":"quadruped.glb","variant":"legs","category":"quadruped"`, `"file":"quadruped__fused_legs.glb"`, `"file":"biped__legs.glb"`} {
		if !strings.Contains(string(manifest), want) {
			t.Errorf("manifest lacks %s:\n%s", want, manifest)
		}
	}
	if strings.Contains(string(manifest), "snake") {
		t.Errorf("a snake was stressed:\n%s", manifest)
	}
	quadOnly := t.TempDir()
	if code := run([]string{"stress", "--data", data, "--out", quadOnly, "--split", "all", "--kind", "quadruped", "--variant", "legs"}, &stdout, &stderr); code != 0 {
		t.Fatalf("rig stress --kind quadruped: exit %d\n%s", code, stderr.String())
	}
	if m, err := os.ReadFile(filepath.Join(quadOnly, "manifest.jsonl")); err != nil || strings.Contains(string(m), "biped") || !strings.Contains(string(m), "quadruped__legs.glb") {
		t.Errorf("--kind quadruped: manifest %s, %v", m, err)
	}
	if code := run([]string{"stress", "--data", data, "--out", quadOnly, "--kind", "bird"}, &stdout, &stderr); code != 2 {
		t.Errorf("--kind bird: exit %d, want a usage error", code)
	}
	c, _, err = assets.Load(filepath.Join(out, "quadruped__legs.glb"), assets.Options{})
	if err != nil || !c.Rigged() {
		t.Fatalf("quadruped__legs.glb: rigged %v, %v", c != nil && c.Rigged(), err)
	}
	md := runReport(t, 0, "eval", "--task", "anatomy", "--data", data, "--split", "all", "--quad-stress", "none,legs")
	for _, want := range []string{"| none | 1 | 1 |", "| legs | 1 | 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("quadruped stress report lacks %q:\n%s", want, md)
		}
	}
	if msg := runReport(t, 2, "eval", "--task", "anatomy", "--data", data, "--quad-stress", "wings"); !strings.Contains(msg, "wings") {
		t.Errorf("unknown variant: %s", msg)
	}
}
