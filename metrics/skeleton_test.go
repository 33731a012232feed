package metrics

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestJointChamfer: JointChamfer is SkeletonMetrics' CD-J2J, and +Inf against
// an empty skeleton.
func TestJointChamfer(t *testing.T) {
	gt := &character.Skeleton{Names: []string{"a", "b", "c"}, Parents: []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0, 0, 0}), vecmath.Translate4(vecmath.Vec3{0, 1, 0}), vecmath.Translate4(vecmath.Vec3{0, 2, 0})}}
	pred := &character.Skeleton{Names: []string{"x", "y"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0.1, 0, 0}), vecmath.Translate4(vecmath.Vec3{0, 1.5, 0.2})}}
	norm := character.Normalization{Scale: 0.5}
	if got, want := JointChamfer(gt, pred, norm), SkeletonMetrics(gt, pred, norm).CDJ2J; got != want || !(got > 0) {
		t.Errorf("JointChamfer %v, SkeletonMetrics' CD-J2J %v", got, want)
	}
	if got := JointChamfer(gt, &character.Skeleton{}, norm); !math.IsInf(got, 1) {
		t.Errorf("against no joints: %v, want +Inf", got)
	}
}
