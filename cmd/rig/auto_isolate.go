package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/dataset"
)

// `rig auto --isolate` rigs each input in a worker process: this binary again, as
// `rig auto --worker-item NAME ... INPUT`, with the flags of the parent run. A fatal
// runtime error (out of memory) then ends one worker, and the batch reports that
// input and goes on.

// batchOnlyFlags are the flags of the batch as a whole, not of rigging one input.
var batchOnlyFlags = map[string]bool{"isolate": true, "worker-item": true, "shard": true, "workers": true,
	"force": true, "quiet": true, "out": true, "item-timeout": true}

// autoWorker returns the Batch.Worker that re-runs this binary for one item with
// the rigging flags set on fs.
func autoWorker(fs *flag.FlagSet, out string) (func(dataset.BatchItem) *exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--isolate: %w", err)
	}
	var pass []string
	fs.Visit(func(f *flag.Flag) {
		if !batchOnlyFlags[f.Name] {
			pass = append(pass, "--"+f.Name+"="+f.Value.String())
		}
	})
	return func(it dataset.BatchItem) *exec.Cmd {
		args := append([]string{"auto", "--worker-item", it.Name, "--out", out, "--quiet"}, pass...)
		return exec.Command(exe, append(args, "--", it.Path)...)
	}, nil
}

// runAutoWorker rigs one input as a worker of --isolate: it writes the input's GLB
// and JSON report under name, as the batch would.
func runAutoWorker(name string, inputs []string, out string, rigger autorig.Rigger) error {
	if len(inputs) != 1 {
		return fmt.Errorf("%w: --worker-item takes exactly one input, got %d", errUsage, len(inputs))
	}
	b := &autorig.Batch{OutDir: out, Rigger: rigger, Judge: autorig.Judge{Score: scoreRig, SuspectBelow: autorig.DefaultFloor}, IO: autorig.BatchIO{Load: assets.Options{KeepScene: true}.Loader(), Encode: encodeScene}}
	b.RigOne(dataset.BatchItem{Path: inputs[0], Name: name})
	return nil
}
