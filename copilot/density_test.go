package copilot

import (
	"slices"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

func TestPartOf(t *testing.T) {
	tests := []struct {
		name string
		want part
	}{
		{"Hips", partBody}, {"LeftForeArm", partBody}, {"LeftHandIndex2", partFinger},
		{"RightHandThumb1", partFinger}, {"LeftToeBase", partToe}, {"LeftToe_End", partEnd},
		{"HeadTop_End", partEnd}, {"limb_2_end", partEnd}, {"LeftArmTwist", partTwist},
	}
	for _, tt := range tests {
		if got := partOf(tt.name); got != tt.want {
			t.Errorf("partOf(%s) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// arm is a template arm with a finger, a toe chain and an end joint.
func arm() *character.Skeleton {
	sk := &character.Skeleton{}
	for i, j := range []struct {
		name   string
		parent int
	}{
		{"Hips", -1}, {"LeftArm", 0}, {"LeftForeArm", 1}, {"LeftHand", 2}, {"LeftHandIndex1", 3},
		{"LeftHandIndex2", 4}, {"LeftFoot", 0}, {"LeftToeBase", 6}, {"LeftToe_End", 7}, {"HeadTop_End", 0},
	} {
		sk.Names, sk.Parents = append(sk.Names, j.name), append(sk.Parents, j.parent)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{float64(i), float64(i * i), 0}))
	}
	return sk
}

func TestForDetail(t *testing.T) {
	tests := []struct {
		d    Detail
		want string
	}{
		{DetailLow, "Hips LeftArm LeftForeArm LeftHand LeftFoot"},
		{DetailMedium, "Hips LeftArm LeftForeArm LeftHand LeftFoot LeftToeBase LeftToe_End HeadTop_End"},
		{DetailHigh, "Hips LeftArm LeftForeArm LeftHand LeftHandIndex1 LeftHandIndex2 LeftFoot LeftToeBase LeftToe_End HeadTop_End LeftArmTwist LeftForeArmTwist"},
	}
	for _, tt := range tests {
		sk := forDetail(arm(), tt.d)
		if got := strings.Join(sk.Names, " "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.d, got, tt.want)
		}
		if err := sk.Validate(); err != nil {
			t.Errorf("%s: %v", tt.d, err)
		}
	}
}

func TestPruneKeepsGivenAndBound(t *testing.T) {
	sk := arm()
	for bound := 10; bound >= 0; bound-- {
		keep := prune(sk, 3, bound)
		if want := max(bound, 3); len(keep) != want {
			t.Fatalf("max %d: kept %d joints, want %d", bound, len(keep), want)
		}
		if !slices.Equal(keep[:3], []int{0, 1, 2}) {
			t.Fatalf("max %d: given joints not kept: %v", bound, keep)
		}
		if err := sk.Select(keep).Validate(); err != nil {
			t.Fatalf("max %d: %v", bound, err)
		}
		for _, j := range keep {
			if p := sk.Parents[j]; p >= 0 && !slices.Contains(keep, p) {
				t.Fatalf("max %d: joint %s kept without its parent", bound, sk.Names[j])
			}
		}
	}
}

func TestParseDetail(t *testing.T) {
	for _, d := range Details {
		if got, err := ParseDetail(d.String()); err != nil || got != d {
			t.Errorf("ParseDetail(%s) = %v, %v", d, got, err)
		}
	}
	if _, err := ParseDetail("ultra"); err == nil {
		t.Error("ParseDetail(ultra) did not fail")
	}
}

func TestWithTwistsWithoutLimbs(t *testing.T) {
	sk := &character.Skeleton{Names: []string{"spine_01", "spine_02", "spine_03"}, Parents: []int{-1, 0, 1}}
	for i := range sk.Names {
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{float64(i), 0, 0}))
	}
	out := withTwists(sk)
	if got := strings.Join(out.Names, " "); got != "spine_01 spine_02 spine_03 spine_01Twist spine_02Twist" {
		t.Fatalf("names %q", got)
	}
	if p := out.Position(3); p != (vecmath.Vec3{0.5, 0, 0}) {
		t.Fatalf("twist at %v, want the bone's middle", p)
	}
}
