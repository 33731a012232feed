package animation

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestGuessHumanoidNames: a synthetic biped with its names replaced by joint_NN gets
// its limbs, hips, chest and head back by shape, also when one leg hangs off the
// other thigh (as rigkit's classical skeletons sometimes do).
func TestGuessHumanoidNames(t *testing.T) {
	key := []string{"Hips", "Spine2", "Neck", "Head", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg",
		"RightLeg", "RightFoot", "LeftArm", "LeftForeArm", "LeftHand", "RightArm", "RightForeArm", "RightHand"}
	for _, tc := range []struct {
		name       string
		seed       int64
		legOffLeg  bool
		wantFailed bool
	}{{"biped 1", 1, false, false}, {"biped 2", 2, false, false}, {"leg off the other thigh", 3, true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := generate(t, "biped", tc.seed)
			sk := c.Skeleton
			want := map[string]int{}
			for j, n := range sk.Names {
				want[CanonicalName(n)] = j
			}
			if tc.legOffLeg {
				sk.Parents[want["RightUpLeg"]] = want["LeftUpLeg"]
			}
			for j := range sk.Names {
				sk.Names[j] = fmt.Sprintf("joint_%02d", j)
			}
			names, err := GuessHumanoidNames(sk)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for j, n := range names {
				if n != "" {
					got[n] = j
				}
			}
			for _, k := range key {
				if got[k] != want[k] {
					t.Errorf("%s guessed at joint %d, is joint %d", k, got[k], want[k])
				}
			}
		})
	}
}

func TestGuessRejectsOtherShapes(t *testing.T) {
	for _, kind := range []string{"snake", "quadruped"} {
		c := generate(t, kind, 1)
		if names, err := GuessHumanoidNames(c.Skeleton); err == nil {
			t.Errorf("%s: guessed %v, want an error", kind, names)
		}
	}
	if _, kind, err := GuessNames(generate(t, "snake", 2).Skeleton, ""); err == nil {
		t.Errorf("a snake guessed as a %s", kind)
	}
}

// TestGuessQuadrupedNames: a synthetic quadruped with its names replaced by
// joint_NN gets its legs, hips, chest, neck and head back by shape, facing +Z or
// turned to face -X.
func TestGuessQuadrupedNames(t *testing.T) {
	key := []string{"Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "LeftFrontUpLeg", "LeftFrontLeg",
		"LeftFrontFoot", "RightFrontUpLeg", "RightFrontFoot", "LeftHindUpLeg", "LeftHindLeg", "LeftHindFoot",
		"RightHindUpLeg", "RightHindFoot"}
	for _, turn := range []bool{false, true} {
		for seed := int64(1); seed <= 3; seed++ {
			c := generate(t, "quadruped", seed)
			sk := c.Skeleton
			want := map[string]int{}
			for j, n := range sk.Names {
				want[CanonicalName(n)] = j
				sk.Names[j] = fmt.Sprintf("joint_%02d", j)
				if turn { // (x, y, z) → (-z, y, x): the head at -X
					p := sk.BindWorld[j].Translation()
					sk.BindWorld[j] = vecmath.Translate4(vecmath.Vec3{-p[2], p[1], p[0]})
				}
			}
			names, kind, err := GuessNames(sk, "")
			if err != nil || kind != Quadruped {
				t.Fatalf("seed %d turned %v: kind %q, %v", seed, turn, kind, err)
			}
			for _, k := range key {
				if j, ok := want[k]; ok && names[j] != k {
					t.Errorf("seed %d turned %v: joint %d is %s, guessed %q", seed, turn, j, k, names[j])
				}
			}
		}
	}
	if _, kind, err := GuessNames(generate(t, "biped", 1).Skeleton, ""); err != nil || kind != Humanoid {
		t.Errorf("biped guessed as %q (%v)", kind, err)
	}
}

