// Package dataset finds the character files a command reads (files, folders and
// manifests, each with a unique output name) and splits them into training and
// held-out parts. It is the one place that says which files a model, a skin tokenizer
// and an evaluation may learn from: all of them use Split (or File.HeldOut), so no
// figure is ever measured on a family that something was trained on.
package dataset

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// File is one rigged character file.
type File struct {
	Path string
	// Family is the rig family: files of one family share a skeleton or a pack's
	// conventions and are never split between training and held-out parts.
	Family string
	// Category is the manifest's category, normalized by NormalizeCategory ("" when
	// the file has no manifest row).
	Category string
	// FamilySize is the number of files of the family: counted over the whole
	// manifest when the file has a row (so the split does not depend on which
	// subfolder was passed), else over the files described together.
	FamilySize int
	// Row is the file's manifest row; zero when no manifest lists the file.
	Row Row
}

// Categories are the normalized categories, in report order.
var Categories = []string{"biped", "quadruped", "bird", "fish", "snake", "creature", "prop"}

// NormalizeCategory maps a manifest's category spelling to one of Categories; an
// unknown spelling is returned lower-cased.
func NormalizeCategory(c string) string {
	c = strings.ToLower(strings.TrimSpace(c))
	switch {
	case c == "":
		return ""
	case strings.HasPrefix(c, "biped"), strings.Contains(c, "humanoid"):
		return "biped"
	case strings.HasPrefix(c, "quadruped"):
		return "quadruped"
	case strings.HasPrefix(c, "bird"), strings.Contains(c, "winged"):
		return "bird"
	case c == "fish":
		return "fish"
	case c == "snake":
		return "snake"
	case strings.Contains(c, "creature"):
		return "creature"
	case strings.HasPrefix(c, "prop"), strings.Contains(c, "mech"):
		return "prop"
	}
	return c
}

// IsCharacter reports whether a category is a living creature (every category but
// props; a file without a category counts as a character).
func IsCharacter(category string) bool { return category != "prop" }

// Discover lists the .glb/.gltf files under roots (folders are walked, files are taken
// as they are) with their families, sorted by path. Manifests are found beside a file
// or in any folder above it and read Strict: Discover decides what trains and what is
// held out, so a malformed manifest line is an error naming the manifest and the line.
func Discover(roots []string) ([]File, error) {
	var paths []string
	for _, root := range roots {
		st, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("data %s: %w", root, err)
		}
		if !st.IsDir() {
			paths = append(paths, root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := strings.ToLower(filepath.Ext(path))
			if !d.IsDir() && (ext == ".glb" || ext == ".gltf") {
				paths = append(paths, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("data %s: %w", root, err)
		}
	}
	files, err := describe(paths, Strict)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	sort.Slice(files, func(a, b int) bool { return files[a].Path < files[b].Path })
	return files, nil
}

// Describe gives each path its family, category and family size, in the order given.
// It reads manifests Lenient: it labels files for reports (rig auto's summary), where
// a hand-edited manifest must not stop rigging; a malformed line leaves its file
// described by its name, as if the manifest had no row for it.
func Describe(paths []string) []File {
	files, _ := describe(paths, Lenient)
	return files
}

// describe gives each path its family, category and family size, reading manifests
// under policy; the first manifest error (Strict only) stops it.
func describe(paths []string, policy Policy) ([]File, error) {
	m := manifests{policy: policy, byDir: map[string]*manifest{}}
	out := make([]File, len(paths))
	loose := map[string]int{}
	for i, p := range paths {
		f, err := m.describe(p)
		if err != nil {
			return nil, err
		}
		out[i] = f
		if f.FamilySize == 0 {
			loose[f.Family]++
		}
	}
	for i := range out {
		if out[i].FamilySize == 0 {
			out[i].FamilySize = loose[out[i].Family]
		}
	}
	return out, nil
}

// ByPath indexes files by their cleaned path.
func ByPath(files []File) map[string]File {
	m := make(map[string]File, len(files))
	for _, f := range files {
		m[filepath.Clean(f.Path)] = f
	}
	return m
}

// manifests caches the manifest found for each folder (nil: none above it) and
// reads each under one policy.
type manifests struct {
	policy Policy
	byDir  map[string]*manifest
}

func (m manifests) describe(path string) (File, error) {
	path = filepath.Clean(path)
	f := File{Path: path, Family: nameFamily(path)}
	man, err := m.find(filepath.Dir(path))
	if man == nil || err != nil {
		return f, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return f, nil
	}
	rel, err := filepath.Rel(man.dir, abs)
	if err != nil {
		return f, nil
	}
	rel = filepath.ToSlash(rel)
	row, ok := man.rows[rel]
	if !ok {
		return f, nil
	}
	f.Family = man.family[rel]
	f.Category = NormalizeCategory(row.Category)
	f.FamilySize = man.size[f.Family]
	f.Row = row
	return f, nil
}

// find returns the manifest in dir or the nearest folder above it. Under Lenient a
// manifest that cannot be read counts as none, and the search goes on above it.
func (m manifests) find(dir string) (*manifest, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil
	}
	var walked []string
	var found *manifest
	for d := abs; ; d = filepath.Dir(d) {
		if man, ok := m.byDir[d]; ok {
			found = man
			break
		}
		walked = append(walked, d)
		man, err := readManifest(d, m.policy)
		if err != nil && m.policy == Strict {
			return nil, err
		}
		if man != nil {
			found = man
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range walked {
		m.byDir[d] = found
	}
	return found, nil
}

// rowFamily names a manifest row's family: its source and `family` field; else the
// skeleton its note names ("hierarchy from X.xml:Name"); else the file name without
// variant suffixes.
func rowFamily(row Row) string {
	top := strings.SplitN(row.File, "/", 2)[0]
	if row.Source != "" {
		top = row.Source
	}
	if row.Family != "" {
		return top + "/" + row.Family
	}
	if i := strings.Index(row.Note, "hierarchy from "); i >= 0 {
		if f := strings.Fields(row.Note[i+len("hierarchy from "):]); len(f) > 0 {
			return top + "/" + f[0]
		}
	}
	return nameFamily(row.File)
}

var variantSuffix = regexp.MustCompile(`(_[a-z]|_?\d+|_(male|female|old|young|baby|light|heavy))$`)

// nameFamily is the family of a file no manifest describes: its folder and its name
// without variant suffixes (_a, _02, _female, ...).
func nameFamily(path string) string {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	for {
		s := variantSuffix.ReplaceAllString(base, "")
		if s == base || s == "" {
			break
		}
		base = s
	}
	return filepath.Base(filepath.Dir(filepath.FromSlash(path))) + "/" + base
}

// Attribution credits the authors of ../shared/data, as its README asks of anything
// trained on it; checkpoints carry it in their facts. Some Minetest rows are
// GPL-3.0 (the manifest's licence per row), so a checkpoint trained on the whole
// training part says so.
const Attribution = "0 A.D. art © Wildfire Games, CC-BY-SA 3.0; OpenClonk content © the OpenClonk developers; " +
	"Quaternius (CC0); Minetest mob models by their authors (per manifest row: MIT, GPL-3.0, WTFPL, CC-BY-SA-3.0, CC0); " +
	"Cube 2 models by John Siar (CC-BY 3.0). Trained on GPL-3.0 rows among others."
