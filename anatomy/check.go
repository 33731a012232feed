package anatomy

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Checks are the anatomical properties of a fitted skeleton that docs/anatomy.md
// measures: one root, where the root is, whether any limb hangs from another limb,
// and how far left/right pairs are from mirror images.
type Checks struct {
	Roots int
	// RootToPelvis is the distance from the root to the midpoint of the hip joints
	// (LeftUpLeg, RightUpLeg) over the height; -1 when there are no hip joints.
	RootToPelvis float64
	// LimbOnLimb lists joints whose parent belongs to another limb.
	LimbOnLimb []string
	// MirrorError is the largest distance between a Left joint and its Right
	// partner's reflection over the height (0 with no pairs).
	MirrorError float64
	// Crossing lists Left or Right joints farther than crossingTolerance of the
	// height on the other side of the symmetry plane: a leg chain zig-zagging
	// through both legs.
	Crossing []string
}

// crossingTolerance is how far (share of the height) a sided joint may lie on the
// other side of the symmetry plane: hands held together in front of the body meet
// on it.
const crossingTolerance = 0.02

// Check measures a skeleton fitted by Fit with its report, for a mesh of the given
// height.
func Check(sk *character.Skeleton, sym Symmetry, height float64) Checks {
	var c Checks
	idx := map[string]int{}
	for j, n := range sk.Names {
		idx[n] = j
		if sk.Parents[j] < 0 {
			c.Roots++
		}
	}
	c.RootToPelvis = -1
	l, okL := idx[Side(1, UpLeg)]
	r, okR := idx[Side(-1, UpLeg)]
	if okL && okR {
		mid := sk.Position(l).Add(sk.Position(r)).Scale(0.5)
		for j, p := range sk.Parents {
			if p < 0 {
				c.RootToPelvis = sk.Position(j).Dist(mid) / height
			}
		}
	}
	for j, p := range sk.Parents {
		if p < 0 {
			continue
		}
		if a, b := limbOf(sk.Names[p]), limbOf(sk.Names[j]); a != "" && a != b {
			c.LimbOnLimb = append(c.LimbOnLimb, fmt.Sprintf("%s→%s", sk.Names[p], sk.Names[j]))
		}
	}
	c.Crossing = acrossPlane(sk, sym, height)
	for j, n := range sk.Names {
		if !strings.HasPrefix(n, "Left") {
			continue
		}
		k, ok := idx["Right"+n[4:]]
		if !ok {
			continue
		}
		d := sk.Position(j).Dist(mirrorWorld(sk.Position(k), sym)) / height
		c.MirrorError = math.Max(c.MirrorError, d)
	}
	return c
}

// acrossPlane lists the sided joints on the wrong side of the symmetry plane. Left is
// the side the LeftUpLeg (or else the first Left joint) stands on.
func acrossPlane(sk *character.Skeleton, sym Symmetry, height float64) []string {
	a := map[string]int{"x": 0, "y": 1, "z": 2}[sym.Axis]
	leftSign := 0.0
	for _, want := range []string{Side(1, UpLeg), "Left"} {
		for j, n := range sk.Names {
			if strings.HasPrefix(n, want) && leftSign == 0 {
				leftSign = math.Copysign(1, sk.Position(j)[a]-sym.Offset)
			}
		}
	}
	var out []string
	for j, n := range sk.Names {
		sign := 0.0
		switch {
		case strings.HasPrefix(n, "Left"):
			sign = leftSign
		case strings.HasPrefix(n, "Right"):
			sign = -leftSign
		default:
			continue
		}
		if sign*(sk.Position(j)[a]-sym.Offset) < -crossingTolerance*height {
			out = append(out, n)
		}
	}
	return out
}

// mirrorWorld reflects a world point across the symmetry plane.
func mirrorWorld(p vecmath.Vec3, sym Symmetry) vecmath.Vec3 {
	a := map[string]int{"x": 0, "y": 1, "z": 2}[sym.Axis]
	p[a] = 2*sym.Offset - p[a]
	return p
}

// limbOf names the limb a joint belongs to ("" for the trunk: spine, neck, head,
// tail): its side and chain, e.g. "Left/arm", or "limb_3" for generic names.
func limbOf(name string) string {
	if strings.HasPrefix(name, "limb_") {
		if i := strings.Index(name[5:], "_"); i >= 0 {
			return name[:5+i]
		}
	}
	side := ""
	switch {
	case strings.HasPrefix(name, "Left"):
		side, name = "Left/", name[4:]
	case strings.HasPrefix(name, "Right"):
		side, name = "Right/", name[5:]
	default:
		return ""
	}
	for _, chain := range []struct{ name, parts string }{
		{"arm", "Shoulder Arm ForeArm Hand"},
		{"frontleg", "FrontUpLeg FrontLeg FrontFoot FrontToe"},
		{"hindleg", "HindUpLeg HindLeg HindFoot HindToe"},
		{"wing", "WingArm WingForeArm WingHand"},
		{"leg", "UpLeg Leg Foot ToeBase Toe_End"},
	} {
		for _, p := range strings.Fields(chain.parts) {
			if strings.HasPrefix(name, p) {
				return side + chain.name
			}
		}
	}
	return side + name
}
