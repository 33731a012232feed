package dataset

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadManifestPolicies(t *testing.T) {
	good := `{"file":"pack/a.glb","source":"pack","family":"f","category":"biped","note":"n"}`
	tests := []struct {
		name    string
		rows    []string
		policy  Policy
		want    int    // rows read
		wantErr string // "" for none
	}{
		{"strict reads every row", []string{good, "", good}, Strict, 2, ""},
		{"strict names a broken line", []string{good, "", "{not json"}, Strict, 0, "line 3"},
		{"strict wants a file", []string{good, `{"family":"f"}`}, Strict, 0, `line 2: no "file" field`},
		{"lenient skips a broken line", []string{"{not json", good, `{"family":"f"}`}, Lenient, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeCollection(t, tc.rows, nil)
			path := filepath.Join(dir, ManifestName)
			rows, err := ReadManifest(path, tc.policy)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and %q", err, path, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.want {
				t.Fatalf("read %d rows, want %d", len(rows), tc.want)
			}
			want := Row{File: "pack/a.glb", Source: "pack", Family: "f", Category: "biped", Note: "n"}
			if rows[0] != want {
				t.Errorf("row = %+v, want %+v", rows[0], want)
			}
		})
	}
}

func TestReadManifestMissing(t *testing.T) {
	_, err := ReadManifest(filepath.Join(t.TempDir(), ManifestName), Strict)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
}

// TestDiscoverIsStrictDescribeIsLenient checks each caller's policy: Discover, which
// decides the split, fails on a malformed row; Describe labels the other files.
func TestDiscoverIsStrictDescribeIsLenient(t *testing.T) {
	rows := []string{`{"file":"a.glb","source":"pack","family":"f","category":"fish"}`, "oops"}
	dir := writeCollection(t, rows, []string{"a.glb", "b.glb"})
	_, err := Discover([]string{dir})
	if err == nil || !strings.Contains(err.Error(), ManifestName+" line 2") {
		t.Fatalf("Discover err = %v, want one naming %s line 2", err, ManifestName)
	}
	got := Describe([]string{filepath.Join(dir, "a.glb"), filepath.Join(dir, "b.glb")})
	if got[0].Family != "pack/f" || got[0].Row.Family != "f" || got[0].Category != "fish" {
		t.Errorf("Describe(a) = %+v, want family pack/f from row family f", got[0])
	}
	if got[1].Row != (Row{}) || got[1].Family != nameFamily(got[1].Path) {
		t.Errorf("Describe(b) = %+v, want no row and a name family", got[1])
	}
}
