package rewards

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/dataset"
)

// fileFamilies maps each rig under dir (slash-separated path relative to dir) to its
// tuning family (dataset.File.TuningFamily).
func fileFamilies(t testing.TB, dir string) map[string]string {
	t.Helper()
	fs, err := dataset.Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range fs {
		rel, _ := filepath.Rel(dir, f.Path)
		out[filepath.ToSlash(rel)] = f.TuningFamily()
	}
	return out
}

// filesOfHalf keeps the files (under dataDir) whose family is in half.
func filesOfHalf(t testing.TB, files []string, half string) []string {
	t.Helper()
	if half != dataset.TuneHalf && half != dataset.ReportHalf {
		t.Fatalf("half %q: want %q or %q", half, dataset.TuneHalf, dataset.ReportHalf)
	}
	fam := fileFamilies(t, dataDir())
	var out []string
	for _, f := range files {
		rel, _ := filepath.Rel(dataDir(), f)
		if dataset.FamilyHalf(fam[filepath.ToSlash(rel)]) == half {
			out = append(out, f)
		}
	}
	return out
}
