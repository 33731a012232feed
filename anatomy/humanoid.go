package anatomy

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// humanoidParts are the proposed skeleton's end points a humanoid is fitted from.
type humanoidParts struct {
	foot, hand [2]int // [0] left (+X), [1] right
	head       int    // -1: the top of the mesh on the plane
}

// sides maps index 0/1 to the side sign: left +1, right -1.
var sides = [2]int{1, -1}

// findHumanoidParts picks the feet (the lowest leaf on each side, in the bottom
// fifth), the hands (the leaf farthest out on each side above a third of the
// height) and the head (the highest remaining leaf near the plane). A side without
// a foot or a hand keeps -1 there; the error says so.
func findHumanoidParts(s *shape, t *tree) (humanoidParts, error) {
	H, y0 := s.height(), s.lo[1]
	p := humanoidParts{foot: [2]int{-1, -1}, hand: [2]int{-1, -1}, head: -1}
	leaves := t.leaves()
	used := map[int]bool{}
	for i, sd := range sides {
		for _, l := range leaves {
			q := t.pos[l]
			if float64(sd)*(q[0]-s.mid) <= 0 || q[1] > y0+0.2*H {
				continue
			}
			if p.foot[i] < 0 || q[1] < t.pos[p.foot[i]][1] {
				p.foot[i] = l
			}
		}
		if p.foot[i] >= 0 {
			used[p.foot[i]] = true
		}
	}
	for i, sd := range sides {
		for _, l := range leaves {
			q := t.pos[l]
			if used[l] || float64(sd)*(q[0]-s.mid) < 0.1*H || q[1] < y0+0.33*H {
				continue
			}
			if p.hand[i] < 0 || float64(sd)*(q[0]-t.pos[p.hand[i]][0]) > 0 {
				p.hand[i] = l
			}
		}
		if p.hand[i] >= 0 {
			used[p.hand[i]] = true
		}
	}
	for _, l := range leaves {
		q := t.pos[l]
		if used[l] || math.Abs(q[0]-s.mid) > 0.15*H || q[1] < y0+0.6*H {
			continue
		}
		if p.head < 0 || q[1] > t.pos[p.head][1] {
			p.head = l
		}
	}
	if p.foot[0] < 0 || p.foot[1] < 0 || p.hand[0] < 0 || p.hand[1] < 0 {
		return p, errors.New("no two feet and two hands among the skeleton's end points")
	}
	return p, nil
}

// humanoidLimbs are the routes a humanoid is fitted along, in the canonical frame.
type humanoidLimbs struct {
	hips      vecmath.Vec3
	hw        float64           // half the hip width
	legs      [2][]vecmath.Vec3 // from the foot up
	arms      [2][]vecmath.Vec3 // from the torso's edge to the fingertip
	hands     [2]vecmath.Vec3   // the arm routes' hand points, for the fingers
	head      int               // a leaf of the proposal, or -1
	fromShape [2]bool           // legs, arms found in the body's slices
	pressed   bool              // arms placed along the outline (outlineArm), not seen
	covered   bool              // only the feet seen, below a garment (legShape.covered)
	crotch    float64           // the slices' crotch height, when fromShape[0]
	// gown: no legs show at all, under a gown to the floor (gownLegs); the
	// arms must then be seen, not placed along the outline.
	gown bool
}

// findHumanoidLimbs finds two legs and two arms. Legs come from the body's
// horizontal slices (profile.findLegs), which split at the symmetry plane below
// the crotch whether the legs stand apart or touch; only when the slices do not
// split, from the proposed skeleton's end points. Arms hanging or slanting beside
// the body come from the slices too (they may touch the hips, where the proposal
// joins them to the legs); other arms (a T-pose, whose slices run into the torso)
// from the proposal's routes to its hands. Legs seen only below a garment, or
// below a dress's hem taken for the crotch (hemAtCrotch), get hips placed by the
// shoulders' height. A body of separate parts whose legs the inner walls
// between them told apart (walledCrotch) takes its arms from those walls too
// (walledArms) when the slices show none.
func findHumanoidLimbs(s *shape, t *tree) (humanoidLimbs, error) {
	l, err := traceHumanoidLimbs(s, t)
	if err != nil {
		return l, err
	}
	if !l.covered && l.fromShape[0] && l.hemAtCrotch(s) {
		l.covered = true
	}
	if l.covered {
		l.hipsUnderGarment(s)
	}
	err = l.plausible(s)
	if err != nil && !l.fromShape[1] && l.mayPressArms(s) {
		// The proposal's routes to what it took for hands are no arms (they leave
		// the body below the hips: a hand pressed to the thigh read as its end):
		// a tall mirrored body whose slices show legs holds its arms along its
		// sides, as when the slices see no arm at all.
		l.outlineArms(s)
		err = l.plausible(s)
	}
	return l, err
}

