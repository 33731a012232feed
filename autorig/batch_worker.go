package autorig

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/atomicfile"
)

// A fatal runtime error (out of memory, a stack overflow) cannot be recovered in
// Go: it ends the process with every goroutine. With Batch.Worker set, each asset
// is rigged in a child process, so a poison input ends only its own child and the
// batch reports it and goes on.

// setDefaults fills in the optional fields.
func (b *Batch) setDefaults() {
	if b.IO.WriteFile == nil {
		b.IO.WriteFile = atomicfile.WriteFile
	}
}

// RigOne rigs one item and writes DIR/<name>.glb and DIR/<name>.json exactly as
// Run does for each asset; it is what a Worker child process runs.
func (b *Batch) RigOne(it dataset.BatchItem) *AssetReport {
	b.setDefaults()
	return b.one(it)
}

// rigItem rigs one asset in this process, or in a child when Worker is set.
func (b *Batch) rigItem(it dataset.BatchItem) *AssetReport {
	if b.Worker == nil {
		return b.one(it)
	}
	return b.inWorker(it)
}

// inWorker runs b.Worker(it) and returns the report the child wrote; a child that
// exits without writing a fresh report (killed, out of memory) gets a failed
// report naming its exit status and the last line it wrote on stderr.
func (b *Batch) inWorker(it dataset.BatchItem) *AssetReport {
	start := time.Now().Round(0)
	cmd := b.Worker(it)
	stderr := &tailWriter{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	runErr := cmd.Run()
	path := filepath.Join(b.OutDir, it.Name+".json")
	if rep, err := readAssetReport(path); err == nil && runErr == nil && !rep.Finished.Before(start.UTC()) {
		return rep
	}
	why := "exited without a report"
	if runErr != nil {
		why = runErr.Error()
	}
	rep := &AssetReport{Input: it.Path, Name: it.Name, Status: "failed",
		Error:     fmt.Sprintf("worker process died (%s): %s", why, stderr.lastLine()),
		TimingsMS: map[string]float64{"total": ms(time.Since(start))}, Finished: time.Now().UTC()}
	data, _ := json.MarshalIndent(rep, "", "  ")
	if err := b.IO.WriteFile(path, append(data, '\n')); err != nil {
		rep.Error += fmt.Sprintf(" (report not written: %v)", err)
	}
	return rep
}

func readAssetReport(path string) (*AssetReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep AssetReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// tailWriter keeps the first and the last max bytes written to it: the runtime
// writes its fatal error first and then goroutine stacks of any length.
type tailWriter struct {
	mu         sync.Mutex
	max        int
	head, tail []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - len(w.head); room > 0 {
		w.head = append(w.head, p[:min(room, len(p))]...)
	}
	w.tail = append(w.tail, p...)
	if over := len(w.tail) - w.max; over > 0 {
		w.tail = append(w.tail[:0], w.tail[over:]...)
	}
	return len(p), nil
}

// lastLine is the Go runtime's fatal error or panic line when there is one
// ("fatal error: runtime: out of memory"), else the last non-empty line.
func (w *tailWriter) lastLine() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(string(w.head), "\n") {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			return l
		}
	}
	lines := strings.Split(strings.TrimSpace(string(w.tail)), "\n")
	if s := strings.TrimSpace(lines[len(lines)-1]); s != "" {
		return s
	}
	return "no output"
}
