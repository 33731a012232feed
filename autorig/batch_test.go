package autorig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
)

// fakeFiles stands in for glTF I/O: a "file" holds the character's name; Save writes
// the joint count so tests can check the output exists and came from the rigger.
type fakeFiles struct{ dir string }

func (f fakeFiles) load(path string) (*character.Character, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(data), "broken") {
		return nil, errors.New("corrupt file")
	}
	return &character.Character{Name: string(data), Mesh: synth.BoxQuadruped()}, nil
}

func (f fakeFiles) encode(w io.Writer, c *character.Character) (any, error) {
	_, err := io.WriteString(w, c.Skeleton.Names[0])
	return nil, err
}

type countingRigger struct {
	calls atomic.Int32
	inner Rigger
	panic string // character name that makes Rig panic
}

func (r *countingRigger) Rig(c *character.Character) (*character.Character, *RigInfo, error) {
	r.calls.Add(1)
	if c.Name == r.panic {
		panic("boom")
	}
	return r.inner.Rig(c)
}

func writeInputs(t *testing.T, names map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range names {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in      string
		k, n    int
		wantErr bool
	}{
		{"", 0, 1, false},
		{"0/1", 0, 1, false},
		{"3/4", 3, 4, false},
		{"4/4", 0, 0, true},
		{"-1/4", 0, 0, true},
		{"1/0", 0, 0, true},
		{"1-4", 0, 0, true},
		{"a/b", 0, 0, true},
	}
	for _, tc := range tests {
		k, n, err := ParseShard(tc.in)
		if (err != nil) != tc.wantErr || (err == nil && (k != tc.k || n != tc.n)) {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, err %v", tc.in, k, n, err, tc.k, tc.n, tc.wantErr)
		}
	}
}

func readReport(t *testing.T, path string) AssetReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r AssetReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func TestBatchRunResumesAndReportsFailures(t *testing.T) {
	in := writeInputs(t, map[string]string{
		"one.glb": "one", "two.glb": "two", "three.glb": "three",
		"bad.glb": "broken", "crash.glb": "crash",
	})
	out := t.TempDir()
	files := fakeFiles{}
	rig := &countingRigger{inner: ClassicalRigger{}, panic: "crash"}
	b := &Batch{Inputs: []string{in}, OutDir: out, Workers: 2, Rigger: rig, IO: BatchIO{Load: files.load, Encode: files.encode}}
	sum, err := b.Run()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total != 5 || sum.Done != 3 || sum.Failed != 2 || sum.Skipped != 0 {
		t.Fatalf("summary %+v", sum)
	}
	for _, name := range []string{"one", "two", "three"} {
		r := readReport(t, filepath.Join(out, name+".json"))
		if r.Status != "ok" || r.Info == nil || r.Info.Method == "" || r.Joints < 2 || r.TimingsMS["total"] <= 0 {
			t.Errorf("%s: report %+v", name, r)
		}
		if _, err := os.Stat(filepath.Join(out, name+".glb")); err != nil {
			t.Errorf("%s: no glb: %v", name, err)
		}
	}
	if r := readReport(t, filepath.Join(out, "bad.json")); r.Status != "failed" || !strings.Contains(r.Error, "corrupt") {
		t.Errorf("bad: report %+v", r)
	}
	if r := readReport(t, filepath.Join(out, "crash.json")); r.Status != "failed" || !strings.Contains(r.Error, "panic") {
		t.Errorf("crash: report %+v", r)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover temporary file %s", e.Name())
		}
	}
	// A second run skips the finished assets and retries only the failed ones.
	rig.calls.Store(0)
	sum, err = b.Run()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 3 || rig.calls.Load() != 1 { // bad.glb fails at load, before the rigger
		t.Errorf("rerun: summary %+v, rigger calls %d", sum, rig.calls.Load())
	}
}

func TestBatchShardsPartition(t *testing.T) {
	names := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		names[n+".glb"] = n
	}
	in := writeInputs(t, names)
	out := t.TempDir()
	files := fakeFiles{}
	total := 0
	for k := 0; k < 3; k++ {
		b := &Batch{Inputs: []string{in}, OutDir: out, Shard: k, Shards: 3, Workers: 1, Rigger: ClassicalRigger{}, IO: BatchIO{Load: files.load, Encode: files.encode}}
		sum, err := b.Run()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Skipped != 0 {
			t.Errorf("shard %d re-did another shard's work: %+v", k, sum)
		}
		total += sum.Done
	}
	if total != len(names) {
		t.Errorf("shards rigged %d assets, want %d", total, len(names))
	}
}

func ExampleParseShard() {
	k, n, err := ParseShard("2/8")
	fmt.Println(k, n, err)
	_, _, err = ParseShard("8/8")
	fmt.Println(err)
	// Output:
	// 2 8 <nil>
	// shard "8/8": want k/n with 0 <= k < n
}

// TestBatchFlagsLowScores writes a rig scoring under SuspectBelow as suspect, with
// the score among its reasons, in the summary and on the log; SuspectBelow 0
// flags nothing.
func TestBatchFlagsLowScores(t *testing.T) {
	scores := map[string]float64{"low": 0.2, "high": 0.6}
	score := func(c *character.Character) (float64, any, error) { return scores[c.Name], nil, nil }
	for _, tc := range []struct {
		below   float64
		flagged []string
	}{
		{0, nil},
		{0.35, []string{"low"}},
		{0.7, []string{"high", "low"}},
	} {
		in := writeInputs(t, map[string]string{"low.glb": "low", "high.glb": "high"})
		out := t.TempDir()
		var log strings.Builder
		files := fakeFiles{}
		b := &Batch{Inputs: []string{in}, OutDir: out, Workers: 1, Rigger: ClassicalRigger{}, Judge: Judge{Score: score, SuspectBelow: tc.below},
			Log: &log, IO: BatchIO{Load: files.load, Encode: files.encode}}
		sum, err := b.Run()
		if err != nil {
			t.Fatal(err)
		}
		var flagged []string
		for _, name := range []string{"high", "low"} {
			r := readReport(t, filepath.Join(out, name+".json"))
			want := fmt.Sprintf("the rig scores %.3f, under %.2f", scores[name], tc.below)
			lowScore := len(r.Suspect) > 0 && strings.HasPrefix(r.Suspect[len(r.Suspect)-1], want)
			if lowScore {
				flagged = append(flagged, name)
				if r.Status != "suspect" || !strings.Contains(log.String(), want) {
					t.Errorf("below %.2f: %s: status %q, log %q", tc.below, name, r.Status, log.String())
				}
			}
			if (r.Status == "suspect") != (len(r.Suspect) > 0) {
				t.Errorf("below %.2f: %s: status %q with reasons %q", tc.below, name, r.Status, r.Suspect)
			}
		}
		if fmt.Sprint(flagged) != fmt.Sprint(tc.flagged) || sum.Suspect < len(tc.flagged) {
			t.Errorf("below %.2f: flagged %v, want %v (summary: %d suspect)", tc.below, flagged, tc.flagged, sum.Suspect)
		}
	}
}
