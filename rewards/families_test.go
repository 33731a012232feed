package rewards

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/dataset"
)

// fileFamilies maps each rig under dir (slash-separated path relative to dir) to its
// tuning family (TuningFamily).
func fileFamilies(t testing.TB, dir string) map[string]string {
	t.Helper()
	fs, err := dataset.Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range fs {
		rel, _ := filepath.Rel(dir, f.Path)
		out[filepath.ToSlash(rel)] = TuningFamily(f)
	}
	return out
}

// filesOfHalf keeps the files (under dataDir) whose family is in half.
func filesOfHalf(t testing.TB, files []string, half string) []string {
	t.Helper()
	if half != TuneHalf && half != ReportHalf {
		t.Fatalf("half %q: want %q or %q", half, TuneHalf, ReportHalf)
	}
	fam := fileFamilies(t, dataDir())
	var out []string
	for _, f := range files {
		rel, _ := filepath.Rel(dataDir(), f)
		if FamilyHalf(fam[filepath.ToSlash(rel)]) == half {
			out = append(out, f)
		}
	}
	return out
}

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
	d := dataDir()
	if d == "" {
		t.Skip("../shared/data not found")
	}
	fam := fileFamilies(t, d)
	n := map[string]int{}
	for _, f := range fam {
		n[FamilyHalf(f)]++
	}
	// Neither half may be a sliver of the data: each holds at least a third.
	if 3*n[TuneHalf] < len(fam) || 3*n[ReportHalf] < len(fam) {
		t.Errorf("files per half: %v of %d", n, len(fam))
	}
}

func TestTuningFamily(t *testing.T) {
	tests := []struct {
		file dataset.File
		want string
	}{
		{dataset.File{Family: "pack/monsters", Row: dataset.Row{File: "a.glb", Source: "pack", Family: "monsters"}}, "monsters"},
		{dataset.File{Family: "0ad/horse.xml:Horse", Row: dataset.Row{File: "horse_a.glb", Note: "hierarchy from horse.xml:Horse"}}, "0ad/horse.xml:Horse"},
		{dataset.File{Family: "oc/clonk"}, "oc/clonk"},
	}
	for _, tc := range tests {
		if got := TuningFamily(tc.file); got != tc.want {
			t.Errorf("TuningFamily(%+v) = %q, want %q", tc.file, got, tc.want)
		}
	}
}
