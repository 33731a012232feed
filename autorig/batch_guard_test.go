package autorig

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// amplificationHeader is the JSON chunk of a GLB whose nodes all instance one mesh of
// verts vertices (no binary chunk: the pre-check never reads one).
func amplificationHeader(nodes, verts int) []byte {
	ns := make([]string, nodes)
	for i := range ns {
		ns[i] = `{"mesh":0}`
	}
	doc := fmt.Sprintf(`{"asset":{"version":"2.0"},"nodes":[%s],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],`+
		`"accessors":[{"componentType":5126,"count":%d,"type":"VEC3"}]}`, strings.Join(ns, ","), verts)
	for len(doc)%4 != 0 {
		doc += " "
	}
	var b bytes.Buffer
	b.WriteString("glTF")
	binary.Write(&b, binary.LittleEndian, uint32(2))
	binary.Write(&b, binary.LittleEndian, uint32(20+len(doc)))
	binary.Write(&b, binary.LittleEndian, uint32(len(doc)))
	b.WriteString("JSON")
	b.WriteString(doc)
	return b.Bytes()
}

// recordingFiles is fakeFiles that records which paths were loaded.
type recordingFiles struct {
	fakeFiles
	mu     sync.Mutex
	loaded []string
}

func (f *recordingFiles) load(path string) (*character.Character, error) {
	f.mu.Lock()
	f.loaded = append(f.loaded, filepath.Base(path))
	f.mu.Unlock()
	return f.fakeFiles.load(path)
}

// An output folder that cannot be written fails the batch before any asset is
// loaded or rigged, with ErrOutputFolder.
func TestBatchUnwritableOutput(t *testing.T) {
	in := writeInputs(t, map[string]string{"one.glb": "one"})
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	readOnly := t.TempDir()
	os.Chmod(readOnly, 0o555)
	t.Cleanup(func() { os.Chmod(readOnly, 0o755) })
	cases := map[string]string{"out is a file": notDir, "out inside a file": filepath.Join(notDir, "sub")}
	if os.Geteuid() != 0 { // root writes read-only folders
		cases["read-only folder"] = readOnly
	}
	for name, out := range cases {
		t.Run(name, func(t *testing.T) {
			files := &recordingFiles{}
			rig := &countingRigger{inner: ClassicalRigger{}}
			b := &Batch{Inputs: []string{in}, OutDir: out, Rigger: rig, IO: BatchIO{Load: files.load, Encode: files.encode}}
			sum, err := b.Run()
			if !errors.Is(err, ErrOutputFolder) || sum != nil {
				t.Fatalf("err %v, summary %+v; want ErrOutputFolder and no summary", err, sum)
			}
			if len(files.loaded) != 0 || rig.calls.Load() != 0 {
				t.Errorf("loaded %v and rigged %d before failing", files.loaded, rig.calls.Load())
			}
		})
	}
}

