package anatomy_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/tokenizer"
)

// dataDir is the artists' rigs (../shared/data from the repository root).
const dataDir = "../../shared/data"

// humanoidFiles returns the held-out (or, with all, every) biped files of the data.
func humanoidFiles(t *testing.T, all bool) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, "manifest.jsonl"))
	if err != nil {
		t.Skipf("no data (%v)", err)
	}
	defer f.Close()
	biped := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ File, Category string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Category == "biped" {
			biped[filepath.Clean(filepath.Join(dataDir, r.File))] = true
		}
	}
	files, err := tokenizer.Families([]string{dataDir})
	if err != nil {
		t.Fatal(err)
	}
	train, val := tokenizer.SplitFiles(files)
	if all {
		val = append(val, train...)
	}
	var out []string
	for _, v := range val {
		if biped[filepath.Clean(v.Path)] {
			out = append(out, v.Path)
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
	var hits, total, humanoids, pelvis, oneRoot, noLimbOnLimb, mirrored, symmetric int
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
