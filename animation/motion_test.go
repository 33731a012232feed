package animation

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestMotion: a named biped plays every humanoid clip of MotionClips, a named
// quadruped its walk; the same biped with its names erased, and a snake, get no
// frames.
func TestMotion(t *testing.T) {
	biped := generate(t, "biped", 1).Skeleton
	unnamed := biped.Clone()
	for j := range unnamed.Names {
		unnamed.Names[j] = fmt.Sprintf("joint_%02d", j)
	}
	for _, tc := range []struct {
		name   string
		sk     *character.Skeleton
		played []string
	}{
		{"named biped", biped, MotionClips},
		{"unnamed biped", unnamed, nil},
		{"quadruped", generate(t, "quadruped", 1).Skeleton, []string{"walk"}},
		{"snake", generate(t, "snake", 2).Skeleton, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frames, played := Motion(tc.sk, 3)
			if !reflect.DeepEqual(played, tc.played) {
				t.Fatalf("played %v, want %v", played, tc.played)
			}
			if len(frames) != 3*len(tc.played) {
				t.Fatalf("%d frames for %d clips of 3", len(frames), len(tc.played))
			}
			for k, f := range frames {
				if len(f) != tc.sk.NumJoints() {
					t.Fatalf("frame %d has %d matrices for %d joints", k, len(f), tc.sk.NumJoints())
				}
				if moved(f) == 0 {
					t.Errorf("frame %d moves no joint", k)
				}
			}
		})
	}
}

// moved counts the joints whose skinning matrix is not the identity.
func moved(f []vecmath.Mat4) int {
	n := 0
	for _, m := range f {
		if maxDiff(m, vecmath.Identity4()) > 1e-6 {
			n++
		}
	}
	return n
}

// maxDiff is the largest difference between two matrices, entry by entry.
func maxDiff(a, b vecmath.Mat4) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestSchemeAgrees: names that hang from one another as the scheme says agree
// (joints the rig lacks skipped, feet on the root, one leg off the other
// thigh); Mixamo names handed out in joint order to a star or a chain do not.
func TestSchemeAgrees(t *testing.T) {
	biped := generate(t, "biped", 1).Skeleton
	idx := jointIndex(biped)
	borrowed := func(parents []int) *character.Skeleton {
		order := []string{"Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "LeftShoulder", "LeftArm",
			"LeftForeArm", "LeftHand", "RightShoulder", "RightArm", "RightForeArm", "RightHand",
			"LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot"}
		sk := &character.Skeleton{Names: order, Parents: parents, BindWorld: make([]vecmath.Mat4, len(order))}
		for j := range sk.BindWorld {
			sk.BindWorld[j] = vecmath.Translate4(vecmath.Vec3{0, float64(j), 0})
		}
		return sk
	}
	star, chain := make([]int, 20), make([]int, 20)
	for j := range star {
		star[j], chain[j] = min(j-1, 0), j-1
	}
	footOnRoot := biped.Clone()
	footOnRoot.Parents[idx["LeftFoot"]], footOnRoot.Parents[idx["RightFoot"]] = -1, -1
	legOffLeg := biped.Clone()
	legOffLeg.Parents[idx["RightUpLeg"]] = idx["LeftUpLeg"]
	bothLegs := legOffLeg.Clone()
	bothLegs.Parents[idx["LeftArm"]] = idx["RightArm"]
	for _, tc := range []struct {
		name string
		sk   *character.Skeleton
		want bool
	}{
		{"named biped", biped, true},
		{"feet on the root", footOnRoot, true},
		{"one leg off the other thigh", legOffLeg, true},
		{"two limbs hung elsewhere", bothLegs, false},
		{"borrowed names on a star", borrowed(star), false},
		{"borrowed names on a chain", borrowed(chain), false},
	} {
		if got := schemeAgrees(tc.sk, Humanoid); got != tc.want {
			t.Errorf("%s: schemeAgrees %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMotionHostileSkeletons: skeletons no rig should have (every joint on one
// point, a body 1e-9 or 1e9 tall, a non-finite joint, bind matrices that do not
// invert) get frames that are all finite, or none, and never a panic.
func TestMotionHostileSkeletons(t *testing.T) {
	biped := generate(t, "biped", 2).Skeleton
	scaled := func(s float64) *character.Skeleton {
		sk := biped.Clone()
		for j, m := range sk.BindWorld {
			sk.BindWorld[j] = vecmath.Scale4(s).Mul(m)
		}
		return sk
	}
	onePoint := biped.Clone()
	for j := range onePoint.BindWorld {
		onePoint.BindWorld[j] = vecmath.Identity4()
	}
	nan := biped.Clone()
	nan.BindWorld[3][13] = math.NaN()
	flat := biped.Clone()
	flat.BindWorld[0] = vecmath.Mat4{}
	for _, tc := range []struct {
		name string
		sk   *character.Skeleton
	}{
		{"every joint on one point", onePoint},
		{"1e-9 tall", scaled(1e-9)},
		{"1e9 tall", scaled(1e9)},
		{"a NaN joint", nan},
		{"a bind matrix of zeros", flat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frames, _ := Motion(tc.sk, 3)
			for k, f := range frames {
				for j, m := range f {
					if !m.IsFinite() {
						t.Fatalf("frame %d joint %d is not finite: %v", k, j, m)
					}
				}
			}
		})
	}
}
