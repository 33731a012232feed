package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFamilyHalf(t *testing.T) {
	// Deterministic, and a family's files never straddle the halves.
	for _, fam := range []string{"0ad/horse", "quaternius-animals", ""} {
		if a, b := FamilyHalf(fam), FamilyHalf(fam); a != b || (a != TuneHalf && a != ReportHalf) {
			t.Errorf("FamilyHalf(%q) = %q then %q", fam, a, b)
		}
	}
	// Both halves get families: of 200 synthetic names, each half holds 70–130.
	n := map[string]int{}
	for i := 0; i < 200; i++ {
		n[FamilyHalf(filepath.Join("src", string(rune('a'+i%26)), string(rune('A'+i/26))))]++
	}
	if n[TuneHalf] < 70 || n[ReportHalf] < 70 {
		t.Errorf("halves of 200 families: %v", n)
	}
}

func TestFamilyHalfData(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
		t.Skip("../shared/data not present")
	}
	files, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, f := range files {
		n[FamilyHalf(f.TuningFamily())]++
	}
	// Neither half may be a sliver of the data: each holds at least a third.
	if 3*n[TuneHalf] < len(files) || 3*n[ReportHalf] < len(files) {
		t.Errorf("files per half: %v of %d", n, len(files))
	}
}

func TestTuningFamily(t *testing.T) {
	tests := []struct {
		file File
		want string
	}{
		{File{Family: "pack/monsters", Row: Row{File: "a.glb", Source: "pack", Family: "monsters"}}, "monsters"},
		{File{Family: "0ad/horse.xml:Horse", Row: Row{File: "horse_a.glb", Note: "hierarchy from horse.xml:Horse"}}, "0ad/horse.xml:Horse"},
		{File{Family: "oc/clonk"}, "oc/clonk"},
	}
	for _, tc := range tests {
		if got := tc.file.TuningFamily(); got != tc.want {
			t.Errorf("TuningFamily(%+v) = %q, want %q", tc.file, got, tc.want)
		}
	}
}
