package anatomy

import (
	"fmt"
	"math"
	"strings"
)

// suspectConfidence caps the confidence of a rig that fails its own checks: a
// detection is not sure when the skeleton it led to does not fit the mesh.
const suspectConfidence = 0.5

// otherConfidence caps the confidence of kind Other: it is what is left when no
// template fits, never a positive finding.
const otherConfidence = 0.6

// suspicions checks a fitted skeleton (canonical frame) against the mesh it was
// fitted to and returns why it is doubtful, or nothing: a mirror-symmetric mesh
// whose skeleton does not mirror, a tall body, symmetric but for what one hand
// holds (Symmetry.Trimmed), whose slices show two legs
// but whose skeleton has no two leg chains, a limb or spine chain with joints well
// on both sides of the plane (one chain zig-zagging through both legs), a
// template placed by proportions alone, a standing figure that no template
// fits (standingFigure), and a humanoid with body joints outside the mesh
// (bodyJointsOutside).
func suspicions(s *shape, t *tree, b *build, kind Kind, byProportion bool) []string {
	H := s.height()
	var out []string
	if byProportion {
		out = append(out, "no legs or arms found: the humanoid template is placed by proportions")
	}
	if kind == Other && standingFigure(s, t) {
		out = append(out, "a tall mirrored body with a head on a neck, standing on two end points, fits no template: its legs or arms were not found")
	}
	if s.symmetric {
		if gap := mirrorGap(s, b); gap > 0.05*H {
			out = append(out, fmt.Sprintf("the mesh mirrors but the skeleton does not (mean gap %.3f of the height)", gap/H))
		}
	}
	_, hasL := b.index[Side(1, UpLeg)]
	_, hasR := b.index[Side(-1, UpLeg)]
	tall := H > 1.5*(s.hi[2]-s.lo[2])
	if s.nearlySymmetric && tall && !(hasL && hasR) {
		if _, err := s.profile().findLegs(s); err == nil {
			out = append(out, "a tall symmetric body with two legs in its cross-sections has no two leg chains")
		}
	}
	for _, chain := range crossingChains(s, b) {
		out = append(out, fmt.Sprintf("chain %s crosses the symmetry plane", chain))
	}
	if kind == Humanoid && !byProportion {
		if outside := bodyJointsOutside(s, b); len(outside) >= minJointsOutside {
			out = append(out, fmt.Sprintf("%d of the body's joints lie outside the mesh: %s", len(outside), strings.Join(outside, " ")))
		}
	}
	return out
}

// bodyJointsOutside names the humanoid template's body joints (not the end
// joints, toes or fingers, which lie at the surface of thin parts) that lie
// outside the mesh by more than jointOutsideSlack of its height: a limb placed
// where the body has none (a mech's legs hidden under a skirt, arms on a suit
// that has none), not a joint in the gap between two hard-surface parts or at
// the surface of a thin wrist.
func bodyJointsOutside(s *shape, b *build) []string {
	var out []string
	slack := jointOutsideSlack * s.height()
	for _, n := range humanoidBody {
		for _, name := range []string{n, Side(1, n), Side(-1, n)} {
			j, ok := b.index[name]
			if !ok || s.inside(b.pos[j]) {
				continue
			}
			if _, near := s.wn.BVH().ClosestWithin(s.f.from(b.pos[j]), slack); !near {
				out = append(out, name)
			}
		}
	}
	return out
}

// jointOutsideSlack is how far outside the mesh, as a share of its height, a
// body joint may lie before bodyJointsOutside names it.
const jointOutsideSlack = 0.03

// humanoidBody are the joints bodyJointsOutside checks, side-dependent ones
// without their side.
var humanoidBody = []string{Hips, Spine, Spine1, Spine2, Neck, Head, Shoulder, Arm, ForeArm, Hand, UpLeg, Leg, Foot}

// minJointsOutside is the fewest body joints outside the mesh that make a
// humanoid rig suspect: a mirror pair, or two of one chain.
const minJointsOutside = 2

// standingFigure reports whether the mesh looks like a standing figure that
// Other cannot be right for: it mirrors, stands at least twice as tall as it is
// deep (standingDepth), carries a head on a neck (headOnNeck) and the proposal
// has two or more end points on the ground (within a fifth of the height). A
// human whose legs are pressed together and whose arms lie against its sides,
// fused into one surface, shows no limb in any slice and reads as Other; a
// bottle or a chess piece stands on one end point.
func standingFigure(s *shape, t *tree) bool {
	return s.nearlySymmetric && s.height() >= pressedArmsAspect*s.standingDepth() &&
		len(groundLeaves(s, t, 0.2)) >= 2 && s.headOnNeck()
}

// mirrorGap is the mean distance from each joint's mirror image to the nearest
// joint.
func mirrorGap(s *shape, b *build) float64 {
	sum := 0.0
	for _, p := range b.pos {
		q := s.mirror(p)
		best := math.Inf(1)
		for _, r := range b.pos {
			best = math.Min(best, q.Dist(r))
		}
		sum += best
	}
	return sum / float64(len(b.pos))
}

// crossingChains names the chains (a limb, or the spine and tail of a body fitted
// without a template) with joints farther than 4% of the height on both sides of
// the symmetry plane.
func crossingChains(s *shape, b *build) []string {
	H := s.height()
	type span struct{ lo, hi float64 }
	spans := map[string]*span{}
	var order []string
	for j, n := range b.names {
		if b.centre[j] {
			continue
		}
		g := limbOf(n)
		if g == "" {
			g = strings.TrimRight(n, "0123456789_")
		}
		sp, ok := spans[g]
		if !ok {
			sp = &span{math.Inf(1), math.Inf(-1)}
			spans[g] = sp
			order = append(order, g)
		}
		x := b.pos[j][0] - s.mid
		sp.lo, sp.hi = math.Min(sp.lo, x), math.Max(sp.hi, x)
	}
	var out []string
	for _, g := range order {
		if sp := spans[g]; sp.lo < -0.04*H && sp.hi > 0.04*H {
			out = append(out, g)
		}
	}
	return out
}
