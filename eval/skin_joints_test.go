package eval

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

func TestRegionJoints(t *testing.T) {
	skel := func(names []string, parents []int) *character.Skeleton {
		sk := &character.Skeleton{Names: names, Parents: parents}
		for range names {
			sk.BindWorld = append(sk.BindWorld, vecmath.Identity4())
		}
		return sk
	}
	tests := []struct {
		name string
		sk   *character.Skeleton
		want string
	}{
		{"named limbs and neck", skel(
			[]string{"Hips", "Spine", "Neck", "Head", "LeftArm", "LeftForeArm", "LeftHand", "LeftUpLeg", "LeftLeg", "LeftFoot"},
			[]int{-1, 0, 1, 2, 1, 4, 5, 0, 7, 8}), "[2 4 5 6 7 8 9]"},
		{"unnamed: branches and chain seconds", skel(
			[]string{"a", "b", "c", "d", "e", "f", "g"},
			[]int{-1, 0, 1, 1, 3, 2, 5}), "[1 4 5]"},
		{"one chain", skel([]string{"a", "b", "c"}, []int{-1, 0, 1}), "[1]"},
		{"one joint", skel([]string{"a"}, []int{-1}), "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(regionJoints(tc.sk)); got != tc.want {
				t.Errorf("regions at %s, want %s", got, tc.want)
			}
		})
	}
}

// TestJointProbe scores weights near the joints of synthetic creatures: the
// artist's own weights score 0 with no broken region; nearest-bone weights deform
// the regions; weights scattered over random bones deform them far more and tear
// some.
func TestJointProbe(t *testing.T) {
	for _, kind := range []string{"biped", "quadruped", "snake"} {
		t.Run(kind, func(t *testing.T) {
			gt, err := synth.Generate(kind, 3, synth.Options{TargetVertices: 1500})
			if err != nil {
				t.Fatal(err)
			}
			p := newJointProbe(gt, 1)
			if p == nil {
				t.Fatal("no joint regions")
			}
			own := p.score(gt, gt.Skin)
			t.Logf("%s: %d regions, %d vertices, poses %s", kind, own.Regions, own.Vertices, own.Poses)
			if own.Deform != 0 || own.Torn != 0 || own.Collapsed != 0 {
				t.Errorf("artist's weights: %+v, want 0 error and no broken region", own)
			}
			rigid := p.score(gt, skinning.Rigid(gt))
			scattered := p.score(gt, scatteredSkin(gt))
			t.Logf("rigid %+v, scattered %+v", rigid, scattered)
			if !(rigid.Deform > 0 && scattered.Deform > rigid.Deform && scattered.Torn > 0) {
				t.Errorf("rigid %+v, scattered %+v: want 0 < rigid < scattered, torn regions", rigid, scattered)
			}
		})
	}
}

// scatteredSkin binds every vertex wholly to a random joint.
func scatteredSkin(c *character.Character) *character.Skin {
	rng := rand.New(rand.NewSource(1))
	s := &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v := range s.Weights {
		s.Weights[v] = []character.Influence{{Joint: rng.Intn(c.Skeleton.NumJoints()), Weight: 1}}
	}
	return s
}
