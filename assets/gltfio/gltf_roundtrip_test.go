package gltfio

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/khronos"
)

// A handful of real rigged files (different sources, joint counts, 16-bit joints).
var roundTripSamples = []string{
	"0ad/Croc.glb",
	"0ad/animal_boar.glb",
	"0ad/bear.glb",
	"0ad/zebra.glb",
}

func TestRoundTripRealFiles(t *testing.T) {
	data := sharedDataDir(t)
	files := append([]string(nil), roundTripSamples...)
	if oc, _ := filepath.Glob(filepath.Join(data, "openclonk", "*.glb")); len(oc) > 0 {
		sort.Strings(oc)
		rel, _ := filepath.Rel(data, oc[0])
		files = append(files, rel)
	}
	out := t.TempDir()
	var written []string
	for _, f := range files {
		in := filepath.Join(data, f)
		if _, err := os.Stat(in); err != nil {
			t.Logf("sample %s not present; skipped", f)
			continue
		}
		a, rep, err := testLoad(in, testOptions{AllowOrphans: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Warnings) > 0 {
			t.Errorf("%s: unexpected warnings on a clean file: %v", f, rep.Warnings)
		}
		if !a.Rigged() {
			t.Fatalf("%s: loaded without a rig", f)
		}
		for _, ext := range []string{".glb", ".gltf"} {
			dst := filepath.Join(out, filepath.Base(f)+ext)
			if _, err := Save(dst, a); err != nil {
				t.Fatal(err)
			}
			b, _, err := testLoad(dst, testOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compareCharacters(t, f+" via "+ext, a, b)
			if ext == ".glb" {
				written = append(written, dst)
			}
		}
	}
	khronos.Check(t, written...)
}

// TestAllSharedData loads every real file, saves it, validates the output and loads
// it back. It is the broad regression net for the loader and writer.
func TestAllSharedData(t *testing.T) {
	data := sharedDataDir(t)
	files, _ := filepath.Glob(filepath.Join(data, "*", "*.glb"))
	if len(files) == 0 {
		t.Skip("no .glb files in shared data")
	}
	sort.Strings(files)
	out := t.TempDir()
	start := time.Now()
	var written []string
	for i, in := range files {
		a, _, err := testLoad(in, testOptions{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		dst := filepath.Join(out, filepathSafe(i, in))
		if _, err := Save(dst, a); err != nil {
			t.Errorf("%v", err)
			continue
		}
		b, _, err := testLoad(dst, testOptions{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		compareCharacters(t, in, a, b)
		written = append(written, dst)
	}
	t.Logf("%d files loaded, saved and reloaded in %v", len(written), time.Since(start).Round(time.Millisecond))
	khronos.Check(t, written...)
}

func filepathSafe(i int, path string) string {
	return filepath.Base(filepath.Dir(path)) + "_" + filepath.Base(path)
}
