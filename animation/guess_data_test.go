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
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (CI lays shared/ beside the clone): %v", dir, err)
	}
	files, err := dataset.Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
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
		k, r := guessAgreement(truth, at)
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

// guessAgreement counts the guessKeys the names give and those the guess puts
// at the same joint.
func guessAgreement(truth, guess map[string]int) (keys, right int) {
	for _, k := range guessKeys {
		j, ok := truth[k]
		if !ok {
			continue
		}
		keys++
		if g, ok := guess[k]; ok && g == j {
			right++
		}
	}
	return keys, right
}
