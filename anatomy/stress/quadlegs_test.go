package stress

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
)

func quadruped(t *testing.T, kind string, seed int64) *character.Character {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pairGaps measures, on c posed from the body q was found on, each leg pair's
// smallest distance across its plane between the lower parts of its two legs
// (their vertices below the top fifth of the way from the leg's top to the floor,
// the feet's floor bones included), over the height; negative: they overlap.
func pairGaps(q *quadLegs, c *character.Character) [2]float64 {
	b := baseBody(c)
	b.setSide(q.b.side)
	var gaps [2]float64
	for i := range q.tops {
		b.mid = q.mids[i]
		for k, j := range q.tops[i] {
			pivot := c.Skeleton.Position(j)
			reach := pivot.Dot(b.up) - 0.2*(pivot.Dot(b.up)-b.floor)
			vs := b.vertices(j)
			for _, f := range q.floorBones[i][k] {
				vs = append(vs, b.vertices(f)...)
			}
			var low []int
			ctr := c.Mesh.Positions[0].Scale(0)
			for _, v := range vs {
				if p := c.Mesh.Positions[v]; p.Dot(b.up) < reach {
					low = append(low, v)
					ctr = ctr.Add(p)
				}
			}
			s, g := b.sideOf(ctr.Scale(1/float64(len(low)))), math.Inf(1)
			for _, v := range low {
				g = math.Min(g, s*(c.Mesh.Positions[v].Dot(b.side)-b.mid))
			}
			gaps[i] += g / b.height()
		}
	}
	return gaps
}

// TestQuadLegs: the four legs of synthetic quadrupeds (toes or none, tails or
// none, winged, a sprawling lizard) are found, left and right across the plane,
// and pressed until each pair's legs touch; the feet move toward the plane and
// the skeleton moves with the mesh.
func TestQuadLegs(t *testing.T) {
	for _, tc := range []struct {
		kind string
		seed int64
	}{{"quadruped", 1}, {"quadruped", 2}, {"quadruped", 3}, {"quadruped", 4}, {"quadruped", 5}, {"winged", 1}, {"tailed", 5}} {
		t.Run(fmt.Sprintf("%s_%d", tc.kind, tc.seed), func(t *testing.T) {
			c := quadruped(t, tc.kind, tc.seed)
			q, err := findQuadLegs(c)
			if err != nil {
				t.Fatal(err)
			}
			for i := range q.tops {
				l, r := c.Skeleton.Position(q.feet[i][0]), c.Skeleton.Position(q.feet[i][1])
				if (l.Dot(q.b.side)-q.mids[i])*(r.Dot(q.b.side)-q.mids[i]) >= 0 {
					t.Errorf("pair %d: feet %s and %s on one side of the plane", i, c.Skeleton.Names[q.feet[i][0]], c.Skeleton.Names[q.feet[i][1]])
				}
				for _, j := range q.tops[i] {
					if n := c.Skeleton.Names[j]; !strings.HasPrefix(n, "leg_") || !strings.HasSuffix(n, "_upper") {
						t.Errorf("pair %d: leg top %s, want a leg_*_upper joint", i, n)
					}
				}
			}
			before := pairGaps(q, c)
			out, err := Apply(c, "legs")
			if err != nil {
				t.Fatal(err)
			}
			after := pairGaps(q, out)
			for i := range after {
				if before[i] < 0.01 || after[i] > 0.001 {
					t.Errorf("pair %d: gap %.4f of the height before, %.4f after; want apart, then touching", i, before[i], after[i])
				}
				for _, f := range q.feet[i] {
					d0 := math.Abs(c.Skeleton.Position(f).Dot(q.b.side) - q.mids[i])
					d1 := math.Abs(out.Skeleton.Position(f).Dot(q.b.side) - q.mids[i])
					if d1 >= d0 {
						t.Errorf("foot %s: %.3f from the plane before, %.3f after", c.Skeleton.Names[f], d0, d1)
					}
				}
			}
			if d0, d1 := jointSpread(c), jointSpread(out); d1 > d0*1.05+1e-9 {
				t.Errorf("mean vertex-to-dominant-joint distance grew from %.4f to %.4f", d0, d1)
			}
		})
	}
}

// TestQuadLegsRefused: bodies without four legs on the floor are refused with
// the reason: a biped whose joints carry no known names (two feet), a snake
// (none).
func TestQuadLegsRefused(t *testing.T) {
	nameless := quadruped(t, "biped", 3)
	for j := range nameless.Skeleton.Names {
		nameless.Skeleton.Names[j] = fmt.Sprintf("bone_%d", j)
	}
	for _, tc := range []struct {
		name string
		c    *character.Character
	}{{"nameless biped", nameless}, {"snake", quadruped(t, "snake", 1)}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(tc.c, "legs")
			if err == nil || !strings.Contains(err.Error(), "not four legs") {
				t.Fatalf("error %v, want one saying there are not four legs", err)
			}
		})
	}
}

// TestQuadVariants: every quadruped variant is made of a synthetic quadruped,
// with a valid skin over its skeleton.
func TestQuadVariants(t *testing.T) {
	c := quadruped(t, "quadruped", 2)
	for _, v := range QuadVariants {
		out, err := Apply(c, v)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if err := out.Skin.Validate(len(out.Mesh.Positions), out.Skeleton.NumJoints(), 1e-6); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}
