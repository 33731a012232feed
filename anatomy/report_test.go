package anatomy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/dataset"
)

// dataDir is the artists' rigs (../shared/data from the repository root).
const dataDir = "../../shared/data"

// humanoidFiles returns the held-out (or, with all, every) biped files of the data.
func humanoidFiles(t *testing.T, all bool) []string {
	t.Helper()
	var out []string
	for path, cat := range dataFiles(t, all) {
		if strings.HasPrefix(cat, "biped") {
			out = append(out, path)
		}
	}
	sort.Strings(out)
	return out
}

// dataFiles returns the held-out (or, with all, every) files of the data with their
// manifest category.
func dataFiles(t *testing.T, all bool) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, "manifest.jsonl"))
	if err != nil {
		t.Skipf("no data (%v)", err)
	}
	defer f.Close()
	cat := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ File, Category string }
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			cat[filepath.Clean(filepath.Join(dataDir, r.File))] = r.Category
		}
	}
	files, err := dataset.Discover([]string{dataDir})
	if err != nil {
		t.Fatal(err)
	}
	train, val := dataset.Split(files)
	if all {
		val = append(val, train...)
	}
	out := map[string]string{}
	for _, v := range val {
		if c, ok := cat[filepath.Clean(v.Path)]; ok {
			out[v.Path] = c
		}
	}
	return out
}

// TestHumanoidReport fits every held-out humanoid of ../shared/data and reports the
// anatomical checks and the name accuracy (docs/anatomy.md). It is a report, slow
// on two cores: it runs with RIGKIT_ANATOMY_REPORT=held-out (or =all for every
// biped file); otherwise it fits the first three held-out files.
func TestHumanoidReport(t *testing.T) {
	mode := os.Getenv("RIGKIT_ANATOMY_REPORT")
	files := humanoidFiles(t, mode == "all")
	if mode == "" && len(files) > 3 {
		files = files[:3]
	}
	var hits, total, humanoids, pelvis, oneRoot, noLimbOnLimb, mirrored, symmetric, zUp, yUp int
	perSource := map[string][2]int{}
	for _, path := range files {
		c, err := assets.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sk, rep := fit(t, c, anatomy.Options{Kind: anatomy.Humanoid, Up: "y"})
		H := height(&c.Mesh, 1)
		ch := anatomy.Check(sk, rep.Symmetry, H)
		rel, _ := filepath.Rel(dataDir, path)
		src := strings.SplitN(rel, "/", 2)[0]
		h, n, missed := anatomy.NameAccuracy(sk, c.Skeleton, 0.1*H)
		hits, total = hits+h, total+n
		ps := perSource[src]
		perSource[src] = [2]int{ps[0] + h, ps[1] + n}
		t.Logf("%s: kind %s, roots %d, root-pelvis %.3f, limb-on-limb %v, mirror %.4f (mesh %.4f), names %d/%d missed %v",
			rel, rep.Kind, ch.Roots, ch.RootToPelvis, ch.LimbOnLimb, ch.MirrorError, rep.Symmetry.Error, h, n, missed)
		if rep.Kind == anatomy.Humanoid {
			humanoids++
		}
		if ch.Roots == 1 {
			oneRoot++
		}
		if ch.RootToPelvis >= 0 && ch.RootToPelvis < 0.1 {
			pelvis++
		}
		if len(ch.LimbOnLimb) == 0 {
			noLimbOnLimb++
		}
		if mode != "" {
			// The same mesh exported Z-up, as Blender writes it.
			z := c.Clone()
			for i, p := range z.Mesh.Positions {
				z.Mesh.Positions[i] = assets.Vec3{p[0], -p[2], p[1]}
			}
			if _, zr := fit(t, z, anatomy.Options{}); zr.Up == "z" {
				zUp++
			}
			if _, yr := fit(t, c, anatomy.Options{}); yr.Up == "y" {
				yUp++
			}
		}
		if rep.Symmetry.Symmetric {
			symmetric++
			if ch.MirrorError <= 0.02 {
				mirrored++
			}
		}
		if ch.Roots != 1 || len(ch.LimbOnLimb) > 0 {
			t.Errorf("%s: %d roots, limbs on limbs %v", rel, ch.Roots, ch.LimbOnLimb)
		}
	}
	t.Logf("files %d: humanoid template fitted %d, one root %d, root at the pelvis %d, no limb on a limb %d, symmetric meshes %d of which mirrored within 2%% %d",
		len(files), humanoids, oneRoot, pelvis, noLimbOnLimb, symmetric, mirrored)
	for src, v := range perSource {
		t.Logf("names %s: %d/%d", src, v[0], v[1])
	}
	t.Logf("up axis detected: as stored (Y) %d, turned Z-up %d", yUp, zUp)
	if total > 0 {
		t.Logf("name accuracy: %d/%d = %.3f", hits, total, float64(hits)/float64(total))
	}
}