// TestHeldOutQuadrupedWalks: the artist's rig of a held-out 0 A.D. fox (names of
// its own scheme) is recognised as a quadruped by shape, and the walk swings its
// four feet. Skips without ../shared/data.
func TestHeldOutQuadrupedWalks(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "0ad", "fox.glb")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real data not found at %s: %v", path, err)
	}
	c, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, kind, err := GuessNames(c.Skeleton, "")
	if err != nil || kind != Quadruped {
		t.Fatalf("kind %q, %v", kind, err)
	}
	named := c.Clone()
	for j, n := range names {
		if n != "" {
			named.Skeleton.Names[j] = n
		}
	}
	clip, _ := Lookup("walk", Quadruped)
	a, rep, err := Apply(named, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, foot := range []string{"LeftFrontFoot", "RightFrontFoot", "LeftHindFoot", "RightHindFoot"} {
		j := joint(t, named, foot)
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k < 12; k++ {
			p := positionsAt(named, a, clip.Duration*float64(k)/12)[j]
			z := p.Sub(named.Skeleton.Position(j)).Dot(vecmath.Vec3{0, 0, 1})
			lo, hi = math.Min(lo, z), math.Max(hi, z)
		}
		if hi-lo < 0.1*rep.HipHeight {
			t.Errorf("%s (%s) swings %.3f, want > %.3f", foot, c.Skeleton.Names[j], hi-lo, 0.1*rep.HipHeight)
		}
	}
}

// TestGuessWithoutToes guesses a biped whose legs end at the ankle, the shin
// slanting back from the knee (0 A.D.'s humans, Quaternius' people): sides come
// from glTF's forward, not from the shin read as a toe, which turned every
// limb to the other side.
func TestGuessWithoutToes(t *testing.T) {
	c := generate(t, "biped", 1)
	var keep []int
	for j, n := range c.Skeleton.Names {
		if !strings.Contains(CanonicalName(n), "Toe") && !strings.HasPrefix(n, "toe") {
			keep = append(keep, j)
		}
	}
	sk := c.Skeleton.Select(keep)
	want := map[string]int{}
	for j, n := range sk.Names {
		want[CanonicalName(n)] = j
	}
	for _, side := range []string{"Left", "Right"} {
		knee, foot := want[side+"Leg"], want[side+"Foot"]
		drop := sk.Position(knee)[1] - sk.Position(foot)[1]
		sk.BindWorld[foot][14] = sk.Position(knee)[2] - 0.15*drop
	}
	for j := range sk.Names {
		sk.Names[j] = fmt.Sprintf("joint_%02d", j)
	}
	names, err := GuessHumanoidNames(sk)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"LeftUpLeg", "LeftFoot", "LeftArm", "RightHand"} {
		if names[want[k]] != k {
			t.Errorf("%s guessed as %q", k, names[want[k]])
		}
	}
}

// guessedAt renames sk's joints joint_NN, guesses their humanoid names and
// checks that each rigkit name in want is guessed at its joint.
func guessedAt(t *testing.T, sk *character.Skeleton, want map[string]int) {
	t.Helper()
	guessedWith(t, GuessHumanoidNames, sk, want)
}

// guessedWith is guessedAt with the guess given (humanoid or quadruped).
func guessedWith(t *testing.T, guess func(*character.Skeleton) ([]string, error), sk *character.Skeleton, want map[string]int) {
	t.Helper()
	for j := range sk.Names {
		sk.Names[j] = fmt.Sprintf("joint_%02d", j)
	}
	names, err := guess(sk)
	if err != nil {
		t.Fatal(err)
	}
	for k, j := range want {
		if names[j] != k {
			t.Errorf("%s guessed as %q", k, names[j])
		}
	}
}

// canonIndex maps the rigkit names of sk's joints (CanonicalName) to them.
func canonIndex(sk *character.Skeleton) map[string]int {
	m := map[string]int{}
	for j, n := range sk.Names {
		m[CanonicalName(n)] = j
	}
	return m
}

// onFloorRoot returns sk under a new root at the floor below its hips (joint
// 0, the others one index up), with the named feet hung from it as
// inverse-kinematics targets.
func onFloorRoot(sk *character.Skeleton, idx map[string]int, feet ...string) *character.Skeleton {
	hips, lo := sk.Position(idx["Hips"]), math.Inf(1)
	for j := range sk.Names {
		lo = math.Min(lo, sk.Position(j)[1])
	}
	ik := &character.Skeleton{Names: append([]string{"floor"}, sk.Names...), Parents: []int{-1},
		BindWorld: append([]vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{hips[0], lo, hips[2]})}, sk.BindWorld...)}
	for _, p := range sk.Parents {
		ik.Parents = append(ik.Parents, p+1)
	}
	for _, f := range feet {
		ik.Parents[idx[f]+1] = 0
	}
	return ik
}