// mayPressArms reports whether the arms may be placed along the outline: the
// slices show legs (not a gown's, whose arms must be seen) on a body that may
// hold its arms pressed along its sides (pressedArmsPossible).
func (l humanoidLimbs) mayPressArms(s *shape) bool {
	return l.fromShape[0] && !l.gown && pressedArmsPossible(s)
}

// outlineArms places both arms along the body's outline (outlineArm), pressed.
func (l *humanoidLimbs) outlineArms(s *shape) {
	l.fromShape[1], l.pressed = true, true
	for i, sd := range sides {
		l.arms[i] = s.profile().outlineArm(s, l.crotch, sd)
		l.hands[i] = atFraction(l.arms[i], 0.75)
	}
}

// coveredHipShare is the height of the hip joints over the shoulders' (both from
// the floor) where a garment hides them. The artists' bipeds of ../shared/data
// range from 0.53 (big-headed cartoon figures) through 0.62 (the Clonk) to 0.72
// (Quaternius' women); the middle keeps each within 0.1 of their height.
const coveredHipShare = 0.62

// shoulderY is the mean height of the arm routes' first points, the shoulders.
func (l humanoidLimbs) shoulderY() float64 { return (l.arms[0][0][1] + l.arms[1][0][1]) / 2 }

// hipsUnderGarment places the hips of legs seen only below a garment's hem by
// the shoulders' height, the proportion that varies least between realistic and
// cartoon bodies, and runs each leg straight up to them.
func (l *humanoidLimbs) hipsUnderGarment(s *shape) {
	H, y0 := s.height(), s.lo[1]
	hip := y0 + coveredHipShare*(l.shoulderY()-y0)
	l.hips = s.centre(vecmath.Vec3{s.mid, hip + 0.04*H, l.hips[2]}, 2)
	if lo, hi, ok := s.run(l.hips, 0); ok {
		l.hw = math.Min((hi-lo)/2, 0.2*H)
	}
	crotch := l.hips[1] - 0.05*H
	for i, leg := range l.legs {
		k := 0
		for k < len(leg) && leg[k][1] <= crotch {
			k++
		}
		l.legs[i] = s.profile().upTo(leg[:max(k, 1)], crotch)
	}
}

// plausible checks what any standing biped's limbs share, so that a sail, a
// gate or a horse's breastplate whose parts happen to trace two legs and two
// arms is no humanoid: the hips have width (a half-width over 5% of the height:
// a sheet's do not) and sit in the lower two thirds (under 64% of the height: a
// gate's lintel does not), each arm leaves the body clearly above the hips (by
// 8% of the height), and the hands are not both at the top of the body, where a
// head would be (both over 85% of the height: a gate's towers, a sail's yard).
// On the 191 bipeds of ../shared/data the least hip half-width is 0.08 of the
// height, the highest hips 0.59, the least shoulder over the hips 0.16, the
// highest lower hand 0.78.
func (l humanoidLimbs) plausible(s *shape) error {
	H, y0 := s.height(), s.lo[1]
	if l.hw < minHipHalfWidth*H {
		return fmt.Errorf("no hips: the body is %.3f of its height wide there", 2*l.hw/H)
	}
	if l.hips[1] > y0+maxHips*H {
		return fmt.Errorf("the hips are %.2f of the height up: no legs under a body", (l.hips[1]-y0)/H)
	}
	lowHand := math.Inf(1)
	for i := range sides {
		a := l.arms[i]
		if len(a) == 0 {
			continue
		}
		if a[0][1] < l.hips[1]+minShoulderOverHips*H {
			return fmt.Errorf("an arm leaves the body %.2f of the height above the ground, not above the hips (%.2f)", (a[0][1]-y0)/H, (l.hips[1]-y0)/H)
		}
		lowHand = math.Min(lowHand, a[len(a)-1][1])
	}
	if lowHand > y0+maxLowHand*H {
		return fmt.Errorf("both hands are at the top of the body (%.2f of the height): no room for a head", (lowHand-y0)/H)
	}
	return nil
}

// Bounds of plausible (shares of the height).
const (
	minHipHalfWidth     = 0.05
	maxHips             = 0.64
	minShoulderOverHips = 0.08
	maxLowHand          = 0.85
)

