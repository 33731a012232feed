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
