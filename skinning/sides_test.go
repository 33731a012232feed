package skinning

import (
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// crossWeight sums, over the vertices more than sideMargin of the size off the
// plane x = mid, the weight of joints on the other side of it.
func crossWeight(c *character.Character, k *character.Skin, mid, margin float64) float64 {
	sum := 0.0
	for v, ws := range k.Weights {
		xv := c.Mesh.Positions[v][0] - mid
		for _, w := range ws {
			xj := c.Skeleton.Position(w.Joint)[0] - mid
			if math.Abs(xv) > margin && math.Abs(xj) > margin && xv*xj < 0 {
				sum += w.Weight
			}
		}
	}
	return sum
}

// leakAcross returns a copy of c's skin in which every vertex of the right leg
// (x < 0, heaviest joint leg_r_*) gives share of its heaviest weight to the
// same bone of the left leg.
func leakAcross(t *testing.T, c *character.Character, share float64) *character.Skin {
	t.Helper()
	index := map[string]int{}
	for j, n := range c.Skeleton.Names {
		index[n] = j
	}
	out := &character.Skin{Weights: make([][]character.Influence, len(c.Skin.Weights))}
	for v, ws := range c.Skin.Weights {
		out.Weights[v] = append([]character.Influence(nil), ws...)
		rest, right := strings.CutPrefix(c.Skeleton.Names[ws[0].Joint], "leg_r_")
		left, ok := index["leg_l_"+rest]
		if !right || !ok {
			continue
		}
		moved := share * ws[0].Weight
		out.Weights[v][0].Weight -= moved
		out.Weights[v] = append(out.Weights[v], character.Influence{Joint: left, Weight: moved})
	}
	return out
}

func TestMirrorSides(t *testing.T) {
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := c.Mesh.Positions[0], c.Mesh.Positions[0]
	for _, q := range c.Mesh.Positions {
		lo[0], hi[0] = math.Min(lo[0], q[0]), math.Max(hi[0], q[0])
		hi[1] = math.Max(hi[1], q[1])
	}
	mid, margin := (lo[0]+hi[0])/2, sideMargin*hi[1]
	leaked := leakAcross(t, c, 0.4)
	// The left side's joints moved forward by a tenth of the height: no joint
	// pairs with its mirror image.
	oneSided := c.Clone()
	for j := range oneSided.Skeleton.Names {
		if oneSided.Skeleton.Position(j)[0]-mid > margin {
			oneSided.Skeleton.BindWorld[j] = vecmath.Translate4(vecmath.Vec3{0, 0, 0.1 * hi[1]}).Mul(oneSided.Skeleton.BindWorld[j])
		}
	}
	for _, tc := range []struct {
		name      string
		c         *character.Character
		skin      *character.Skin
		wantAxis  int
		wantMoved bool
	}{
		{"artist's weights stay", c, c.Skin, 0, false},
		{"leaked weights go back", c, leaked, 0, true},
		{"no mirrored joints: no plane", oneSided, leaked, -1, false},
		{"weights of another mesh: unchanged", c, &character.Skin{Weights: leaked.Weights[:10]}, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rep := MirrorSides(tc.c, tc.skin)
			if rep.Axis != tc.wantAxis || (rep.Moved > 0) != tc.wantMoved {
				t.Fatalf("axis %d, moved %.2f; want axis %d, moved %v", rep.Axis, rep.Moved, tc.wantAxis, tc.wantMoved)
			}
			if len(tc.skin.Weights) != len(c.Mesh.Positions) {
				if got != tc.skin {
					t.Error("weights that do not fit the mesh came back changed")
				}
				return
			}
			if err := got.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
				t.Fatal(err)
			}
			before, after := crossWeight(c, tc.skin, mid, margin), crossWeight(c, got, mid, margin)
			if tc.wantMoved && (before < 1 || after > 0.05*before) {
				t.Errorf("weight across the plane %.2f before, %.2f after; want nearly all of it moved", before, after)
			}
			if !tc.wantMoved && after != before {
				t.Errorf("weight across the plane changed from %.2f to %.2f", before, after)
			}
		})
	}
}
