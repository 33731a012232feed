package sampler

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/tokens"
)

// skinGoldenPath holds greedy skin streams of the shipped model, written by
// `RIGKIT_WRITE_GOLDEN=1 go test ./sampler/ -run TestGreedySkinStreamsMatchGolden`:
// the fast decoding paths must reproduce them token for token.
const skinGoldenPath = "testdata/greedy_skin_streams.json"

// skinGoldenPlatformPath names the processor the golden streams were written on:
// BLAS kernels differ in their last bits between processors, and one flipped
// argmax changes a greedy stream from there on, so elsewhere the test skips.
const skinGoldenPlatformPath = "testdata/greedy_skin_streams.platform"

// goldenPlatform is the architecture and the processor's model name.
func goldenPlatform() string {
	name := "unknown"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				name = strings.TrimSpace(v)
				break
			}
		}
	}
	return runtime.GOARCH + " " + name
}

// skinGoldenCase is one golden skin stream set: the synthetic biped of seed 1
// grown to Joints joints, with the greedy codes of every window.
type skinGoldenCase struct {
	Joints int     `json:"joints"`
	Codes  [][]int `json:"codes"` // codes[j]: joint j's greedy skin codes
	// Stream is the whole token stream of the first window (prompt, then the
	// greedy skin tokens).
	Stream []int `json:"stream"`
}

// TestGreedySkinStreamsMatchGolden decodes greedy skin tokens with the shipped
// model on the 5k-vertex synthetic biped grown to 65 joints (one stream) and 80
// (two windows) and compares every code with the golden streams.
func TestGreedySkinStreamsMatchGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped model")
	}
	write := os.Getenv("RIGKIT_WRITE_GOLDEN") != ""
	if on, err := os.ReadFile(skinGoldenPlatformPath); !write && (err != nil || strings.TrimSpace(string(on)) != goldenPlatform()) {
		t.Skipf("golden streams written on %q, this is %q (%v)", strings.TrimSpace(string(on)), goldenPlatform(), err)
	}
	r := shippedGenerator(t, 1)
	got := greedySkinCases(t, r, []int{65, 80})
	if write {
		writeGolden(t, got)
		return
	}
	raw, err := os.ReadFile(skinGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var want []skinGoldenCase
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: %v", skinGoldenPath, err)
	}
	if len(want) != len(got) {
		t.Fatalf("%d golden cases, computed %d", len(want), len(got))
	}
	for i := range want {
		if d := firstDifference(want[i].Stream, got[i].Stream); d >= 0 {
			t.Errorf("%d joints: first window's stream differs at token %d of %d", want[i].Joints, d, len(want[i].Stream))
		}
		for j := range want[i].Codes {
			if d := firstDifference(want[i].Codes[j], got[i].Codes[j]); d >= 0 {
				t.Errorf("%d joints: joint %d's codes %v, golden %v", want[i].Joints, j, got[i].Codes[j], want[i].Codes[j])
			}
		}
	}
}

// greedySkinCases computes the greedy skin codes of the grown synthetic biped
// for each joint count.
func greedySkinCases(t *testing.T, r *Generator, joints []int) []skinGoldenCase {
	t.Helper()
	c, err := synthBiped()
	if err != nil {
		t.Fatal(err)
	}
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	lat, err := r.EncodeMesh(&c.Mesh, &nm, norm, rand.New(rand.NewSource(r.Seed)))
	if err != nil {
		t.Fatal(err)
	}
	var out []skinGoldenCase
	for _, n := range joints {
		sk := modeltest.SkeletonOfSize(t, c.Skeleton, n)
		sets, err := r.windowCodes(sk, norm, lat, 1, r.streamJoints(), rand.New(rand.NewSource(1)))
		if err != nil {
			t.Fatalf("%d joints: %v", n, err)
		}
		w := planSkinWindows(sk.Parents, r.streamJoints())[0]
		prompt, _, err := tokens.EncodeSkeleton(sk.Select(w.joints), norm)
		if err != nil {
			t.Fatal(err)
		}
		streams, err := r.sampleSkin(lat, prompt, 1, true, 0, rand.New(rand.NewSource(1)))
		if err != nil {
			t.Fatalf("%d joints: %v", n, err)
		}
		out = append(out, skinGoldenCase{Joints: n, Codes: sets[0], Stream: streams[0].Tokens})
	}
	return out
}

// firstDifference is the first index where a and b differ (a length difference
// counts at the shorter length), or -1.
func firstDifference(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// writeGolden stores cases as the golden file.
func writeGolden(t *testing.T, cases []skinGoldenCase) {
	t.Helper()
	raw, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(skinGoldenPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skinGoldenPath, raw, 0o644); err != nil {
		t.Fatal(fmt.Errorf("write golden: %w", err))
	}
	if err := os.WriteFile(skinGoldenPlatformPath, []byte(goldenPlatform()+"\n"), 0o644); err != nil {
		t.Fatal(fmt.Errorf("write golden platform: %w", err))
	}
	t.Logf("wrote %s", skinGoldenPath)
}
