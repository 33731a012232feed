package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/assets/format"
)

// This file finds the inputs of a run: files, folders and manifests, each with a
// unique output name.

// BatchItem is one input with its unique output name.
type BatchItem struct {
	Path string
	Name string
}

// SkippedInput is a file in an input folder that is not rigged, and why.
type SkippedInput struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ListInputs expands files, folders and manifests into a sorted, de-duplicated list of
// mesh files with unique output names (see DiscoverInputs).
func ListInputs(inputs []string) ([]BatchItem, error) {
	items, _, err := DiscoverInputs(inputs)
	return items, err
}

// DiscoverInputs expands files, folders and manifests into a sorted, de-duplicated
// list of mesh files with unique output names, and lists the files of the folders
// that were skipped, with the reason. Names are the file's base name without
// extension; base names that collide get their distinct parent folders prefixed.
// A file named directly must be a mesh or a manifest (.jsonl, .txt): any other
// extension is an error, never read as a manifest. Manifest entries are taken as
// they are; a listed file the loader cannot read fails as that asset.
func DiscoverInputs(inputs []string) ([]BatchItem, []SkippedInput, error) {
	var skipped []SkippedInput
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", in, err)
		}
		switch {
		case st.IsDir():
			err := filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					return nil
				}
				if format.IsMeshFile(p) {
					add(p)
				} else {
					skipped = append(skipped, SkippedInput{Path: p, Reason: skipReason(p)})
				}
				return nil
			})
			if err != nil {
				return nil, nil, fmt.Errorf("input folder %s: %w", in, err)
			}
		case format.IsMeshFile(in):
			add(in)
		case isManifest(in):
			list, err := readInputList(in)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range list {
				add(p)
			}
		default:
			if err := format.UnsupportedFormat(in); err != nil {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("input %s: unknown extension %q: want mesh files (%s), folders, or manifests (.jsonl, .txt)",
				in, filepath.Ext(in), strings.Join(format.MeshExtensions, ", "))
		}
	}
	sort.Strings(paths)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return nameItems(paths), skipped, nil
}

// isManifest reports whether p is named like a manifest.
func isManifest(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".jsonl" || ext == ".txt"
}

// otherMeshFormats are 3D formats a folder may hold that rigkit does not read and
// neither converts with its own hint; they are named as such when skipped.
var otherMeshFormats = map[string]bool{
	".stl": true, ".ply": true, ".3ds": true, ".usd": true, ".usda": true, ".usdc": true, ".usdz": true,
	".abc": true, ".x3d": true, ".max": true, ".ma": true, ".mb": true, ".c4d": true, ".lwo": true, ".off": true, ".vrm": true,
}

// skipReason says why a file in an input folder is not rigged.
func skipReason(p string) string {
	ext := strings.ToLower(filepath.Ext(p))
	switch {
	case format.UnsupportedFormat(p) != nil:
		return fmt.Sprintf("%s is not read: convert it to GLB (rig inspect %s prints the Blender and assimp commands)", ext, p)
	case otherMeshFormats[ext]:
		return fmt.Sprintf("%s is not a format rigkit reads (%s): convert it to GLB", ext, strings.Join(format.MeshExtensions, ", "))
	case ext == "":
		return "not a mesh file (no extension)"
	}
	return fmt.Sprintf("not a mesh file (%s)", ext)
}

// IsMeshLike reports whether a skipped file looks like a 3D model (a user probably
// meant it as input), as opposed to a texture, buffer or note beside the meshes.
func (s SkippedInput) IsMeshLike() bool {
	ext := strings.ToLower(filepath.Ext(s.Path))
	return format.UnsupportedFormat(s.Path) != nil || otherMeshFormats[ext]
}