// traceHumanoidLimbs finds the limbs of findHumanoidLimbs.
func traceHumanoidLimbs(s *shape, t *tree) (humanoidLimbs, error) {
	H := s.height()
	parts, partsErr := findHumanoidParts(s, t)
	l := humanoidLimbs{head: parts.head}
	ls, legErr := s.profile().findLegs(s)
	if legErr != nil && (parts.foot[0] < 0 || parts.foot[1] < 0) {
		if gown, ok := s.gownLegs(); ok {
			ls, legErr, l.gown = gown, nil, true
		}
	}
	if legErr == nil {
		l.fromShape[0], l.covered, l.crotch = true, ls.covered, ls.crotch
		l.hips = s.centre(vecmath.Vec3{s.mid, ls.crotch + 0.05*H, (s.lo[2] + s.hi[2]) / 2}, 2)
	} else if parts.foot[0] < 0 || parts.foot[1] < 0 {
		return l, legErr
	} else {
		l.hips = s.pelvis()
	}
	l.hw = 0.1 * H
	if lo, hi, ok := s.run(l.hips, 0); ok {
		l.hw = math.Min((hi-lo)/2, 0.2*H)
	}
	for i := range sides {
		if l.fromShape[0] {
			l.legs[i] = ls.routes[i]
		} else {
			l.legs[i] = t.points(t.path(parts.foot[i], t.nearest(l.hips)))
		}
	}
	tip := minFingertip
	if l.fromShape[0] {
		tip = math.Inf(-1)
	}
	arms, armErr := s.profile().findHangingArms(s, l.hips[1]-0.05*H, tip)
	if armErr == nil && !handsBeyond(s, t, parts, arms) {
		l.fromShape[1] = true
		for i := range sides {
			l.arms[i] = extendToSurface(s, arms[i])
			l.hands[i] = atFraction(l.arms[i], 0.75)
		}
		if handsAtTips(s, t, parts, arms) {
			// The proposal's routes reach into the fingers, which the finger
			// search reads; they leave the torso where the proposed skeleton
			// branches, low on the chest in an A-pose, so they start at the
			// slices' shoulders.
			if pa, err := l.proposalArms(s, t, parts); err == nil {
				for i := range sides {
					l.arms[i], l.hands[i] = fromShoulder(pa[i], arms[i][0]), t.pos[parts.hand[i]]
				}
			}
		}
		return l, nil
	}
	if ls.walled || l.fromShape[0] {
		// Beside legs the slices part, inner walls may be other parts' (a
		// mech's plating, a skirt over the hips): they are not the arms where
		// the proposal holds both hands out beyond them.
		arms, ok := s.profile().walledArms(s, l.crotch)
		if ok && (ls.walled || !handsBeyond(s, t, parts, arms)) {
			l.fromShape[1] = true
			for i := range sides {
				l.arms[i], l.hands[i] = arms[i], atFraction(arms[i], 0.75)
			}
			return l, nil
		}
	}
	if parts.hand[0] < 0 || parts.hand[1] < 0 {
		if l.mayPressArms(s) {
			l.outlineArms(s)
			return l, nil
		}
		return l, partsErr
	}
	arms, err := l.proposalArms(s, t, parts)
	if err != nil {
		return l, err
	}
	for i := range sides {
		l.arms[i], l.hands[i] = arms[i], t.pos[parts.hand[i]]
	}
	return l, nil
}

// proposalArms are the proposed skeleton's routes from the head (or the pelvis)
// to each hand, from where they leave the torso, balanced on a mesh that does
// not mirror.
func (l *humanoidLimbs) proposalArms(s *shape, t *tree, parts humanoidParts) ([2][]vecmath.Vec3, error) {
	var arms [2][]vecmath.Vec3
	from := t.nearest(l.hips)
	if parts.head >= 0 {
		from = parts.head
	}
	for i := range sides {
		route := centreArm(s, limbRoute(s, t.points(t.path(from, parts.hand[i])), 0.8*l.hw))
		arms[i] = hangArm(s, route, t.pos[parts.hand[i]])
		if len(arms[i]) < 2 {
			return arms, errors.New("no route from the body to a hand")
		}
	}
	if !s.symmetric {
		balanceArms(&arms)
	}
	return arms, nil
}

// fromShoulder starts a route at the shoulder: the shoulder, then the route
// beyond its point nearest the shoulder.
func fromShoulder(route []vecmath.Vec3, shoulder vecmath.Vec3) []vecmath.Vec3 {
	_, k, _ := closest(route, shoulder)
	if k+1 >= len(route) {
		return route
	}
	return append([]vecmath.Vec3{shoulder}, route[k+1:]...)
}