// When every write fails (a full disk), every asset is still reported: on the log
// as it fails and in the returned summary, whose file could not be written.
func TestBatchFullDisk(t *testing.T) {
	in := writeInputs(t, map[string]string{"a.glb": "a", "b.glb": "b", "c.glb": "c"})
	out := t.TempDir()
	full := &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	files := fakeFiles{}
	var log bytes.Buffer
	b := &Batch{Inputs: []string{in}, OutDir: out, Workers: 2, Rigger: ClassicalRigger{}, Log: &syncWriter{w: &log},
		IO: BatchIO{Load: files.load,
			Encode:    func(io.Writer, *character.Character) (any, error) { return nil, full },
			WriteFile: func(string, []byte) error { return full }}}
	sum, err := b.Run()
	if err == nil || !strings.Contains(err.Error(), "summary not written") || sum == nil {
		t.Fatalf("err %v, summary %+v; want the summary returned and its write error", err, sum)
	}
	if sum.Failed != 3 || sum.Done != 0 || len(sum.Failures) != 3 {
		t.Fatalf("summary %+v, want 3 failures", sum)
	}
	for _, name := range []string{"a.glb", "b.glb", "c.glb"} {
		line := ""
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, name) {
				line = l
			}
		}
		if !strings.Contains(line, "no space left") || !strings.Contains(line, "report not written") {
			t.Errorf("%s: log line %q, want the write error and that its report was not written", name, line)
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Inputs that would exhaust memory (nodes reusing one big mesh) or block the loader
// (a FIFO) are refused before loading, reported, and the rest of the batch runs and
// writes its summary.
func TestBatchPoisonInputs(t *testing.T) {
	in := writeInputs(t, map[string]string{"good.glb": "good"})
	if err := os.WriteFile(filepath.Join(in, "amplified.glb"), amplificationHeader(2000, 10_000), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := syscall.Mkfifo(filepath.Join(in, "pipe.glb"), 0o644) == nil
	out := t.TempDir()
	files := &recordingFiles{}
	// The amplified file goes through the real loader, whose budget refuses it
	// before reading any geometry.
	load := func(path string) (*character.Character, error) {
		if filepath.Base(path) == "amplified.glb" {
			return assets.Options{}.Loader()(path)
		}
		return files.load(path)
	}
	b := &Batch{Inputs: []string{in}, OutDir: out, Workers: 1, Rigger: ClassicalRigger{}, IO: BatchIO{Load: load, Encode: files.encode}}
	sum, err := b.Run()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files.loaded, ",") != "good.glb" {
		t.Errorf("loaded %v, want only good.glb", files.loaded)
	}
	if r := readReport(t, filepath.Join(out, "amplified.json")); r.Status != "failed" || !strings.Contains(r.Error, "Budget.Vertices") {
		t.Errorf("amplified: report %+v", r)
	}
	if fifo {
		if r := readReport(t, filepath.Join(out, "pipe.json")); r.Status != "failed" || !strings.Contains(r.Error, "not a regular file") {
			t.Errorf("pipe: report %+v", r)
		}
	}
	if sum.Done != 1 {
		t.Errorf("summary %+v, want the good asset done", sum)
	}
	if _, err := os.Stat(filepath.Join(out, "summary-0-of-1.json")); err != nil {
		t.Errorf("no summary: %v", err)
	}
}

// Temporary files a killed run left for this shard's assets and summary are removed
// on start; those of assets outside the shard are not.
func TestBatchRemovesStaleTemps(t *testing.T) {
	in := writeInputs(t, map[string]string{"a.glb": "a", "b.glb": "b"})
	out := t.TempDir()
	stale := []string{".a.glb.tmp123", ".a.json.tmp9", ".a.tmp99-17.glb", ".summary-0-of-2.json.tmp4", ".rig-probe-1.tmp"}
	other := ".b.glb.tmp5" // b is shard 1's
	for _, n := range append(stale, other) {
		os.WriteFile(filepath.Join(out, n), []byte("partial"), 0o644)
	}
	b := &Batch{Inputs: []string{in}, OutDir: out, Shard: 0, Shards: 2, Rigger: ClassicalRigger{}, IO: BatchIO{Load: fakeFiles{}.load, Encode: fakeFiles{}.encode}}
	if _, err := b.Run(); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(out, n)); err == nil {
			t.Errorf("stale %s left", n)
		}
	}
	if _, err := os.Stat(filepath.Join(out, other)); err != nil {
		t.Errorf("another shard's temporary file removed: %v", err)
	}
}

// An input named like a summary gets another output name, and the summary stays a
// summary.
func TestBatchSummaryNameCollision(t *testing.T) {
	in := writeInputs(t, map[string]string{"summary-0-of-1.glb": "s", "summary-0-of-1-asset.glb": "t"})
	out := t.TempDir()
	b := &Batch{Inputs: []string{in}, OutDir: out, Rigger: ClassicalRigger{}, IO: BatchIO{Load: fakeFiles{}.load, Encode: fakeFiles{}.encode}}
	sum, err := b.Run()
	if err != nil || sum.Done != 2 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary-0-of-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got BatchSummary
	if err := json.Unmarshal(data, &got); err != nil || got.Shard != "0/1" || got.Done != 2 {
		t.Fatalf("summary file %s: %+v %v", data, got, err)
	}
	for _, name := range []string{"summary-0-of-1-asset2", "summary-0-of-1-asset"} {
		if r := readReport(t, filepath.Join(out, name+".json")); r.Status != "ok" {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// An output folder that is an input folder, or lies inside one, is refused
// without Force; with Force, the previous run's outputs are never read back as
// inputs and no output replaces its input.
func TestBatchOutputInsideInput(t *testing.T) {
	tests := []struct {
		name      string
		outRel    string // output folder relative to the input folder
		force     bool
		wantErr   bool
		wantTotal int // inputs of the rerun
	}{
		{"inside, refused", "rigged", false, true, 0},
		{"same folder, refused", ".", false, true, 0},
		{"inside, forced", "rigged", true, false, 2},
		{"same folder, forced", ".", true, false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := writeInputs(t, map[string]string{"a.glb": "a", "sub/b.glb": "b"})
			out := filepath.Join(in, tc.outRel)
			run := func() (*BatchSummary, error) {
				b := &Batch{Inputs: []string{in}, OutDir: out, Force: tc.force, Rigger: ClassicalRigger{},
					IO: BatchIO{Load: fakeFiles{}.load, Encode: fakeFiles{}.encode}}
				return b.Run()
			}
			sum, err := run()
			if tc.wantErr {
				if !errors.Is(err, ErrOutputInInput) || !strings.Contains(err.Error(), in) {
					t.Fatalf("error %v, want ErrOutputInInput naming %s", err, in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum, err = run(); err != nil || sum.Total != tc.wantTotal {
				t.Fatalf("rerun: summary %+v, err %v; want %d inputs (outputs not read back)", sum, err, tc.wantTotal)
			}
			if tc.outRel == "." && sum.Failed != 1 {
				t.Errorf("same folder: summary %+v, want a.glb failed rather than replaced", sum)
			}
			if data, _ := os.ReadFile(filepath.Join(in, "a.glb")); string(data) != "a" {
				t.Errorf("input a.glb replaced: %q", data)
			}
		})
	}
}
