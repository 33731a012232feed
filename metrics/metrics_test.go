package metrics

import (
	"fmt"
	"math"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

type inf = character.Influence

// tiny is a 3-vertex, 2-joint character: a bone from (0,0,0) to (1,0,0).
func tiny(weights [][]inf) *character.Character {
	return &character.Character{
		Mesh: character.Mesh{
			Positions: []vecmath.Vec3{{0, 0.1, 0}, {0.5, 0.1, 0}, {1, 0.1, 0}},
			Triangles: [][3]int{{0, 1, 2}},
		},
		Skeleton: &character.Skeleton{
			Names:     []string{"root", "child"},
			Parents:   []int{-1, 0},
			BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Translate4(vecmath.Vec3{0.5, 0, 0})},
		},
		Skin: &character.Skin{Weights: weights},
	}
}

func all(w []inf) [][]inf { return [][]inf{w, w, w} }

func TestSkinMetrics(t *testing.T) {
	gt := tiny(all([]inf{{Joint: 0, Weight: 1}}))
	tests := []struct {
		name      string
		pred      [][]inf
		l1, p, r  float64
		orphans   int
		empty     int
		zeroDefor bool
	}{
		{"identical", all([]inf{{Joint: 0, Weight: 1}}), 0, 1, 1, 0, 0, true},
		{"unnormalized identical", all([]inf{{Joint: 0, Weight: 3}}), 0, 1, 1, 0, 0, true},
		{"disjoint", all([]inf{{Joint: 1, Weight: 1}}), 2, 0, 0, 0, 1, false},
		{"half", all([]inf{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}), 1, 0.5, 1, 0, 0, false},
		{"below threshold counts for L1 only", all([]inf{{Joint: 0, Weight: 1}, {Joint: 1, Weight: 1e-6}}), 2e-6, 1, 1, 0, 0, false},
		{"one orphan", [][]inf{{{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}, nil}, 1.0 / 3, 2.0 / 3, 2.0 / 3, 1, 0, false},
		{"negative and NaN dropped", all([]inf{{Joint: 0, Weight: 1}, {Joint: 1, Weight: -1}, {Joint: 1, Weight: math.NaN()}}), 0, 1, 1, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := SkinMetrics(gt, &character.Skin{Weights: tc.pred}, 1)
			if err != nil {
				t.Fatal(err)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !near(r.L1, tc.l1) || !near(r.Precision, tc.p) || !near(r.Recall, tc.r) {
				t.Errorf("L1 %.6g P %.6g R %.6g, want %.6g %.6g %.6g", r.L1, r.Precision, r.Recall, tc.l1, tc.p, tc.r)
			}
			if r.Orphans != tc.orphans || len(r.EmptyBones) != tc.empty {
				t.Errorf("orphans %d empty %v, want %d and %d empty", r.Orphans, r.EmptyBones, tc.orphans, tc.empty)
			}
			if tc.zeroDefor != (r.DeformMean < 1e-9) || r.DeformMax < r.DeformMean {
				t.Errorf("deformation mean %g max %g", r.DeformMean, r.DeformMax)
			}
		})
	}
}

func TestEmptyBones(t *testing.T) {
	gt := tiny([][]inf{{{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}, {{Joint: 1, Weight: 1}}})
	r, err := SkinMetrics(gt, &character.Skin{Weights: all([]inf{{Joint: 0, Weight: 1}})}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.EmptyBones) != 1 || r.EmptyBones[0] != "child" {
		t.Errorf("empty bones %v, want [child]", r.EmptyBones)
	}
	// L1 by hand: 0 + (0.5+0.5) + (1+1) over 3 vertices.
	if math.Abs(r.L1-1) > 1e-12 {
		t.Errorf("L1 %g, want 1", r.L1)
	}
}

func TestDeformationByHand(t *testing.T) {
	// With every vertex on the child joint in prediction and on the root in ground
	// truth, the error is the displacement the child's own rotation causes, which is
	// zero only for a vertex at the child joint. So a nonzero, seed-stable figure.
	gt := tiny(all([]inf{{Joint: 0, Weight: 1}}))
	pred := &character.Skin{Weights: all([]inf{{Joint: 1, Weight: 1}})}
	a, _ := SkinMetrics(gt, pred, 7)
	b, _ := SkinMetrics(gt, pred, 7)
	c, _ := SkinMetrics(gt, pred, 8)
	if a.DeformMean <= 0 || a.DeformMean != b.DeformMean || a.DeformMean == c.DeformMean {
		t.Errorf("seed 7: %v %v, seed 8: %v", a.DeformMean, b.DeformMean, c.DeformMean)
	}
}

func TestSkinMetricsErrors(t *testing.T) {
	gt := tiny(all([]inf{{Joint: 0, Weight: 1}}))
	if _, err := SkinMetrics(gt, &character.Skin{Weights: [][]inf{{{Joint: 0, Weight: 1}}}}, 1); err == nil {
		t.Error("want an error for a vertex count mismatch")
	}
	if _, err := SkinMetrics(&character.Character{}, &character.Skin{}, 1); err == nil {
		t.Error("want an error for an unrigged ground truth")
	}
}

func TestMatchSkin(t *testing.T) {
	gt := tiny([][]inf{{{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}, {{Joint: 1, Weight: 1}}})
	// The prediction lists vertices and joints in another order.
	pred := &character.Character{
		Mesh: character.Mesh{Positions: []vecmath.Vec3{{1, 0.1, 0}, {0, 0.1, 0}, {0.5, 0.1 + 1e-6, 0}}},
		Skeleton: &character.Skeleton{
			Names: []string{"child", "root"}, Parents: []int{-1, -1},
			BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Identity4()},
		},
		Skin: &character.Skin{Weights: [][]inf{{{Joint: 0, Weight: 1}}, {{Joint: 1, Weight: 1}}, {{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}}},
	}
	r, err := CompareSkin(gt, pred, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.L1 != 0 || r.Precision != 1 || r.Recall != 1 {
		t.Errorf("reordered identical prediction scored %+v", r)
	}
	pred.Mesh.Positions[2][0] += 0.01 // 0.02 normalized: beyond the tolerance
	if _, err := CompareSkin(gt, pred, 1); err == nil {
		t.Error("want an error for a vertex without counterpart")
	}
}

func TestSkeletonMetrics(t *testing.T) {
	s := &character.Skeleton{Names: []string{"a", "b"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Translate4(vecmath.Vec3{1, 0, 0})}}
	norm := character.Normalization{Scale: 2}
	if r := SkeletonMetrics(s, s, norm); r.CDJ2J != 0 || r.CDJ2B != 0 || r.CDB2B != 0 || r.GTJoints != 2 {
		t.Errorf("identical: %+v", r)
	}
	// Shift the prediction by 0.1 along y: every distance is 0.1·2 = 0.2 normalized.
	moved := s.Clone()
	for j := range moved.BindWorld {
		moved.BindWorld[j] = vecmath.Translate4(moved.Position(j).Add(vecmath.Vec3{0, 0.1, 0}))
	}
	r := SkeletonMetrics(s, moved, norm)
	for name, got := range map[string]float64{"J2J": r.CDJ2J, "J2B": r.CDJ2B, "B2B": r.CDB2B} {
		if math.Abs(got-0.2) > 1e-9 {
			t.Errorf("%s = %g, want 0.2", name, got)
		}
	}
	// One extra joint at (3,0,0) (normalized (6,0,0)) on a bone from b: J2J by hand.
	ext := s.Clone()
	ext.Names = append(ext.Names, "c")
	ext.Parents = append(ext.Parents, 1)
	ext.BindWorld = append(ext.BindWorld, vecmath.Translate4(vecmath.Vec3{3, 0, 0}))
	r = SkeletonMetrics(s, ext, norm)
	// gt→pred: 0, 0; pred→gt: 0, 0, 4 (from 6 to 2) → (0 + 4/3)/2.
	if want := (4.0 / 3) / 2; math.Abs(r.CDJ2J-want) > 1e-9 || r.PredJoints != 3 {
		t.Errorf("J2J %g, want %g", r.CDJ2J, want)
	}
}

func ExampleSkinMetrics() {
	gt := tiny(all([]inf{{Joint: 0, Weight: 1}}))
	pred := &character.Skin{Weights: all([]inf{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}})}
	r, _ := SkinMetrics(gt, pred, 1)
	fmt.Printf("L1 %.2f precision %.2f recall %.2f orphans %d\n", r.L1, r.Precision, r.Recall, r.Orphans)
	// Output: L1 1.00 precision 0.50 recall 1.00 orphans 0
}
