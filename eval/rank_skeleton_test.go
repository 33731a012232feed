package eval

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/fixtures"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

func TestPerturbSkeleton(t *testing.T) {
	gt, err := synth.Generate("biped", 1, synth.Options{TargetVertices: 600})
	if err != nil {
		t.Fatal(err)
	}
	sk := gt.Skeleton
	n := sk.NumJoints()
	const height = 2.0
	tests := []struct {
		kind   string
		joints func(int) bool // the perturbed joint count
		moved  float64        // every kept joint moves exactly this far (jitter), or -1
	}{
		{"jitter2", func(k int) bool { return k == n }, 0.04},
		{"jitter5", func(k int) bool { return k == n }, 0.10},
		{"jitter10", func(k int) bool { return k == n }, 0.20},
		{"drop_limb", func(k int) bool { return k < n-1 && k > n/2 }, -1},
		{"merge_legs", func(k int) bool { return k < n-1 }, -1},
		{"extra_joints", func(k int) bool { return k > n }, -1},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			out, err := perturbSkeleton(sk, tc.kind, height, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Validate(); err != nil {
				t.Fatalf("invalid skeleton: %v", err)
			}
			if !tc.joints(out.NumJoints()) {
				t.Errorf("%d joints from %d", out.NumJoints(), n)
			}
			if tc.moved >= 0 {
				for j := 0; j < n; j++ {
					if d := out.Position(j).Dist(sk.Position(j)); math.Abs(d-tc.moved) > 1e-9 {
						t.Fatalf("joint %d moved %.4f, want %.4f", j, d, tc.moved)
					}
				}
			}
		})
	}
	if _, err := perturbSkeleton(sk, "bogus", height, 1); err == nil {
		t.Error("unknown perturbation accepted")
	}
	single := &character.Skeleton{Names: []string{"root"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{})}}
	for _, kind := range []string{"drop_limb", "merge_legs"} {
		if _, err := perturbSkeleton(single, kind, height, 1); err == nil {
			t.Errorf("%s on one joint: no error", kind)
		}
	}
}

func TestSummarizeSkeletonRank(t *testing.T) {
	chars := []RankCharacter{
		{Candidates: []RankCandidate{{Method: skeletonTruth, Score: 0.8}, {Method: "classical", Score: 0.7}, {Method: "classical-anatomy", Score: 0.55}, {Method: "merge_legs", Score: 0.5}}},
		{Candidates: []RankCandidate{{Method: skeletonTruth, Score: 0.6}, {Method: "classical", Score: 0.7}, {Method: "merge_legs", Score: 0.6}, {Method: "drop_limb", Score: 0.5}}},
		{Candidates: []RankCandidate{{Method: skeletonTruth, Score: 0.6}, {Method: "classical", Error: "failed"}}},
	}
	s := summarizeSkeletonRank(chars, "geodesic")
	if s.ArtistAtLeastClassical != 1 || s.Compared != 2 {
		t.Errorf("artist ≥ classical on %d of %d, want 1 of 2", s.ArtistAtLeastClassical, s.Compared)
	}
	// A tie is not above: the broken rig must lose.
	if s.ArtistAbove["merge_legs"] != 1 || s.Broken["merge_legs"] != 2 || s.ArtistAbove["drop_limb"] != 1 || s.Broken["drop_limb"] != 1 {
		t.Errorf("artist above broken rigs %v of %v, want merge_legs 1 of 2, drop_limb 1 of 1", s.ArtistAbove, s.Broken)
	}
	if s.TemplateAbove["merge_legs"] != 1 || s.TemplateBroken["merge_legs"] != 1 || s.TemplateBroken["drop_limb"] != 0 {
		t.Errorf("template above broken rigs %v of %v, want merge_legs 1 of 1", s.TemplateAbove, s.TemplateBroken)
	}
}