// handsAtTips reports whether the proposal has both hands, each within a tenth of
// the height of the end of the arm found in the slices.
func handsAtTips(s *shape, t *tree, parts humanoidParts, arms [2][]vecmath.Vec3) bool {
	for i := range sides {
		if parts.hand[i] < 0 || t.pos[parts.hand[i]].Dist(arms[i][len(arms[i])-1]) > 0.1*s.height() {
			return false
		}
	}
	return true
}

// handsBeyond reports whether the proposal has both hands, each above the armpit
// of the arm found in the slices on its side and a tenth of the height farther out
// than any of it: an arm held out (a mech's, set outside its body) that the
// slices do not see, which makes what they found hanging there some other part.
func handsBeyond(s *shape, t *tree, parts humanoidParts, arms [2][]vecmath.Vec3) bool {
	for i, sd := range sides {
		if parts.hand[i] < 0 {
			return false
		}
		hand := t.pos[parts.hand[i]]
		out := 0.0
		for _, q := range arms[i] {
			out = math.Max(out, float64(sd)*(q[0]-s.mid))
		}
		armpit := arms[i][min(1, len(arms[i])-1)] // arms[i][0] is the shoulder above it
		if hand[1] <= armpit[1] || float64(sd)*(hand[0]-s.mid) < out+0.1*s.height() {
			return false
		}
	}
	return true
}

// fitHumanoid builds Mixamo's hierarchy: the pelvis just above the crotch, the spine
// up the body's middle to the narrowest part of the neck, arms and legs along their
// routes (findHumanoidLimbs), at human proportions along them.
func fitHumanoid(s *shape, t *tree) (*build, error) {
	limbs, err := findHumanoidLimbs(s, t)
	if err != nil {
		return nil, err
	}
	return buildHumanoid(s, t, limbs), nil
}

// proportionalLimbs places a humanoid's limbs by proportions alone, for a mesh
// told to be a humanoid whose legs and arms are not found: the crotch at half the
// height, straight legs half the hip half-width out, arms hanging from 80% of the
// height beside the torso.
func proportionalLimbs(s *shape) humanoidLimbs {
	H, y0, c := s.height(), s.lo[1], s.mid
	l := humanoidLimbs{head: -1, hw: 0.1 * H}
	l.hips = s.centre(vecmath.Vec3{c, y0 + 0.5*H, (s.lo[2] + s.hi[2]) / 2}, 2)
	if lo, hi, ok := s.run(l.hips, 0); ok {
		l.hw = math.Min((hi-lo)/2, 0.2*H)
	}
	for i, sd := range sides {
		x := c + float64(sd)*0.5*l.hw
		l.legs[i] = []vecmath.Vec3{{x, y0, l.hips[2]}, {x, y0 + 0.45*H, l.hips[2]}}
		l.arms[i] = []vecmath.Vec3{{c + float64(sd)*1.2*l.hw, y0 + 0.8*H, l.hips[2]}, {c + float64(sd)*1.5*l.hw, y0 + 0.45*H, l.hips[2]}}
	}
	return l
}

// buildHumanoid places the template's joints along the limbs.
func buildHumanoid(s *shape, t *tree, limbs humanoidLimbs) *build {
	H, y0, c := s.height(), s.lo[1], s.mid
	hips, hw, arms := limbs.hips, limbs.hw, limbs.arms
	top := s.hi[1]
	if limbs.head >= 0 {
		top = math.Max(top, t.pos[limbs.head][1])
	}
	armY := limbs.shoulderY()
	neckMin := s.narrowest(c, armY, top)
	neckY := armY + 0.3*(neckMin-armY)
	// The head joint sits at the top of the neck, at least a fifth of the way from
	// the neck to the top (a big head on a short neck).
	headY := math.Max(neckMin+0.2*(neckMin-armY), neckY+0.2*(top-neckY))
	var legs [2]leg
	for i, sd := range sides {
		legs[i] = fitLeg(s, sd, limbs.legs[i], hips, hw, y0, H)
	}
	// Legs hung from above the pelvis (a mech's, set outside its body) raise the
	// hips to them, below the neck.
	hips[1] = math.Max(hips[1], math.Min((legs[0].hip[1]+legs[1].hip[1])/2+0.04*H, neckY-0.1*H))
	b := newBuild()
	b.add(Hips, "", hips, true)
	parent := Hips
	for k, n := range []string{Spine, Spine1, Spine2} {
		y := hips[1] + float64(k+1)*0.225*(neckY-hips[1])
		b.add(n, parent, s.centre(vecmath.Vec3{c, y, hips[2]}, 2), true)
		parent = n
	}
	b.add(Neck, Spine2, s.centre(vecmath.Vec3{c, neckY, hips[2]}, 2), true)
	neck := b.pos[b.index[Neck]]
	b.add(Head, Neck, vecmath.Vec3{c, headY, neck[2]}, true)
	b.add(headTopEnd, Head, s.centre(vecmath.Vec3{c, top, hips[2]}, 2), true)
	for i, sd := range sides {
		fitArm(s, b, sd, arms[i], limbs.fromShape[1])
		legs[i].add(b, sd, H)
	}
	addFingers(s, b, arms)
	return b
}

