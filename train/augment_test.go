package train

import (
	"math"
	"math/rand"
	mrand "math/rand"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
)

func signedVolume(m *character.Mesh) float64 {
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		v += a.Dot(b.Cross(c)) / 6
	}
	return v
}

func TestAugmentKeepsAValidRig(t *testing.T) {
	c := modeltest.Rig(t)
	vol := signedVolume(&c.Mesh)
	for seed := int64(0); seed < 12; seed++ {
		opt := DefaultAugment
		opt.MirrorProb, opt.PoseProb = float64(seed%2), float64(seed/2%2)
		a, _ := augment(c, opt, rand.New(rand.NewSource(seed)))
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
	if c.Skeleton.Position(1) != modeltest.Rig(t).Skeleton.Position(1) {
		t.Error("augment modified its input")
	}
}

func TestAugmentQuarterTurns(t *testing.T) {
	c := modeltest.Rig(t)
	opt := AugmentOptions{QuarterTurns: true, Jitter: 0.1}
	seen := map[int]bool{}
	for seed := int64(0); seed < 40; seed++ {
		a, _ := augment(c, opt, rand.New(rand.NewSource(seed)))
		// The turn about +Y, from any vertex away from the axis.
		var angle float64
		for i, p := range c.Mesh.Positions {
			q := a.Mesh.Positions[i]
			if math.Hypot(p[0], p[2]) > 0.3 {
				angle = math.Atan2(p[0], p[2]) - math.Atan2(q[0], q[2])
				if math.Abs(q[1]-p[1]) > 1e-9 {
					t.Fatalf("seed %d: vertex %d moved along the up axis", seed, i)
				}
				break
			}
		}
		k := math.Round(angle / (math.Pi / 2))
		if off := math.Abs(angle - k*math.Pi/2); off > opt.Jitter+1e-9 {
			t.Errorf("seed %d: turn %.3f rad is %.3f from a quarter turn (jitter %.2f)", seed, angle, off, opt.Jitter)
		}
		seen[(int(k)%4+4)%4] = true
	}
	if len(seen) != 4 {
		t.Errorf("quarter turns seen: %v, want all 4", seen)
	}
}

func TestAnchoredProposalFollowsAugmentation(t *testing.T) {
	c := modeltest.Rig(t)
	a := anchorProposal(c.Skeleton, &c.Mesh)
	opt := AugmentOptions{MaxScale: 0.15, QuarterTurns: true, Jitter: 0.2, MirrorProb: 0.5}
	for seed := int64(0); seed < 4; seed++ {
		aug, m := augment(c, opt, mrand.New(mrand.NewSource(seed)))
		got := a.follow(&aug.Mesh, m)
		// Without re-posing the augmentation is affine, so every joint lands exactly
		// where the map sends it.
		for j := range got.BindWorld {
			want := m.Point(c.Skeleton.Position(j))
			if d := got.Position(j).Sub(want).Len(); d > 1e-9 {
				t.Fatalf("seed %d joint %d: %v, want %v", seed, j, got.Position(j), want)
			}
		}
	}
}
