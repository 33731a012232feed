package autorig

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
)

// TestMain doubles as the worker process of TestBatchWorkerSurvivesFatalError: with
// RIGMODEL_TEST_WORKER set to "out|name|path" it rigs that one item and exits.
func TestMain(m *testing.M) {
	if job := os.Getenv("RIGMODEL_TEST_WORKER"); job != "" {
		parts := strings.SplitN(job, "|", 3)
		b := &Batch{OutDir: parts[0], Rigger: fatalRigger{}, IO: BatchIO{Load: fakeFiles{}.load, Encode: fakeFiles{}.encode}}
		b.RigOne(dataset.BatchItem{Name: parts[1], Path: parts[2]})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fatalRigger rigs as the classical rigger, except that a character named "poison"
// overflows the stack (a fatal error that no recover catches) and one named "hang"
// never returns.
type fatalRigger struct{}

func (fatalRigger) Rig(c *character.Character) (*character.Character, *RigInfo, error) {
	switch c.Name {
	case "poison":
		debug.SetMaxStack(1 << 16)
		return nil, nil, recurse(c)
	case "hang":
		select {}
	}
	return ClassicalRigger{}.Rig(c)
}

func recurse(c *character.Character) error {
	var frame [64]byte // each call takes stack
	if c != nil {
		frame[0] = byte(len(c.Name))
		return recurse(c)
	}
	return nil
}

// With a worker process per asset, an input that kills its process is reported
// failed with the runtime's fatal error, the other assets are rigged and the summary
// is written.
func TestBatchWorkerSurvivesFatalError(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable to re-run:", err)
	}
	in := writeInputs(t, map[string]string{"a.glb": "a", "poison.glb": "poison", "b.glb": "b", "hang.glb": "hang"})
	out := t.TempDir()
	b := &Batch{Inputs: []string{in}, OutDir: out, Workers: 2, Rigger: fatalRigger{},
		IO: BatchIO{Load: fakeFiles{}.load, Encode: fakeFiles{}.encode},
		Isolate: Isolation{Timeout: 10 * time.Second, Command: func(it dataset.BatchItem) *exec.Cmd {
			cmd := exec.Command(exe, "-test.run", "^$")
			cmd.Env = append(os.Environ(), "RIGMODEL_TEST_WORKER="+out+"|"+it.Name+"|"+it.Path)
			return cmd
		}}}
	sum, err := b.Run()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 2 || sum.Failed != 2 {
		t.Fatalf("summary %+v, want 2 done, the poison and the hang failed", sum)
	}
	r := readReport(t, filepath.Join(out, "poison.json"))
	if r.Status != "failed" || !strings.Contains(r.Error, "worker process died") || !strings.Contains(r.Error, "fatal error: stack overflow") {
		t.Errorf("poison: report %+v", r)
	}
	r = readReport(t, filepath.Join(out, "hang.json"))
	if r.Status != "failed" || !strings.Contains(r.Error, "per-item time limit of 10s") {
		t.Errorf("hang: report %+v", r)
	}
	for _, name := range []string{"a", "b"} {
		if r := readReport(t, filepath.Join(out, name+".json")); r.Status != "ok" {
			t.Errorf("%s: report %+v", name, r)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "summary-0-of-1.json")); err != nil {
		t.Errorf("no summary: %v", err)
	}
}