// pelvis returns the Hips position: on the symmetry plane just above the crotch
// (the lowest point of the plane inside the mesh, above the feet), in the middle
// of the body front to back.
func (s *shape) pelvis() vecmath.Vec3 {
	H, y0 := s.height(), s.lo[1]
	crotch := y0 + 0.45*H
	for y := y0 + 0.15*H; y < y0+0.75*H; y += 0.005 * H {
		if _, _, ok := s.run(vecmath.Vec3{s.mid, y, (s.lo[2] + s.hi[2]) / 2}, 2); ok {
			crotch = y
			break
		}
	}
	q := vecmath.Vec3{s.mid, crotch + 0.05*H, (s.lo[2] + s.hi[2]) / 2}
	return s.centre(q, 2)
}

// narrowest returns the neck's height between y0 and y1: going up from the
// shoulders, where the body is thinnest across before it widens into the head.
// When it never widens (a helmet or a dome sitting on the shoulders, no neck), it
// is where the width drops the most, by a fifth or more (the shoulders' edge), or
// else the thinnest in the lower 60% of the way.
func (s *shape) narrowest(x, y0, y1 float64) float64 {
	width := func(y float64) (float64, bool) { return s.widthAt(x, y) }
	best, bestW := y0+0.3*(y1-y0), math.Inf(1)
	drop, dropRatio, prevW := best, 0.8, math.Inf(1)
	// below is the widest section from y0 up, under is the widest under best.
	below, under := 0.0, 0.0
	if w, ok := width(y0); ok {
		below = w
	}
	for k := 1; k <= 24; k++ {
		y := y0 + 0.6*(y1-y0)*float64(k)/24
		w, ok := width(y)
		if !ok {
			continue
		}
		if w < bestW {
			best, bestW, under = y, w, below
		} else if w > 1.15*bestW && bestW <= neckShare*under {
			return best
		}
		below = math.Max(below, w)
		if w/prevW < dropRatio {
			drop, dropRatio = y, w/prevW
		}
		prevW = w
	}
	if dropRatio < 0.8 {
		return drop
	}
	return best
}

// widthAt is the body's width across at height y, through the middle of its
// depth, of the run of solid that holds (or lies nearest) x, centred front to
// back there first.
func (s *shape) widthAt(x, y float64) (float64, bool) {
	lo, hi, ok := s.run(s.centre(vecmath.Vec3{x, y, (s.lo[2] + s.hi[2]) / 2}, 2), 0)
	return hi - lo, ok
}

// neckShare is the widest a neck is, as a share of the body's widest section
// below it, from where narrowest starts (narrowest): narrower than that, a body
// widening above it is a head; no narrower, the notch between the torso and the
// arms pressed against it, or the chest under the shoulders, with the shoulders
// above.
const neckShare = 0.6

// limbRoute returns the part of a route (from the body to a limb's tip) beyond the
// last point within reach of the symmetry plane, starting with the crossing there,
// and extends the end to the mesh's surface.
func limbRoute(s *shape, route []vecmath.Vec3, reach float64) []vecmath.Vec3 {
	k := 0
	for i, p := range route {
		if math.Abs(p[0]-s.mid) < reach {
			k = i
		}
	}
	out := route[k:]
	if k+1 < len(route) {
		a, b := route[k], route[k+1]
		side := math.Copysign(1, b[0]-s.mid)
		if a[0] != b[0] {
			x := s.mid + side*reach
			if t := (x - a[0]) / (b[0] - a[0]); t > 0 && t < 1 {
				out = append([]vecmath.Vec3{a.Lerp(b, t)}, route[k+1:]...)
			}
		}
	}
	return extendToSurface(s, out)
}

// extendToSurface appends the point where the polyline's last direction leaves the
// mesh (the proposed skeleton ends a band short of a limb's tip).
func extendToSurface(s *shape, pl []vecmath.Vec3) []vecmath.Vec3 {
	n := len(pl)
	if n < 2 {
		return pl
	}
	d := pl[n-1].Sub(pl[n-2]).Normalize()
	step := 0.005 * s.size()
	end := pl[n-1]
	for k := 1; k < 100 && s.inside(end.Add(d.Scale(step))); k++ {
		end = end.Add(d.Scale(step))
	}
	return append(append([]vecmath.Vec3(nil), pl...), end)
}

