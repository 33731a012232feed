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

func signedVolume(m *character.Mesh) float64 {
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		v += a.Dot(b.Cross(c)) / 6
	}
	return v
}

func TestAugmentKeepsAValidRig(t *testing.T) {
	c := testRig(t)
	vol := signedVolume(&c.Mesh)
	for seed := int64(0); seed < 12; seed++ {
		opt := DefaultAugment
		opt.MirrorProb, opt.PoseProb = float64(seed%2), float64(seed/2%2)
		a := Augment(c, opt, rand.New(rand.NewSource(seed)))
		if err := a.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// Mirroring must flip the winding so the surface still faces outward.
		if v := signedVolume(&a.Mesh); v <= 0 || math.Abs(v/vol-1) > 0.6 {
			t.Errorf("seed %d: signed volume %v (original %v)", seed, v, vol)
		}
		// Each joint keeps its distance to its parent up to the stretch.
		for j, p := range a.Skeleton.Parents {
			if p < 0 {
				continue
			}
			l0 := c.Skeleton.Position(j).Dist(c.Skeleton.Position(p))
			l1 := a.Skeleton.Position(j).Dist(a.Skeleton.Position(p))
			if l1 < l0*(1-opt.MaxScale)-1e-9 || l1 > l0*(1+opt.MaxScale)+1e-9 {
				t.Errorf("seed %d: bone %d length %v → %v", seed, j, l0, l1)
			}
		}
	}
	if c.Skeleton.Position(1) != testRig(t).Skeleton.Position(1) {
		t.Error("Augment modified its input")
	}
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
