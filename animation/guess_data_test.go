package animation

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
)

// guessKeys are the joints TestGuessOnNamedBipeds compares.
var guessKeys = []string{"Hips", "Head", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot",
	"LeftArm", "LeftForeArm", "LeftHand", "RightArm", "RightForeArm", "RightHand"}

// TestGuessOnNamedBipeds measures the shape guess on the bipeds of
// ../shared/data whose names give motionKeyNames or more key joints, with their
// names withheld: how many it names, on which side, and how many of the hips,
// head and limb joints land where the names put them (docs/animation.md,
// "Unnamed skeletons"; -v prints the figures). It skips without the data.
func TestGuessOnNamedBipeds(t *testing.T) {
	files := sharedFiles(t)
	named, guessed, swapped, keys, right := 0, 0, 0, 0, 0
	for _, f := range files {
		if !strings.HasPrefix(f.Category, "biped") {
			continue
		}
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil || c.Skeleton == nil {
			continue
		}
		truth := indexOf(skeletonNames(c.Skeleton))
		if keyNames(truth, Humanoid) < motionKeyNames {
			continue
		}
		named++
		g, err := GuessHumanoidNames(c.Skeleton)
		if err != nil {
			t.Logf("%s: %v", f.Path, err)
			continue
		}
		guessed++
		at := indexOf(g)
		k, r := agreement(guessKeys, truth, at)
		keys, right = keys+k, right+r
		if truth["LeftUpLeg"] == at["RightUpLeg"] || truth["LeftArm"] == at["RightArm"] {
			swapped++
			t.Errorf("%s: sides swapped", f.Path)
		}
	}
	t.Logf("%d named bipeds: %d guessed, %d with sides swapped, %d of %d key joints where the names put them", named, guessed, swapped, right, keys)
	if named == 0 || guessed < named*95/100 || right < keys*9/10 {
		t.Errorf("guessed %d of %d, %d of %d key joints right: want 95%% and 90%%", guessed, named, right, keys)
	}
}

// quadGuessKeys are the joints TestGuessOnNamedQuadrupeds compares.
var quadGuessKeys = []string{"Hips", "Head", "LeftFrontUpLeg", "RightFrontUpLeg", "LeftHindUpLeg", "RightHindUpLeg",
	"LeftFrontLeg", "RightFrontLeg", "LeftHindLeg", "RightHindLeg"}

// TestGuessOnNamedQuadrupeds is TestGuessOnNamedBipeds for the quadrupeds whose
// names give 5 or more of the kind's key joints (docs/animation.md, "Unnamed
// skeletons"): it fails under 60% of the files guessed or under 60% of the
// joints.
func TestGuessOnNamedQuadrupeds(t *testing.T) {
	files := sharedFiles(t)
	named, guessed, keys, right := 0, 0, 0, 0
	for _, f := range files {
		if f.Category != "quadruped" {
			continue
		}
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil || c.Skeleton == nil {
			continue
		}
		truth := indexOf(skeletonNames(c.Skeleton))
		if keyNames(truth, Quadruped) < 5 {
			continue
		}
		named++
		g, err := GuessQuadrupedNames(c.Skeleton)
		if err != nil {
			t.Logf("%s: %v", f.Path, err)
			continue
		}
		guessed++
		k, r := agreement(quadGuessKeys, truth, indexOf(g))
		keys, right = keys+k, right+r
	}
	t.Logf("%d named quadrupeds: %d guessed, %d of %d key joints where the names put them", named, guessed, right, keys)
	if named == 0 || guessed < named*6/10 || right < keys*6/10 {
		t.Errorf("guessed %d of %d, %d of %d key joints right: want 60%% and 60%%", guessed, named, right, keys)
	}
}

// sharedFiles lists the files of ../shared/data, or skips the test without it.
func sharedFiles(t *testing.T) []dataset.File {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (CI lays shared/ beside the clone): %v", dir, err)
	}
	files, err := dataset.Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// agreement counts the keys the names give and those the guess puts at the
// same joint.
func agreement(keys []string, truth, guess map[string]int) (n, right int) {
	for _, k := range keys {
		j, ok := truth[k]
		if !ok {
			continue
		}
		n++
		if g, ok := guess[k]; ok && g == j {
			right++
		}
	}
	return n, right
}

// TestSchemesOnNamedBipeds renames the named bipeds of ../shared/data in each
// word scheme of TestDescriptiveSchemes (their rigkit-named joints by the
// scheme, the rest keeping the artist's names: accessories, twist and face
// bones) and reads them back: the share of limb, hips and head joints found
// where they are, and of rigs the clips play on (docs/naming.md, "Names in
// words"; -v prints the figures). It fails under 95% of either.
func TestSchemesOnNamedBipeds(t *testing.T) {
	files := sharedFiles(t)
	var sks []*character.Skeleton
	for _, f := range files {
		if !strings.HasPrefix(f.Category, "biped") {
			continue
		}
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err == nil && c.Skeleton != nil && keyNames(indexOf(skeletonNames(c.Skeleton)), Humanoid) >= motionKeyNames {
			sks = append(sks, c.Skeleton)
		}
	}
	for _, sc := range descriptiveSchemes {
		keys, right, played := 0, 0, 0
		for _, sk := range sks {
			renamedSk, want := renamedArtist(sk, sc.names, sc.sides)
			k, r := agreement(guessKeys, want, jointIndex(renamedSk))
			keys, right = keys+k, right+r
			if len(ClipPoses(renamedSk)) > 0 {
				played++
			}
		}
		t.Logf("%s: %d of %d key joints read back, clips play on %d of %d", sc.name, right, keys, played, len(sks))
		if len(sks) == 0 || right < keys*95/100 || played < len(sks)*95/100 {
			t.Errorf("%s: %d of %d key joints, clips on %d of %d: want 95%%", sc.name, right, keys, played, len(sks))
		}
	}
}

// renamedArtist names an artist's joints that rigkit reads (skeletonNames) by
// scheme, gives those the scheme has no word for bone_NN, and keeps the
// artist's names of the others; want maps each rigkit name the scheme gives to
// its joint.
func renamedArtist(sk *character.Skeleton, scheme map[string]string, sides [2]string) (*character.Skeleton, map[string]int) {
	out := sk.Clone()
	want := map[string]int{}
	canon := skeletonNames(sk)
	for j, c := range canon {
		if _, known := canonParent[Humanoid][c]; !known {
			continue
		}
		out.Names[j] = fmt.Sprintf("bone_%02d", j)
		side, base := 0, c
		if s, ok := strings.CutPrefix(c, "Right"); ok {
			side, base = 1, "Left"+s
		}
		if p, ok := scheme[base]; ok {
			out.Names[j] = strings.ReplaceAll(p, "{s}", sides[side])
			want[c] = j
		}
	}
	return out, want
}