// centreArm re-centres an arm route in the mesh. The proposed skeleton's joints lie
// inside the mesh, but its straight bones can cut under a T-posed arm from a
// junction low in the torso. Points from 15% to 90% of the way that run sideways
// move to the middle of the arm vertically and front to back (a vertical run
// longer than a quarter of the height crosses the torso and is left alone); the
// start, at the torso's edge, takes the height of the line through the first two
// of them. A hanging arm keeps its route.
func centreArm(s *shape, route []vecmath.Vec3) []vecmath.Vec3 {
	n := len(route)
	if n < 2 {
		return route
	}
	var mid []vecmath.Vec3
	for k := 0; k <= 6; k++ {
		f := 0.15 + 0.75*float64(k)/6
		p := atFraction(route, f)
		d := atFraction(route, f+0.05).Sub(atFraction(route, f-0.05))
		if math.Abs(d[1]) >= math.Abs(d[0]) {
			continue
		}
		lo, hi, ok := s.run(p, 1)
		if !ok || hi-lo > 0.25*s.height() {
			continue
		}
		p[1] = (lo + hi) / 2
		mid = append(mid, s.centre(p, 2))
	}
	if len(mid) < 2 {
		return route
	}
	start := route[0]
	if a, b := mid[0], mid[1]; math.Abs(b[0]-a[0]) > math.Abs(b[1]-a[1]) {
		start[1] = a[1] + (start[0]-a[0])/(b[0]-a[0])*(b[1]-a[1])
	}
	return append(append([]vecmath.Vec3{start}, mid...), route[n-1])
}

// hangArm re-routes an arm whose route enters the torso far below the armpit: an
// arm hanging beside the body, which the proposed skeleton joins to the torso at
// the hips. The arm is followed up from the hand's end point through the middle of
// its cross-section to the armpit, the lowest height where it meets the torso; when
// that is more than a tenth of the height above the route's start, the shoulder is
// a twentieth of the height above the armpit. The route keeps its part beyond the
// hand.
func hangArm(s *shape, route []vecmath.Vec3, hand vecmath.Vec3) []vecmath.Vec3 {
	H := s.height()
	if len(route) < 2 {
		return route
	}
	var up []vecmath.Vec3
	q := hand
	for y := hand[1]; y < s.hi[1]; y += 0.01 * H {
		q[1] = y
		lo, hi, ok := s.run(q, 0)
		if !ok {
			return route
		}
		if lo <= s.mid && s.mid <= hi {
			if y < route[0][1]+0.1*H {
				return route
			}
			shoulder := vecmath.Vec3{q[0], math.Min(y+0.05*H, s.hi[1]), q[2]}
			out := []vecmath.Vec3{shoulder}
			for k := len(up) - 1; k >= 0; k -= 4 {
				out = append(out, up[k])
			}
			_, k, _ := closest(route, hand)
			return append(append(out, hand), route[k+1:]...)
		}
		q[0] = (lo + hi) / 2
		q = s.centre(q, 2)
		up = append(up, q)
	}
	return route
}

// closest returns the point of pl nearest to q, its distance and index.
func closest(pl []vecmath.Vec3, q vecmath.Vec3) (vecmath.Vec3, int, float64) {
	best, bestD := 0, math.Inf(1)
	for i, p := range pl {
		if d := p.Dist(q); d < bestD {
			best, bestD = i, d
		}
	}
	return pl[best], best, bestD
}

// balanceArms cuts an arm route more than a quarter longer than the other one to
// the other's length: on a mesh that does not mirror, the hand holds something (a
// pistol, a sword) that the route runs on into.
func balanceArms(arms *[2][]vecmath.Vec3) {
	l0, l1 := arcLength(arms[0]), arcLength(arms[1])
	long, short := 0, l1
	if l1 > l0 {
		long, short = 1, l0
	}
	if l := arcLength(arms[long]); l > 1.25*short {
		arms[long] = cutAt(arms[long], short)
	}
}

// cutAt returns the polyline up to arc length l.
func cutAt(pl []vecmath.Vec3, l float64) []vecmath.Vec3 {
	out := []vecmath.Vec3{pl[0]}
	for i := 1; i < len(pl); i++ {
		d := pl[i].Dist(pl[i-1])
		if d >= l {
			return append(out, pl[i-1].Lerp(pl[i], l/d))
		}
		l -= d
		out = append(out, pl[i])
	}
	return out
}

