package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/dataset"
)

// File is one ground-truth asset and its manifest category ("" if unknown).
type File struct {
	Path     string `json:"file"`
	Category string `json:"category"`
	Rel      string `json:"-"` // path under its --data folder
}

// ListFiles returns the rigs under the folders, each folder's sorted, with categories
// from its manifest.jsonl when it has one; no rig at all is an error.
func ListFiles(dirs []string) ([]File, error) {
	var files []File
	for _, d := range dirs {
		f, err := listFiles(d)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("eval: no .glb or .gltf files under %v", dirs)
	}
	return files, nil
}

// SelectFiles keeps the split's part of files (split is all, held-out or train), the
// humanoids when humanoids is set (so that limit counts them), and every k-th file
// so that about limit remain (0: all).
func SelectFiles(files []File, split string, limit int, humanoids bool) []File {
	if split == "held-out" || split == "train" {
		files = splitFiles(files, split == "held-out")
	}
	if humanoids {
		files = humanoidFiles(files)
	}
	if limit > 0 && len(files) > limit {
		step := (len(files) + limit - 1) / limit
		var kept []File
		for i := 0; i < len(files); i += step {
			kept = append(kept, files[i])
		}
		files = kept
	}
	return files
}

// DefaultSplit is the split a task scores when none is asked for: the reports of
// the tokenizer and the anatomy are on the held-out split, and tuning the
// tokenizer's decode settings never sees it.
func DefaultSplit(task string, tune bool) string {
	switch {
	case task == "tokenizer" && tune:
		return "train"
	case task == "tokenizer", task == "anatomy", task == "complete":
		return "held-out"
	}
	return "all"
}

// listFiles returns the rigs under dir, sorted, with categories from
// dir/manifest.jsonl when it exists.
func listFiles(dir string) ([]File, error) {
	cats := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl")); err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var row File
			if json.Unmarshal(sc.Bytes(), &row) == nil && row.Path != "" {
				cats[filepath.Clean(row.Path)] = row.Category
			}
		}
	}
	var out []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if d.IsDir() || (ext != ".glb" && ext != ".gltf") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, File{Path: p, Category: cats[filepath.Clean(rel)], Rel: rel})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("eval: list %s: %w", dir, err)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out, nil
}

// splitFiles keeps the files of the model's held-out split (heldOutItems), or with
// heldOut false the others; when no split applies, all files either way.
func splitFiles(files []File, heldOut bool) []File {
	items, _, _ := heldOutItems(files)
	held := map[string]bool{}
	for _, it := range items {
		held[it.Path] = true
	}
	if len(items) == len(files) { // no split applies
		return files
	}
	var out []File
	for _, f := range files {
		if held[filepath.Clean(f.Path)] == heldOut {
			out = append(out, f)
		}
	}
	return out
}

// heldOutItems turns the files into the held-out part of the one dataset split
// (dataset.File.HeldOut): families and categories come from the manifest of the
// nearest folder above each file that has one, as in training. The note says which
// part it is, for the report.
func heldOutItems(files []File) (items []dataset.BatchItem, fam map[string]dataset.File, note string) {
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	items, _ = dataset.ListInputs(paths)
	fam = dataset.DescribeItems(items)
	var held []dataset.BatchItem
	for _, it := range items {
		if fam[it.Path].HeldOut() {
			held = append(held, it)
		}
	}
	if len(held) == 0 || len(held) == len(items) {
		// No training/validation split applies to this folder: evaluate everything.
		return items, fam, fmt.Sprintf("all %d files (no file or every file is in the held-out split)", len(items))
	}
	return held, fam, fmt.Sprintf("held-out split: %d of %d files (families never seen in training)", len(held), len(items))
}

// humanoidFiles keeps the files whose manifest category is a biped.
func humanoidFiles(files []File) []File {
	var out []File
	for _, f := range files {
		if strings.HasPrefix(f.Category, "biped") {
			out = append(out, f)
		}
	}
	return out
}

// isCharacter reports whether a manifest category is a character (biped, quadruped,
// winged, creature) rather than a prop.
func isCharacter(category string) bool {
	c := strings.ToLower(category)
	for _, k := range []string{"biped", "quadruped", "winged", "creature"} {
		if strings.Contains(c, k) {
			return true
		}
	}
	return false
}
