package animation

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
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
// skeletons"): it fails under 70% of the files guessed or under 60% of the
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
	if named == 0 || guessed < named*7/10 || right < keys*6/10 {
		t.Errorf("guessed %d of %d, %d of %d key joints right: want 70%% and 60%%", guessed, named, right, keys)
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