// fitArm places the clavicle, shoulder, elbow and wrist along an arm route (from
// the shoulder or the torso's edge to the tip of the hand) at human proportions:
// upper arm 42%, forearm 33%, hand 25% of the shoulder-to-fingertip length.
// A route from the body's slices starts at the shoulder joint.
func fitArm(s *shape, b *build, side int, route []vecmath.Vec3, fromSlices bool) {
	// The shoulder joint of a proposal's route is where it leaves the torso, at the
	// height the arm has a little farther out (the route may enter the torso high,
	// near the neck, where the proposed skeleton branches).
	shoulder := route[0]
	if p, _, ok := crossing(route, 0, s.mid+1.75*(shoulder[0]-s.mid)); ok && !fromSlices {
		shoulder[1] = math.Min(shoulder[1], p[1])
	}
	clav := vecmath.Vec3{s.mid + 0.35*(shoulder[0]-s.mid), shoulder[1], shoulder[2]}
	b.add(Side(side, Shoulder), Spine2, s.centre(clav, 2), false)
	b.add(Side(side, Arm), Side(side, Shoulder), shoulder, false)
	b.add(Side(side, ForeArm), Side(side, Arm), atFraction(route, 0.42), false)
	b.add(Side(side, Hand), Side(side, ForeArm), atFraction(route, 0.75), false)
}

// leg is a leg's joints: hip, knee, ankle, ball of the foot and toe tip.
type leg struct{ hip, knee, ankle, ball, tip vecmath.Vec3 }

// fitLeg places a leg's joints: the hip beside the pelvis, the knee and ankle where
// the leg's route (from the foot) reaches their heights, the toes forward of the
// ankle to the front of the foot.
func fitLeg(s *shape, side int, route []vecmath.Vec3, hips vecmath.Vec3, hw, y0, H float64) leg {
	y0 = sole(route, y0, H)
	hip := vecmath.Vec3{s.mid + float64(side)*0.5*hw, hips[1] - 0.04*H, hips[2]}
	ankleY := y0 + 0.045*H
	kneeY := (hip[1] + ankleY) / 2
	onSide := func(q vecmath.Vec3) bool { return float64(side)*(q[0]-s.mid) > 0 }
	ankle, _, ok := crossing(route, 1, ankleY)
	if !ok || !onSide(ankle) {
		ankle = vecmath.Vec3{hip[0], ankleY, hip[2]}
	}
	knee, _, ok := crossing(route, 1, kneeY)
	if !ok || !onSide(knee) {
		knee = hip.Lerp(ankle, 0.5)
	}
	knee = s.centreSide(knee, side)
	ankle = s.centreSide(ankle, side)
	out := math.Abs(knee[0] - s.mid)
	if out > hw {
		// Legs set outside the pelvis (a mech, a cartoon) hang from the top of
		// their upright part, over the knee, and may bend far from the straight
		// line (a bird-legged walker).
		up := upright(route, s.mid, 0.75*out, hips[1])
		hip[0] = s.mid + float64(side)*0.9*out
		for _, p := range up {
			hip[1] = math.Max(hip[1], p[1])
		}
		if k, ok := bend(up, hip, ankle, 0.15); ok {
			knee = s.kneeAtFront(route, k, hip, ankle)
		}
	} else {
		hip[0] = s.mid + float64(side)*math.Max(0.5*hw, 0.9*out)
	}
	l := leg{hip: hip, knee: knee, ankle: ankle, ball: ankle, tip: ankle}
	if _, hi, ok := s.run(vecmath.Vec3{ankle[0], y0 + 0.02*H, ankle[2]}, 2); ok && hi > ankle[2] {
		l.tip = vecmath.Vec3{ankle[0], y0 + 0.02*H, hi}
		l.ball = vecmath.Vec3{ankle[0], y0 + 0.025*H, ankle[2] + 0.65*(hi-ankle[2])}
	}
	return l
}

// sole is the height a leg stands on: the mesh's bottom y0, or the leg route's
// lowest point when that lies more than 3% of the height H higher (a rifle held
// low, a tail or a cape reaching below the feet).
func sole(route []vecmath.Vec3, y0, H float64) float64 {
	if len(route) == 0 {
		return y0
	}
	low := route[0][1]
	for _, p := range route {
		low = math.Min(low, p[1])
	}
	if low-y0 > 0.03*H {
		return low - 0.005*H
	}
	return y0
}