// LogSkipped writes the skipped files to w: each 3D model by name (up to 20), the
// other files counted by extension on one line.
func LogSkipped(w io.Writer, skipped []SkippedInput) {
	if w == nil || len(skipped) == 0 {
		return
	}
	shown, other := 0, map[string]int{}
	var models []SkippedInput
	for _, s := range skipped {
		if s.IsMeshLike() {
			models = append(models, s)
		} else {
			other[strings.ToLower(filepath.Ext(s.Path))]++
		}
	}
	for _, s := range models {
		if shown == 20 {
			fmt.Fprintf(w, "skipped %d more 3D files (listed in the summary)\n", len(models)-shown)
			break
		}
		fmt.Fprintf(w, "skipped %s: %s\n", s.Path, s.Reason)
		shown++
	}
	if n := len(skipped) - len(models); n > 0 {
		exts := make([]string, 0, len(other))
		for e := range other {
			exts = append(exts, e)
		}
		sort.Strings(exts)
		parts := make([]string, len(exts))
		for i, e := range exts {
			if e == "" {
				e = "(none)"
			}
			parts[i] = fmt.Sprintf("%s %d", e, other[exts[i]])
		}
		fmt.Fprintf(w, "skipped, not meshes: %d files (%s)\n", n, strings.Join(parts, ", "))
	}
}

// readInputList reads an input list: a .jsonl manifest (ReadManifest, strict,
// so a broken row names its line rather than dropping a character from the run) or
// a plain list of paths, one a line, "#" starting a comment. Paths are relative to
// the list's folder.
func readInputList(path string) ([]string, error) {
	var list []string
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		rows, err := ReadManifest(path, Strict)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			list = append(list, r.File)
		}
	} else {
		var err error
		if list, err = readPathList(path); err != nil {
			return nil, err
		}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("manifest %s: no mesh files listed (inputs must be %s files, folders or manifests)", path, strings.Join(format.MeshExtensions, ", "))
	}
	dir := filepath.Dir(path)
	for i, s := range list {
		if !filepath.IsAbs(s) {
			list[i] = filepath.Join(dir, s)
		}
	}
	return list, nil
}

// readPathList reads a plain list of paths, skipping blank lines and comments.
func readPathList(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" && !strings.HasPrefix(s, "#") {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return out, nil
}

// nameItems gives every path a unique output name, deterministic for the sorted list
// (so every shard of a job agrees on the names).
func nameItems(paths []string) []BatchItem {
	items := make([]BatchItem, len(paths))
	parts := make([][]string, len(paths))
	depth := make([]int, len(paths))
	for i, p := range paths {
		parts[i] = strings.Split(filepath.ToSlash(strings.TrimSuffix(p, filepath.Ext(p))), "/")
		depth[i] = 1
	}
	name := func(i int) string {
		ps := parts[i]
		d := min(depth[i], len(ps))
		return sanitizeName(strings.Join(ps[len(ps)-d:], "_"))
	}
	for round := 0; round < 64; round++ {
		groups := map[string][]int{}
		for i := range paths {
			groups[name(i)] = append(groups[name(i)], i)
		}
		clash := false
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			for _, i := range g {
				if depth[i] < len(parts[i]) {
					depth[i]++
					clash = true
				}
			}
		}
		if !clash {
			break
		}
	}
	used := map[string]int{}
	for i, p := range paths {
		n := name(i)
		if k := used[n]; k > 0 { // identical paths modulo sanitizing: number them
			used[n]++
			n = fmt.Sprintf("%s_%d", n, k)
		} else {
			used[n] = 1
		}
		items[i] = BatchItem{Path: p, Name: n}
	}
	return items
}

func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '-' || c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !ok {
			b[i] = '_'
		}
	}
	s = strings.TrimLeft(string(b), ".")
	if s == "" {
		s = "asset"
	}
	return s
}

// DescribeItems gives every item its dataset family, category and split
// (Describe), keyed by path.
func DescribeItems(items []BatchItem) map[string]File {
	paths := make([]string, len(items))
	for i, it := range items {
		paths[i] = it.Path
	}
	out := map[string]File{}
	for _, f := range Describe(paths) {
		out[f.Path] = f
	}
	for _, it := range items {
		// Describe cleans paths; index the item's own spelling too.
		if _, ok := out[it.Path]; !ok {
			out[it.Path] = out[filepath.Clean(it.Path)]
		}
	}
	return out
}
