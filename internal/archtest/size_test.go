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

// maxStructFields is the most fields a struct may have before its fields must group
// into sub-structs: a longer list no longer reads as one idea (TrainOptions groups
// its data, schedule, loss, checkpoints and report).
const maxStructFields = 12

// maxFuncLines is the longest a non-test function may be, counted from its
// signature to its closing brace; a longer one splits into named phases.
const maxFuncLines = 100

// fieldCount counts a struct's fields: each name of a field list counts, an
// embedded type counts once.
func fieldCount(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(len(f.Names), 1)
	}
	return n
}

// sizeViolations returns one line per named struct type with more than
// maxStructFields fields, and per function longer than maxFuncLines lines, in the
// parsed file f.
func sizeViolations(fset *token.FileSet, f *ast.File, name string) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.TypeSpec:
			st, ok := d.Type.(*ast.StructType)
			if !ok {
				return true
			}
			if c := fieldCount(st); c > maxStructFields {
				out = append(out, fmt.Sprintf("%s:%d: %s has %d fields (at most %d; group related ones into sub-structs)",
					name, fset.Position(d.Pos()).Line, d.Name.Name, c, maxStructFields))
			}
		case *ast.FuncDecl:
			lines := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
			if lines > maxFuncLines {
				out = append(out, fmt.Sprintf("%s:%d: func %s has %d lines (at most %d; split it into named phases)",
					name, fset.Position(d.Pos()).Line, d.Name.Name, lines, maxFuncLines))
			}
		}
		return true
	})
	return out
}

func TestSizeViolations(t *testing.T) {
	long := "func long() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines-2) + "}\n"
	tests := []struct {
		name, src string
		want      int
	}{
		{"twelve fields pass", "type TrainOptions struct{ A, B, C, D, E, F int; G, H, I, J, K, L string }", 0},
		{"thirteen fields fail", "type TrainOptions struct{ A, B, C, D, E, F int; G, H, I, J, K, L string; M bool }", 1},
		{"an embedded struct counts once", "type serveConfig struct{ A, B, C, D, E, F, G, H, I, J, K int; Inner }", 0},
		{"a Config suffix is checked", "type evalConfig struct{ A, B, C, D, E, F, G, H, I, J, K, L, M int }", 1},
		{"every struct is checked", "type trainer struct{ A, B, C, D, E, F, G, H, I, J, K, L, M int }", 1},
		{"a non-struct type is not", "type trainer interface{ A(); B(); C(); D(); E(); F(); G(); H(); I(); J(); K(); L(); M() }", 0},
		{"a struct declared in a function is checked", "func f() { type localOptions struct{ A, B, C, D, E, F, G, H, I, J, K, L, M int } }", 1},
		{"a function of the limit passes", long, 0},
		{"a longer function fails", strings.Replace(long, "{\n", "{\n\t_ = 1\n", 1), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := sizeViolations(fset, f, "x.go"); len(got) != tc.want {
				t.Errorf("got %d violations %q, want %d", len(got), got, tc.want)
			}
		})
	}
}

// TestSizes parses every non-test Go file of the module (all build tags) and checks
// the sizes of its structs and functions.
func TestSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var out []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		out = append(out, sizeViolations(fset, f, filepath.ToSlash(rel))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("found %d Go files under %s", files, root)
	}
	sort.Strings(out)
	for _, v := range out {
		t.Error(v)
	}
}
