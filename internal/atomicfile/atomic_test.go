package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "old.txt")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(existing, link); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, strings.Repeat("é", 125)+"x") // 251 bytes: a legal name
	failure := errors.New("writer failed")
	tests := []struct {
		name    string
		path    string
		write   func(io.Writer) error
		want    string // file content afterwards ("" = no file)
		errPart string
	}{
		{"new nested folder", filepath.Join(dir, "a", "b", "new.txt"), writeString("new"), "new", ""},
		{"replaces a file", existing, writeString("replaced"), "replaced", ""},
		{"writer fails: nothing left", filepath.Join(dir, "c", "fail.txt"), func(io.Writer) error { return failure }, "", "writer failed"},
		{"parent is a file", filepath.Join(blocker, "x.txt"), writeString("x"), "", blocker},
		{"a 251-byte name", long, writeString("long"), "long", ""},
		{"a folder is not replaced", folder, writeString("x"), "", "not a regular file (a folder)"},
		{"a symbolic link is not replaced", link, writeString("x"), "", "not a regular file (a symbolic link)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(tc.path, tc.write)
			if tc.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errPart) || !strings.Contains(err.Error(), tc.path) {
					t.Fatalf("err %v, want one naming %s and %q", err, tc.path, tc.errPart)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, rerr := os.ReadFile(tc.path)
			if st, _ := os.Lstat(tc.path); st != nil && !st.Mode().IsRegular() {
				rerr = errors.New("not a regular file") // left as it was
			}
			if tc.want == "" {
				if rerr == nil {
					t.Fatalf("%s exists after a failed write", tc.path)
				}
			} else if string(got) != tc.want {
				t.Fatalf("content %q, want %q", got, tc.want)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(tc.path), ".*.tmp*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}
