package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/hostile"
)

// TestAutoHugeCoordinates rigs the hostile OBJ whose coordinates overflow float64,
// with the classical rig built beside the sampling (the default), in process and
// with --isolate: the item fails with an error in its report and in the summary,
// and the process neither crashes nor loses the summary.
func TestAutoHugeCoordinates(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the memory limit with ulimit")
	}
	dir := t.TempDir()
	tc, err := hostile.HugeCoordinates(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	for _, isolate := range []bool{false, true} {
		out := filepath.Join(dir, "out", map[bool]string{false: "inproc", true: "isolate"}[isolate])
		args := []string{"auto", tc.Path, "--out", out, "--quiet"}
		if isolate {
			args = append(args, "--isolate")
		}
		stdout, stderr, err := rigLimited(t, args...)
		checkHostileRun(t, tc, args, stdout, stderr, err)
		var exit *exec.ExitError
		if !asExit(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("rig %s: %v, want exit 1\n%s%s", strings.Join(args, " "), err, stdout, stderr)
		}
		var sum struct {
			Failed   int
			Failures []string
		}
		data, rerr := os.ReadFile(filepath.Join(out, "summary-0-of-1.json"))
		if rerr != nil || json.Unmarshal(data, &sum) != nil {
			t.Fatalf("isolate=%v: no summary: %v", isolate, rerr)
		}
		if sum.Failed != 1 || len(sum.Failures) != 1 || !strings.HasPrefix(sum.Failures[0], tc.Path+": ") || strings.Contains(sum.Failures[0], "worker process died") {
			t.Errorf("isolate=%v: summary does not fail the item with its own error: %s", isolate, data)
		}
	}
}

func asExit(err error, exit **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*exit = e
	return ok
}
