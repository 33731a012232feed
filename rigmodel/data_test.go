package rigmodel

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// testRig is a small rigged quadruped built in code (classical skeleton, rigid skin).
func testRig(t testing.TB) *character.Character {
	t.Helper()
	m := synth.BoxQuadruped()
	opt := classical.Options{MaxJoints: min(classical.DefaultMaxJoints, rewards.JointBudget(len(m.Positions)))}
	c, _, err := classical.Rigger{Options: opt}.Rig(&character.Character{Name: "box_quadruped", Mesh: m})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMakeExampleTokensAreTheEncoding(t *testing.T) {
	c := testRig(t)
	ex, err := MakeExample(c, 64, nil, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := tokens.EncodeSkeleton(c.Skeleton, character.NormalizationOf(c.Mesh))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex.Tokens, want) || ex.SkeletonLen != len(want) || ex.HasSkin {
		t.Errorf("example tokens %v, want %v", ex.Tokens, want)
	}
	if len(ex.Points) != 64*6 {
		t.Fatalf("%d point floats", len(ex.Points))
	}
	for i := 0; i < 64; i++ {
		p := ex.Points[i*6 : i*6+6]
		for _, x := range p[:3] {
			if x < -1.0001 || x > 1.0001 {
				t.Fatalf("point %d %v outside the cube", i, p)
			}
		}
		if n := math.Sqrt(float64(p[3]*p[3] + p[4]*p[4] + p[5]*p[5])); math.Abs(n-1) > 1e-3 {
			t.Fatalf("point %d normal length %v", i, n)
		}
	}
}
