package autorig

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/atomicfile"
)

// A fatal runtime error (out of memory, a stack overflow) cannot be recovered in
// Go: it ends the process with every goroutine. With Batch.Isolate set, each asset
// is rigged in a child process, so a poison input ends only its own child and the
// batch reports it and goes on.

// setDefaults fills in the optional fields.
func (b *Batch) setDefaults() {
	if b.IO.WriteFile == nil {
		b.IO.WriteFile = atomicfile.WriteFile
	}
}

// DefaultItemTimeout is `rig auto --isolate`'s per-input time limit, meant to be
// reached only by a runaway input: the meshes within the default load budget rig
// in seconds to minutes, and a batch that meets slower ones raises it with
// --item-timeout.
const DefaultItemTimeout = 15 * time.Minute

// Isolation is how a batch rigs each item in a child process.
type Isolation struct {
	// Command returns the command of a child process that rigs one item (calling
	// RigOne); nil rigs every item in this process.
	Command func(it dataset.BatchItem) *exec.Cmd
	// Timeout kills a child still running after it, and the item fails naming
	// the limit; 0 sets none. A child is the only unit a batch can stop: a
	// goroutine cannot be killed.
	Timeout time.Duration
}

// RigOne rigs one item and writes DIR/<name>.glb and DIR/<name>.json exactly as
// Run does for each asset; it is what a Worker child process runs.
func (b *Batch) RigOne(it dataset.BatchItem) *AssetReport {
	b.setDefaults()
	return b.one(it)
}

// rigItem rigs one asset in this process, or in a child when Worker is set.
func (b *Batch) rigItem(it dataset.BatchItem) *AssetReport {
	if b.Isolate.Command == nil {
		return b.one(it)
	}
	return b.inWorker(it)
}

// inWorker runs the item's child process and returns the report it wrote; a
// child that exits without writing a fresh report (killed, out of memory, over
// the time limit) gets a failed report naming why and the last line it wrote on
// stderr.
func (b *Batch) inWorker(it dataset.BatchItem) *AssetReport {
	start := time.Now().Round(0)
	cmd := b.Isolate.Command(it)
	stderr := &tailWriter{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	timedOut, runErr := runLimited(cmd, b.Isolate.Timeout)
	path := filepath.Join(b.OutDir, it.Name+".json")
	if rep, err := readAssetReport(path); err == nil && runErr == nil && !rep.Finished.Before(start.UTC()) {
		return rep
	}
	why := "exited without a report"
	if runErr != nil {
		why = runErr.Error()
	}
	msg := fmt.Sprintf("worker process died (%s): %s", why, stderr.lastLine())
	if timedOut {
		msg = fmt.Sprintf("worker process killed: still running after the per-item time limit of %s", b.Isolate.Timeout)
	}
	rep := &AssetReport{Input: it.Path, Name: it.Name, Outcome: Outcome{Status: "failed", Error: msg},
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

// runLimited runs cmd and kills it when it is still running after limit (0: no
// limit), reporting whether it did. WaitDelay bounds the wait for the killed
// child's output pipes, which a grandchild holding them open could keep open.
func runLimited(cmd *exec.Cmd, limit time.Duration) (timedOut bool, err error) {
	if err := cmd.Start(); err != nil {
		return false, err
	}
	if limit <= 0 {
		return false, cmd.Wait()
	}
	cmd.WaitDelay = 5 * time.Second
	var killed atomic.Bool
	timer := time.AfterFunc(limit, func() {
		killed.Store(true)
		cmd.Process.Kill()
	})
	err = cmd.Wait()
	timer.Stop()
	return killed.Load(), err
}
