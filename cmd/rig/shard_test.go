package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// rigProcess returns an unstarted rig process (this test binary as rig) with extra
// environment variables.
func rigProcess(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("no path to the test binary: %v", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), append([]string{asRigEnv + "=1", "JOB_COMPLETION_INDEX=", "SLURM_ARRAY_TASK_ID="}, env...)...)
	return cmd
}

// shardOutputs reads a batch output folder: each asset's GLB bytes and the fields
// of its report that do not depend on timing.
func shardOutputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.glb"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".glb")
		glb, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Status string   `json:"status"`
			Joints int      `json:"joints"`
			Score  *float64 `json:"score"`
			Rig    struct {
				Method string `json:"method"`
			} `json:"rig"`
		}
		if err := json.Unmarshal(js, &rep); err != nil || rep.Status != "ok" || rep.Score == nil {
			t.Fatalf("%s: report %s (%v)", name, js, err)
		}
		out[name] = string(glb) + "|" + rep.Status + "|" + rep.Rig.Method + "|" + string(rune(rep.Joints))
	}
	return out
}

// TestShardsAsConcurrentProcesses runs `rig auto` as three concurrent processes,
// one shard each (two given their index as a Kubernetes Indexed Job and a Slurm
// array give it, through --shard auto/3), into one folder, and checks that the
// union of their outputs equals a one-process run file for file, byte for byte.
func TestShardsAsConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if code, _, errOut := runWith(t, nil, "gen", "--count", "7", "--vertices", "400", "--out", in, "--workers", "1", "--quiet"); code != 0 {
		t.Fatalf("gen: %s", errOut)
	}
	common := []string{"auto", in, "--skin", "heat", "--workers", "1", "--quiet"}
	one := filepath.Join(dir, "one")
	if out, err := rigProcess(t, nil, append(common, "--out", one)...).CombinedOutput(); err != nil {
		t.Fatalf("one process: %v\n%s", err, out)
	}
	many := filepath.Join(dir, "many")
	shards := []struct {
		env  []string
		flag string
	}{
		{[]string{"JOB_COMPLETION_INDEX=0"}, "auto/3"},
		{[]string{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1"}, "auto/3"},
		{nil, "2/3"},
	}
	var procs []*exec.Cmd
	var outs []*bytes.Buffer
	for _, s := range shards {
		cmd := rigProcess(t, s.env, append(common, "--out", many, "--shard", s.flag)...)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs, outs = append(procs, cmd), append(outs, &b)
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	for k := 0; k < 3; k++ {
		if _, err := os.Stat(filepath.Join(many, "summary-"+string(rune('0'+k))+"-of-3.json")); err != nil {
			t.Fatalf("shard %d wrote no summary: %v", k, err)
		}
	}
	a, b := shardOutputs(t, one), shardOutputs(t, many)
	if len(a) != 7 {
		t.Fatalf("one process rigged %d of 7", len(a))
	}
	var names []string
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if a[n] != b[n] {
			t.Errorf("%s differs between the one-process run and the shards (present in shards: %v)", n, b[n] != "")
		}
	}
	if len(b) != len(a) {
		t.Errorf("shards wrote %d assets, one process %d", len(b), len(a))
	}
}