// TestGuessIKFeet guesses a biped whose feet are inverse-kinematics targets on a
// root at the floor (Quaternius' and many Blender rigs): the legs end at the
// shins, each foot is the target under its shin.
func TestGuessIKFeet(t *testing.T) {
	sk := generate(t, "biped", 1).Skeleton
	idx := canonIndex(sk)
	ik := onFloorRoot(sk, idx, "LeftFoot", "RightFoot")
	want := map[string]int{}
	for _, k := range []string{"LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot", "LeftHand", "RightArm"} {
		want[k] = idx[k] + 1
	}
	guessedAt(t, ik, want)
}

// withoutJoints returns sk without the joints in drop, each other joint hung
// from its nearest kept ancestor.
func withoutJoints(sk *character.Skeleton, drop map[int]bool) *character.Skeleton {
	at := map[int]int{}
	out := &character.Skeleton{}
	for j := range sk.Names {
		if drop[j] {
			continue
		}
		p := sk.Parents[j]
		for p >= 0 && drop[p] {
			p = sk.Parents[p]
		}
		if p >= 0 {
			p = at[p]
		}
		at[j] = len(out.Names)
		out.Names = append(out.Names, sk.Names[j])
		out.Parents = append(out.Parents, p)
		out.BindWorld = append(out.BindWorld, sk.BindWorld[j])
	}
	return out
}

// TestGuessArmsWithoutClavicle guesses arms that start at the upper arm, their
// fingers on the palm (OpenClonk) or hung from the forearm, all starting at the
// wrist (Quaternius' monsters): the hand is where the fingers branch.
func TestGuessArmsWithoutClavicle(t *testing.T) {
	for _, onForearm := range []bool{false, true} {
		t.Run(fmt.Sprintf("fingers on the forearm %v", onForearm), func(t *testing.T) {
			sk := generate(t, "biped", 1).Skeleton
			idx := canonIndex(sk)
			drop := map[int]bool{idx["LeftShoulder"]: true, idx["RightShoulder"]: true}
			if onForearm {
				for _, h := range []int{idx["LeftHand"], idx["RightHand"]} {
					drop[h] = true
					w := sk.Position(h)
					for j, p := range sk.Parents {
						if p == h {
							sk.BindWorld[j][12], sk.BindWorld[j][13], sk.BindWorld[j][14] = w[0], w[1], w[2]
						}
					}
				}
			}
			out := withoutJoints(sk, drop)
			at := canonIndex(out)
			want := map[string]int{"LeftArm": at["LeftArm"], "LeftForeArm": at["LeftForeArm"], "RightArm": at["RightArm"],
				"RightForeArm": at["RightForeArm"]}
			if !onForearm {
				want["LeftHand"] = at["LeftHand"]
			}
			guessedAt(t, out, want)
		})
	}
}

// TestGuessQuadrupedIKFeet guesses a quadruped whose four feet are
// inverse-kinematics targets on a root at the floor (fable-game's and
// Quaternius' animals): each leg ends at its shin, named from the bottom, and
// the target under it is the foot.
func TestGuessQuadrupedIKFeet(t *testing.T) {
	sk := generate(t, "quadruped", 1).Skeleton
	idx := canonIndex(sk)
	ik := onFloorRoot(sk, idx, "LeftFrontFoot", "RightFrontFoot", "LeftHindFoot", "RightHindFoot")
	want := map[string]int{}
	for _, leg := range []string{"LeftFront", "RightFront", "LeftHind", "RightHind"} {
		for _, part := range []string{"UpLeg", "Leg", "Foot"} {
			want[leg+part] = idx[leg+part] + 1
		}
	}
	guessedWith(t, GuessQuadrupedNames, ik, want)
}
