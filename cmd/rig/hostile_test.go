package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/hostile"
)

// rigLimited runs `rig args...` as a subprocess under a 3 GiB address-space limit
// (ulimit -v) and a 30 s deadline, returning its stdout, stderr and exit error.
func rigLimited(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 3145728 && exec "$@"`, "sh", os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), "RIGKIT_TEST_RUN_RIG=1", "GOMAXPROCS=2")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("rig %s: no answer in 30 s", strings.Join(args, " "))
	}
	return out.String(), errb.String(), err
}

// TestHostileInputsCommands runs every internal/hostile case through rig inspect,
// score, auto and convert as subprocesses with bounded memory and time. Each must
// exit with its clear one-line error (or succeed, for the loadable cases), never
// crash or hang, and no output may hold a byte of the file outside the case folder.
func TestHostileInputsCommands(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the memory limit with ulimit")
	}
	dir := t.TempDir()
	cases, err := hostile.Write(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			out := filepath.Join(dir, "out", tc.Name)
			runs := [][]string{
				{"inspect", tc.Path},
				{"score", tc.Path},
				{"auto", tc.Path, "--out", out, "--quiet", "--compare-classical=false"},
				{"convert", tc.Path, filepath.Join(out, "converted.glb")},
			}
			for _, args := range runs {
				stdout, stderr, err := rigLimited(t, args...)
				checkHostileRun(t, tc, args, stdout, stderr, err)
			}
			checkNoSecret(t, out)
		})
	}
}

// checkHostileRun checks one command's outcome on a hostile case.
func checkHostileRun(t *testing.T, tc hostile.Case, args []string, stdout, stderr string, err error) {
	t.Helper()
	name := args[0]
	if strings.Contains(stderr, "panic:") || strings.Contains(stderr, "fatal error") {
		t.Fatalf("rig %s on %v crashed:\n%s", name, tc, stderr)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("rig %s on %v: %v", name, tc, err)
	}
	if exit != nil && !exit.Exited() {
		t.Fatalf("rig %s on %v was killed (%v):\n%s", name, tc, err, stderr)
	}
	for _, s := range []string{stdout, stderr} {
		if strings.Contains(s, hostile.Secret) {
			t.Fatalf("rig %s on %v printed bytes of the file outside the folder", name, tc)
		}
	}
	if tc.Want == "" {
		// Loadable: inspect and convert must succeed; score and auto may refuse the
		// mesh (it is unrigged, a flat strip) but only with a one-line error.
		if err != nil && (name == "inspect" || name == "convert") {
			t.Fatalf("rig %s on %v: %v\n%s", name, tc, err, stderr)
		}
		return
	}
	if err == nil {
		t.Fatalf("rig %s on %v succeeded", name, tc)
	}
	// rig score reads self-contained files only, so it refuses an external
	// buffer before looking at it.
	noFolder := name == "score" && strings.Contains(stdout, "no folder to read it from")
	if !strings.Contains(stderr+stdout, tc.Want) && !noFolder {
		t.Errorf("rig %s on %v: output does not name %q:\n%s%s", name, tc, tc.Want, stdout, stderr)
	}
	t.Logf("rig %s %s: %s", name, tc.Name, firstLine(stderr))
}

// checkNoSecret fails when any file under dir holds the outside file's bytes.
func checkNoSecret(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if data, rerr := os.ReadFile(p); rerr == nil && bytes.Contains(data, []byte(hostile.Secret[:16])) {
			t.Errorf("%s holds bytes of the file outside the input folder", p)
		}
		return nil
	})
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// TestBudgetFlags checks that a --max-* flag lowers (and so raises) the loader's
// limit for the command it is given to, and that the next command starts from the
// defaults again.
func TestBudgetFlags(t *testing.T) {
	dir := t.TempDir()
	path, err := hostile.Mesh(dir, "fifty.glb", 1000, 50) // 50 instances: 50,000 vertices
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string // "" for success
	}{
		{[]string{"inspect", path, "--max-vertices", "10000"}, "raise it with --max-vertices"},
		{[]string{"inspect", path}, ""},
		{[]string{"inspect", "--max-instances", "49", path}, "limit 49 (Budget.Instances"},
		{[]string{"inspect", "--max-file-mb", "0", path}, "positive number of MiB"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if (code == 0) != (tc.want == "") || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("rig %s: exit %d, stderr %q, want %q", strings.Join(tc.args, " "), code, errb.String(), tc.want)
		}
	}
}
