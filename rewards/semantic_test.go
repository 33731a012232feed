package rewards

import (
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestSemanticRewards: on the capsule man, the true rig keeps symmetry and limbs
// near 1, and each skeleton defect costs the term meant for it.
func TestSemanticRewards(t *testing.T) {
	base := capsuleMan(1, false).character(32)
	move := func(name string, f func(p vecmath.Vec3) vecmath.Vec3) func(sk *character.Skeleton) *character.Skeleton {
		return func(sk *character.Skeleton) *character.Skeleton {
			out := sk.Clone()
			for j, n := range out.Names {
				if strings.Contains(n, name) {
					p := f(out.Position(j))
					out.BindWorld[j][12], out.BindWorld[j][13], out.BindWorld[j][14] = p[0], p[1], p[2]
				}
			}
			return out
		}
	}
	dropRightArm := func(sk *character.Skeleton) *character.Skeleton {
		var keep []int
		for j, n := range sk.Names {
			if !strings.HasPrefix(n, "r_") || strings.Contains(n, "hip") || strings.Contains(n, "knee") || strings.Contains(n, "ankle") {
				keep = append(keep, j)
			}
		}
		return sk.Select(keep)
	}
	onPlane := func(p vecmath.Vec3) vecmath.Vec3 { p[0] = 0; return p }
	tests := []struct {
		name         string
		edit         func(sk *character.Skeleton) *character.Skeleton
		wantSymmetry func(float64) bool
		wantLimbs    func(float64) bool
	}{
		{"true rig", func(sk *character.Skeleton) *character.Skeleton { return sk },
			func(v float64) bool { return v > 0.95 }, func(v float64) bool { return v > 0.95 }},
		{"legs merged on the plane", func(sk *character.Skeleton) *character.Skeleton {
			return move("knee", onPlane)(move("ankle", onPlane)(move("_hip", onPlane)(sk)))
		}, func(v float64) bool { return v > 0.9 }, func(v float64) bool { return v < 0.7 }},
		{"right arm dropped", dropRightArm,
			func(v float64) bool { return v < 0.8 }, func(v float64) bool { return v < 0.75 }},
		{"left elbow off its mirror", move("l_elbow", func(p vecmath.Vec3) vecmath.Vec3 { p[1] += 0.15; return p }),
			func(v float64) bool { return v < 0.95 }, func(v float64) bool { return v > 0.9 }},
	}
	p, err := Prepare(&base.Mesh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.shape.tips) < 4 || p.shape.symErr[0] > symPlaneTol {
		t.Fatalf("capsule man: %d tips, mirror error %.3f across x; want ≥4 tips (hands, feet) and a symmetric mesh", len(p.shape.tips), p.shape.symErr[0])
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base.Clone()
			c.Skeleton = tc.edit(base.Skeleton)
			c.Skin = smoothWeights(c.Mesh.Positions, c.Skeleton)
			rep, err := p.Score(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s, l := rep.Rewards[Symmetry], rep.Rewards[Limbs]; !tc.wantSymmetry(s) || !tc.wantLimbs(l) {
				t.Errorf("symmetry %.3f, limbs %.3f (problems %q)", s, l, rep.Problems)
			}
		})
	}
}

// TestMergedTipsPointApart: two tips served by one chain count as merged legs
// only when they lie on either side of it, not when both reach on beyond the
// joint they share (a thumb and a hand, two horns).
func TestMergedTipsPointApart(t *testing.T) {
	tests := []struct {
		name string
		u, v vecmath.Vec3
		want bool
	}{
		{"feet either side of a merged ankle", vecmath.Vec3{0.15, -0.02, 0}, vecmath.Vec3{-0.15, -0.02, 0}, true},
		{"feet below a merged chain ending at the shins", vecmath.Vec3{0.15, -0.3, 0}, vecmath.Vec3{-0.15, -0.3, 0}, true},
		{"a hand and its thumb beyond the wrist", vecmath.Vec3{-0.22, 0.01, 0.11}, vecmath.Vec3{-0.08, -0.01, -0.01}, false},
		{"two horns above the head", vecmath.Vec3{0.1, 0.3, 0}, vecmath.Vec3{-0.1, 0.3, 0}, false},
		{"a tip on the chain", vecmath.Vec3{}, vecmath.Vec3{0.1, 0, 0}, true},
	}
	for _, tc := range tests {
		if got := apart(tc.u, tc.v); got != tc.want {
			t.Errorf("%s: apart = %v, want %v", tc.name, got, tc.want)
		}
	}
}
