package rigmodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// This file finds the inputs of a run: files, folders and manifests, each with a
// unique output name.

// BatchItem is one input with its unique output name.
type BatchItem struct {
	Path string
	Name string
}

// ListInputs expands files, folders and manifests into a sorted, de-duplicated list of
// mesh files with unique output names. Names are the file's base name without
// extension; base names that collide get their distinct parent folders prefixed.
func ListInputs(inputs []string) ([]BatchItem, error) {
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
			return nil, fmt.Errorf("input %s: %w", in, err)
		}
		switch {
		case st.IsDir():
			err := filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && isMeshFile(p) {
					add(p)
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("input folder %s: %w", in, err)
			}
		case isMeshFile(in):
			add(in)
		default:
			list, err := readManifest(in)
			if err != nil {
				return nil, err
			}
			for _, p := range list {
				add(p)
			}
		}
	}
	sort.Strings(paths)
	return nameItems(paths), nil
}

func isMeshFile(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".glb" || ext == ".gltf"
}

// readManifest reads a .jsonl manifest ({"file": ...} per row) or a plain list.
func readManifest(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	defer f.Close()
	dir := filepath.Dir(path)
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if strings.HasPrefix(s, "{") {
			var row struct {
				File string `json:"file"`
				Path string `json:"path"`
			}
			if err := json.Unmarshal([]byte(s), &row); err != nil {
				return nil, fmt.Errorf("manifest %s line %d: %w", path, line, err)
			}
			s = row.File
			if s == "" {
				s = row.Path
			}
			if s == "" {
				return nil, fmt.Errorf("manifest %s line %d: no \"file\" field", path, line)
			}
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("manifest %s: no mesh files listed (inputs must be .glb/.gltf files, folders or manifests)", path)
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