// centreSide centres q across (x) in its inside run clipped at the symmetry plane
// on the given side (legs pressed together form one run), then front to back.
func (s *shape) centreSide(q vecmath.Vec3, side int) vecmath.Vec3 {
	if lo, hi, ok := s.run(q, 0); ok {
		if side > 0 {
			lo = math.Max(lo, s.mid)
		} else {
			hi = math.Min(hi, s.mid)
		}
		if hi > lo {
			q[0] = (lo + hi) / 2
		}
	}
	return s.centre(q, 2)
}

// add adds the leg's joints under Hips; the toes only when the foot reaches
// forward of the ankle.
func (l leg) add(b *build, side int, H float64) {
	b.add(Side(side, UpLeg), Hips, l.hip, false)
	b.add(Side(side, Leg), Side(side, UpLeg), l.knee, false)
	b.add(Side(side, Foot), Side(side, Leg), l.ankle, false)
	if l.ball.Dist(l.ankle) > 0.01*H {
		b.add(Side(side, ToeBase), Side(side, Foot), l.ball, false)
		b.add(Side(side, toeEnd), Side(side, ToeBase), l.tip, false)
	}
}

// upright returns the part of a leg's route (from the foot) before it first comes
// within reach of the symmetry plane at x = mid: the leg below where it joins the
// body. A part whose last point lies below the pelvis at y = pelvis ends where
// the route's next segment crosses into reach: a route that leaves the leg for
// the body's middle at the knee (a fused mech, whose thigh the classical skeleton
// skips) still reaches its hip.
func upright(route []vecmath.Vec3, mid, reach, pelvis float64) []vecmath.Vec3 {
	for i, p := range route {
		d := math.Abs(p[0] - mid)
		if d >= reach {
			continue
		}
		if i == 0 || route[i-1][1] >= pelvis {
			return route[:i]
		}
		q := route[i-1]
		dq := math.Abs(q[0] - mid)
		up := append([]vecmath.Vec3(nil), route[:i]...)
		return append(up, q.Lerp(p, (dq-reach)/(dq-d)))
	}
	return route
}

// kneeAtFront moves the bend k of a leg that bends far from the line between hip
// and ankle (a bird-legged walker's knee, forward of both) to where that line
// is farthest from the leg's surface on the bend's side, front or back, a leg's
// radius in from it. Horizontal slices cut the thigh slanting up from such a
// knee lengthwise, so their centres lie behind the knee, and the route's bend
// sits low on the shin. The radius is half the leg's depth over the lower half
// of the route below k.
func (s *shape) kneeAtFront(route []vecmath.Vec3, k, hip, ankle vecmath.Vec3) vecmath.Vec3 {
	lineZ := func(y float64) float64 { return ankle[2] + (hip[2]-ankle[2])*(y-ankle[1])/(hip[1]-ankle[1]) }
	sd := math.Copysign(1, k[2]-lineZ(k[1]))
	var depths []float64
	for _, p := range route {
		if p[1] > ankle[1] && p[1] < (ankle[1]+k[1])/2 {
			if lo, hi, ok := s.run(p, 2); ok {
				depths = append(depths, hi-lo)
			}
		}
	}
	if len(depths) == 0 {
		return k
	}
	sort.Float64s(depths)
	r := depths[len(depths)/2] / 2
	best, bestD := k, sd*(k[2]-lineZ(k[1]))+r
	const levels = 48
	for i := 1; i < levels; i++ {
		y := ankle[1] + (hip[1]-ankle[1])*float64(i)/levels
		q := vecmath.Vec3{k[0], y, k[2]}
		lo, hi, ok := s.run(q, 2)
		if !ok {
			continue
		}
		front := hi
		if sd < 0 {
			front = lo
		}
		if d := sd * (front - lineZ(y)); d > bestD {
			best, bestD = vecmath.Vec3{k[0], y, front - sd*r}, d
		}
	}
	return best
}

// bend returns the point of a leg's route between the heights of ankle and hip
// farthest from the straight line between them, when it lies farther than share
// of the leg's length (ok false for a straight leg).
func bend(route []vecmath.Vec3, hip, ankle vecmath.Vec3, share float64) (vecmath.Vec3, bool) {
	axis := hip.Sub(ankle)
	l := axis.Len()
	if l == 0 {
		return vecmath.Vec3{}, false
	}
	axis = axis.Scale(1 / l)
	best, bestD := vecmath.Vec3{}, share*l
	ok := false
	for _, p := range route {
		if p[1] <= ankle[1] || p[1] >= hip[1] {
			continue
		}
		v := p.Sub(ankle)
		if d := v.Sub(axis.Scale(v.Dot(axis))).Len(); d > bestD {
			best, bestD, ok = p, d, true
		}
	}
	return best, ok
}