// TestDeformingSkeleton: joints that carry no weight and lead to none (a pole
// target) leave the artist's skeleton; a weightless joint above weighted ones (an
// armature root) stays.
func TestDeformingSkeleton(t *testing.T) {
	at := func(x float64) vecmath.Mat4 { return vecmath.Translate4(vecmath.Vec3{x, 0, 0}) }
	sk := &character.Skeleton{
		Names:     []string{"root", "hips", "leg", "pole"},
		Parents:   []int{-1, 0, 1, 0},
		BindWorld: []vecmath.Mat4{at(0), at(1), at(2), at(3)},
	}
	tests := []struct {
		name    string
		weights [][]character.Influence
		want    []string
	}{
		{"pole dropped", [][]character.Influence{{{Joint: 1, Weight: 0.5}, {Joint: 2, Weight: 0.5}}}, []string{"root", "hips", "leg"}},
		{"ancestor kept", [][]character.Influence{{{Joint: 2, Weight: 1}}}, []string{"root", "hips", "leg"}},
		{"all weighted", [][]character.Influence{{{Joint: 0, Weight: 0.25}, {Joint: 1, Weight: 0.25}, {Joint: 2, Weight: 0.25}, {Joint: 3, Weight: 0.25}}}, []string{"root", "hips", "leg", "pole"}},
		{"no weight at all", [][]character.Influence{{}}, []string{"root", "hips", "leg", "pole"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &character.Character{Skeleton: sk, Skin: &character.Skin{Weights: tc.weights}}
			got := deformingSkeleton(c)
			if fmt.Sprint(got.Names) != fmt.Sprint(tc.want) {
				t.Errorf("joints %v, want %v", got.Names, tc.want)
			}
			if err := got.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestIdleSkin: a root on the floor between the feet that the artist gave no
// weight stays without weight in the ranking's skin of the artist's skeleton;
// the vertices the method gave it go to the other joints, none is left without
// weights, and a skeleton without idle joints keeps the method's skin.
func TestIdleSkin(t *testing.T) {
	c, err := fixtures.FloorRootBiped()
	if err != nil {
		t.Fatal(err)
	}
	sk := c.Skeleton
	idle := skinning.IdleJoints(c)
	children := sk.Children()
	for j, name := range sk.Names {
		if j > 0 && len(children[j]) > 0 && idle[name] {
			t.Fatalf("idle joints %v, want the floor root and end joints only", idle)
		}
	}
	if !idle["FloorRoot"] {
		t.Fatalf("idle joints %v, want the floor root", idle)
	}
	rigid := func(c *character.Character) (*character.Skin, error) {
		return character.RigidSkin(c.Mesh.Positions, c.Skeleton), nil
	}
	mass := func(k *character.Skin) (root float64, orphans int) {
		for _, infl := range k.Weights {
			sum := 0.0
			for _, in := range infl {
				sum += in.Weight
				if in.Joint == 0 {
					root += in.Weight
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				orphans++
			}
		}
		return root, orphans
	}
	before, _ := rigid(c)
	if root, _ := mass(before); root == 0 {
		t.Fatal("the nearest-bone skin gives the floor root nothing: the test cannot fail")
	}
	after, err := idleSkin(rigid, idle)(c)
	if err != nil {
		t.Fatal(err)
	}
	if root, orphans := mass(after); root != 0 || orphans != 0 {
		t.Errorf("floor root keeps %.1f of weight, %d vertices without weights", root, orphans)
	}
	if same, _ := idleSkin(rigid, nil)(c); fmt.Sprint(same.Weights[:50]) != fmt.Sprint(before.Weights[:50]) {
		t.Error("no idle joints, yet the skin changed")
	}
}

// TestSkinTaskKeepsIdle: the skin task with KeepIdle scores a method's skin with
// the artist's floor root left without weight (idleSkin): a nearest-bone skin
// that gives the root the inner thighs comes closer to the artist's weights.
func TestSkinTaskKeepsIdle(t *testing.T) {
	c, err := fixtures.FloorRootBiped()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "floor_root.glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	rigid := func(c *character.Character) (*character.Skin, error) {
		return character.RigidSkin(c.Mesh.Positions, c.Skeleton), nil
	}
	l1 := map[bool]float64{}
	for _, keep := range []bool{false, true} {
		rep := ScoreSkins([]File{{Path: path, Category: "biped"}}, SkinOptions{Methods: []string{"rigid"},
			Skins: map[string]SkinMethod{"rigid": rigid}, KeepIdle: keep, Seed: 1, Workers: 1, Progress: io.Discard})
		if rep.KeepIdle != keep || len(rep.Results) != 1 || rep.Results[0].Metrics == nil {
			t.Fatalf("keep %v: report %+v", keep, rep)
		}
		l1[keep] = rep.Results[0].Metrics.L1
	}
	if !(l1[true] < l1[false]) { // the artist gives the root nothing
		t.Errorf("L1 to the artist's weights %.4f with the floor root kept idle, %.4f without", l1[true], l1[false])
	}
}
