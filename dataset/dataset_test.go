package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeCategory(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"biped", "biped"}, {"biped human", "biped"}, {"quadruped", "quadruped"},
		{"bird/winged", "bird"}, {"bird", "bird"}, {"fish", "fish"}, {"snake", "snake"},
		{"other-creature", "creature"}, {"creature", "creature"}, {"prop/mechanical", "prop"},
		{"", ""}, {"Vehicle", "vehicle"},
	} {
		if got := NormalizeCategory(tc.in); got != tc.want {
			t.Errorf("NormalizeCategory(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRowFamily(t *testing.T) {
	for _, tc := range []struct {
		row  Row
		want string
	}{
		{Row{File: "pack/a.glb", Source: "pack", Family: "monsters"}, "pack/monsters"},
		{Row{File: "0ad/horse_a.glb", Note: "hierarchy from horse.xml:Horse (confidence high)"}, "0ad/horse.xml:Horse"},
		{Row{File: "oc/Clonk_02.glb"}, "oc/clonk"},
	} {
		if got := rowFamily(tc.row); got != tc.want {
			t.Errorf("rowFamily(%+v) = %q, want %q", tc.row, got, tc.want)
		}
	}
}

// writeCollection makes a folder with a manifest and empty GLB files.
func writeCollection(t *testing.T, rows []string, files []string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rows != nil {
		if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFamilySizeComesFromTheWholeManifest(t *testing.T) {
	var rows, files []string
	for _, n := range []string{"a", "b", "c"} {
		rows = append(rows, `{"file":"pack/`+n+`.glb","source":"pack","family":"f","category":"biped"}`)
		files = append(files, "pack/"+n+".glb")
	}
	dir := writeCollection(t, rows, files)
	// Describing one file still sees the family's three rows.
	got := Describe([]string{filepath.Join(dir, "pack", "b.glb")})
	if len(got) != 1 || got[0].Family != "pack/f" || got[0].FamilySize != 3 || got[0].Category != "biped" {
		t.Fatalf("Describe = %+v, want family pack/f of size 3, biped", got)
	}
	all, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("Discover found %d files, want 3", len(all))
	}
}

func TestSplitKeepsFamiliesTogether(t *testing.T) {
	var files []File
	for i := 0; i < 400; i++ {
		fam := "fam" + string(rune('a'+i%40))
		files = append(files, File{Path: fam + "/" + string(rune('0'+i%10)), Family: fam, FamilySize: 10})
	}
	files = append(files, File{Path: "big/1", Family: "big", FamilySize: MaxHeldOutFamily + 1})
	train, held := Split(files)
	if len(train)+len(held) != len(files) || len(held) == 0 || len(train) == 0 {
		t.Fatalf("split %d/%d of %d", len(train), len(held), len(files))
	}
	side := map[string]bool{}
	for _, f := range held {
		side[f.Family] = true
	}
	for _, f := range train {
		if side[f.Family] {
			t.Fatalf("family %s on both sides", f.Family)
		}
		if f.Family == "big" {
			continue
		}
	}
	if side["big"] {
		t.Fatal("a family over MaxHeldOutFamily was held out")
	}
}

// TestSharedDataSplit checks the split of ../shared/data: every category is held out
// somewhere and about a sixth of the files are.
func TestSharedDataSplit(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
		t.Skip("../shared/data not present")
	}
	files, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	_, held := Split(files)
	cats := map[string]int{}
	for _, f := range held {
		cats[f.Category]++
	}
	for _, c := range []string{"biped", "quadruped", "bird", "fish", "creature", "prop"} {
		if cats[c] == 0 {
			t.Errorf("no held-out %s (held out: %v)", c, cats)
		}
	}
	if share := float64(len(held)) / float64(len(files)); share < 0.1 || share > 0.25 {
		t.Errorf("held-out share %.2f outside [0.10, 0.25]", share)
	}
}