// TestSyntheticBipedReport fits RIGKIT_ANATOMY_REPORT_SEEDS (default 3) synthetic
// bipeds (`rig gen --kind biped --seed 1..N`) and reports the same checks, with
// the generator's skeleton as the artist's.
func TestSyntheticBipedReport(t *testing.T) {
	n := 3
	if os.Getenv("RIGKIT_ANATOMY_REPORT") != "" {
		n = 20
	}
	var hits, total, humanoids, pelvis, oneRoot, clean, symmetric, mirrored int
	for seed := int64(1); seed <= int64(n); seed++ {
		c := gen(t, "biped", seed)
		sk, rep := fit(t, c, anatomy.Options{})
		H := height(&c.Mesh, 1)
		ch := anatomy.Check(sk, rep.Symmetry, H)
		h, k, missed := anatomy.NameAccuracy(sk, c.Skeleton, 0.1*H)
		hits, total = hits+h, total+k
		t.Logf("biped %d: kind %s (%.2f), roots %d, root-pelvis %.3f, mirror %.4f (mesh %.4f), names %d/%d missed %v",
			seed, rep.Kind, rep.Confidence, ch.Roots, ch.RootToPelvis, ch.MirrorError, rep.Symmetry.Error, h, k, missed)
		if rep.Kind == anatomy.Humanoid {
			humanoids++
		}
		if ch.Roots == 1 {
			oneRoot++
		}
		if ch.RootToPelvis >= 0 && ch.RootToPelvis < 0.1 {
			pelvis++
		}
		if len(ch.LimbOnLimb) == 0 {
			clean++
		} else {
			t.Errorf("biped %d: limbs on limbs %v", seed, ch.LimbOnLimb)
		}
		if rep.Symmetry.Symmetric {
			symmetric++
			if ch.MirrorError <= 0.02 {
				mirrored++
			}
		}
	}
	t.Logf("bipeds %d: detected humanoid %d, one root %d, root at the pelvis %d, no limb on a limb %d, symmetric %d of which mirrored within 2%% %d, names %d/%d",
		n, humanoids, oneRoot, pelvis, clean, symmetric, mirrored, hits, total)
}

// expectedKind is the kind a manifest category should be detected as.
func expectedKind(category string) anatomy.Kind {
	switch {
	case strings.HasPrefix(category, "biped"):
		return anatomy.Humanoid
	case category == "quadruped":
		return anatomy.Quadruped
	case strings.HasPrefix(category, "bird"):
		return anatomy.Bird
	case category == "fish":
		return anatomy.Fish
	case category == "snake":
		return anatomy.Snake
	}
	return anatomy.Other
}

// TestKindReport detects the kind and up axis of every held-out file of the data
// (RIGKIT_ANATOMY_REPORT=held-out, or =all) and reports them against the
// manifest's categories (docs/anatomy.md). It is a report: it skips without the
// variable.
func TestKindReport(t *testing.T) {
	mode := os.Getenv("RIGKIT_ANATOMY_REPORT")
	if mode == "" {
		t.Skip("a report: set RIGKIT_ANATOMY_REPORT=held-out or =all")
	}
	files := dataFiles(t, mode == "all")
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	confusion := map[string]int{}
	right, zUp, clean := 0, 0, 0
	for _, path := range paths {
		c, err := assets.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sk, rep := fit(t, c, anatomy.Options{})
		want := expectedKind(files[path])
		confusion[fmt.Sprintf("%s -> %s", want, rep.Kind)]++
		if want == rep.Kind {
			right++
		}
		if rep.Up == "z" {
			zUp++
			t.Logf("%s (%s): detected Z-up as %s", path, files[path], rep.Kind)
		}
		ch := anatomy.Check(sk, rep.Symmetry, height(&c.Mesh, 1))
		if ch.Roots == 1 && len(ch.LimbOnLimb) == 0 {
			clean++
		}
	}
	keys := make([]string, 0, len(confusion))
	for k := range confusion {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d", k, confusion[k])
	}
	t.Logf("files %d: kind as the manifest's category %d, detected Z-up %d, one root and no limb on a limb %d", len(paths), right, zUp, clean)
}
