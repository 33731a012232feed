package autorig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rigkit/rigkit/dataset"
)

// This file holds what keeps a batch honest when its surroundings fail: an output
// folder checked before any work, temporary files of a killed run removed, inputs
// that would exhaust memory refused before loading, and names that cannot overwrite
// the summary.

// ErrOutputFolder marks a batch that cannot write its output folder; nothing was
// rigged.
var ErrOutputFolder = errors.New("output folder not writable")

// checkOutputFolder creates dir and proves it writable by creating, syncing and
// removing a probe file, so that a read-only or full folder fails the batch before
// any asset is rigged.
func checkOutputFolder(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("batch: %s: %w: %v", dir, ErrOutputFolder, err)
	}
	f, err := os.CreateTemp(dir, ".rig-probe-*.tmp")
	if err != nil {
		return fmt.Errorf("batch: %s: %w: %v", dir, ErrOutputFolder, err)
	}
	_, err = f.Write([]byte("probe\n"))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	os.Remove(f.Name())
	if err != nil {
		return fmt.Errorf("batch: %s: %w: %v", dir, ErrOutputFolder, err)
	}
	return nil
}

// removeStaleTemps removes the hidden temporary files a killed run left in dir for
// these items and this shard's summary: ".<name>.glb.tmp…" and ".<name>.json.tmp…"
// (atomicfile.Write), ".<name>.tmp….glb" and write probes. Other
// shards' outputs are left alone, since they may be running in the same folder now.
func removeStaleTemps(dir string, items []dataset.BatchItem, summary string) (removed []string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	mine := map[string]bool{strings.TrimSuffix(summary, ".json"): true}
	for _, it := range items {
		mine[it.Name] = true
	}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(n, ".") || !strings.Contains(n, ".tmp") {
			continue
		}
		stem, _, _ := strings.Cut(n[1:], ".tmp")
		stem = strings.TrimSuffix(strings.TrimSuffix(stem, ".glb"), ".json")
		// A probe of another shard removed mid-check only makes its own removal fail.
		if mine[stem] || strings.HasPrefix(n, ".rig-probe-") {
			if os.Remove(filepath.Join(dir, n)) == nil {
				removed = append(removed, n)
			}
		}
	}
	return removed
}

// summaryName matches the names of batch summaries, which no asset may take.
var summaryName = regexp.MustCompile(`^summary-\d+-of-\d+$`)

// avoidSummaryNames renames items whose output name is a summary's
// ("summary-0-of-1.glb" would write summary-0-of-1.json): they get "-asset"
// appended, numbered if that is taken too.
func avoidSummaryNames(items []dataset.BatchItem) []dataset.BatchItem {
	taken := map[string]bool{}
	for _, it := range items {
		taken[it.Name] = true
	}
	for i, it := range items {
		if !summaryName.MatchString(it.Name) {
			continue
		}
		n := it.Name + "-asset"
		for k := 2; taken[n]; k++ {
			n = fmt.Sprintf("%s-asset%d", it.Name, k)
		}
		taken[n] = true
		items[i].Name = n
	}
	return items
}

// precheckInput refuses, before loading, an input that is not a regular file (a
// FIFO would block a loader that does not check, a device never ends). Inputs that
// would decode into too much are refused by the loader's budget before it reads any
// geometry (format.Budget), so one limit, with one message, holds for every command.
func precheckInput(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // the loader names the problem
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("load %s: refused before loading: not a regular file (%s)", path, st.Mode().Type())
	}
	return nil
}

// ErrOutputInInput marks a batch whose output folder is an input folder or lies
// inside one, refused without Force: its rigged GLBs would be read back as inputs
// by the next run, and with the same folder they would replace the inputs.
var ErrOutputInInput = errors.New("output folder inside an input folder")

// checkOutputOutsideInputs refuses an output folder equal to or inside a folder
// among inputs, unless force.
func checkOutputOutsideInputs(out string, inputs []string, force bool) error {
	if force {
		return nil
	}
	o := resolvePath(out)
	for _, in := range inputs {
		if st, err := os.Stat(in); err != nil || !st.IsDir() {
			continue
		}
		if within(o, resolvePath(in)) {
			return fmt.Errorf("batch: --out %s is or lies inside the input folder %s: %w (a rerun would rig the outputs; use another folder, or --force)",
				out, in, ErrOutputInInput)
		}
	}
	return nil
}

// dropOutputs removes from a folder scan what a batch writes (kept when named as
// inputs themselves), so that even with Force a rerun never rigs the outputs of
// the last one: every file under an output folder inside an input folder, and,
// when the output folder is an input folder, the GLBs its reports name as
// outputs and the reports themselves. In the first case the list does not depend
// on what the output folder holds, so every shard sees the same one.
func dropOutputs(items []dataset.BatchItem, skipped []dataset.SkippedInput, out string, inputs []string) ([]dataset.BatchItem, []dataset.SkippedInput) {
	o := resolvePath(out)
	named := map[string]bool{}
	for _, in := range inputs {
		named[resolvePath(in)] = true
	}
	outIsInput := named[o]
	scanned := func(p string) bool {
		r := resolvePath(p)
		if named[r] || !within(r, o) {
			return false
		}
		return !outIsInput || isPreviousOutput(r, o)
	}
	keep := items[:0]
	for _, it := range items {
		if !scanned(it.Path) {
			keep = append(keep, it)
		}
	}
	keepSkipped := skipped[:0]
	for _, s := range skipped {
		if !scanned(s.Path) {
			keepSkipped = append(keepSkipped, s)
		}
	}
	return keep, keepSkipped
}

// within reports whether path p is dir or lies under it (both resolved).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolvePath is p absolute, with symbolic links resolved in the longest part of
// it that exists (an output folder may not exist yet).
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs
	}
	return filepath.Join(resolvePath(parent), filepath.Base(abs))
}

// replacesInput reports whether writing out would replace the input file in
// (the same file, through any path): with Force and --out an input folder, an
// asset's GLB has its input's name.
func replacesInput(out, in string) bool {
	a, err := os.Stat(out)
	if err != nil {
		return false
	}
	b, err := os.Stat(in)
	return err == nil && os.SameFile(a, b)
}

// isPreviousOutput reports whether p, a file directly in the output folder o, is
// a batch's output: a report (NAME.json beside a summary or a GLB), or a GLB
// whose report names it as its output.
func isPreviousOutput(p, o string) bool {
	if filepath.Dir(p) != o {
		return false
	}
	stem := strings.TrimSuffix(p, filepath.Ext(p))
	if filepath.Ext(p) == ".json" {
		return true
	}
	rep, err := readAssetReport(stem + ".json")
	return err == nil && rep.Output != "" && resolvePath(rep.Output) == p
}
