package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxExported is the most exported names (top-level names and exported methods) a
// package may have: past it a package no longer reads as one idea (image/png has
// 16). A package in exportExceptions may have more, for the reason given there.
const maxExported = 60

// exportExceptions are the packages allowed past maxExported, with why.
var exportExceptions = map[string]string{
	// A layer library: every layer has its constructor, Forward, Backward and
	// parameter list, as gorgonia's and gonum's layer types do; splitting it would
	// cut the layers from the tape they share.
	"internal/nn": "one exported constructor, forward and backward pass per layer",
}

// exportedNames counts the exported top-level names and exported methods of one
// parsed file.
func exportedNames(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if name.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

func TestExportedNames(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"type A struct{}; func (A) M() {}; func (A) m() {}", 2},
		{"var X, y, Z = 1, 2, 3; const C = 1", 3},
		{"func f() {}; type t int", 0},
	}
	for _, tc := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := exportedNames(f); got != tc.want {
			t.Errorf("%q: %d exported names, want %d", tc.src, got, tc.want)
		}
	}
}

// TestPackageExports counts every package's exported names (non-test files, all
// build tags) and fails on a package past maxExported that has no exception.
func TestPackageExports(t *testing.T) {
	root := filepath.Join("..", "..")
	counts := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		counts[filepath.ToSlash(rel)] += exportedNames(f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var over []string
	for pkg, n := range counts {
		if _, ok := exportExceptions[pkg]; n > maxExported && !ok {
			over = append(over, fmt.Sprintf("%s exports %d names (at most %d; unexport what only the package uses, or split it)", pkg, n, maxExported))
		}
	}
	sort.Strings(over)
	for _, o := range over {
		t.Error(o)
	}
}
