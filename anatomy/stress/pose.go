package stress

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
)

// overlap is how far past the contact (share of the height) a pressed limb goes,
// so that the surfaces meet rather than leave a hair's gap the voxels of a fit
// still resolve.
const overlap = 0.002

// maxSamples caps the vertices a contact search turns per step.
const maxSamples = 3000

// legTurnLimit caps how far a leg turns toward the plane (a splayed leg that
// would need more stays short of it).
const legTurnLimit = 40 * math.Pi / 180

// pressLegs turns the legs about the forward axis toward the mirror plane until the
// lower three quarters of each reach it: the legs touch. A body whose artist
// joints name the upper legs is a biped (its two upper legs turn about the hip
// joints); any other is a quadruped whose four legs are found in the skeleton's
// shape (findQuadLegs).
func pressLegs(c *character.Character) error {
	b, err := newBody(c)
	if err != nil {
		q, qerr := findQuadLegs(c)
		if qerr != nil {
			return fmt.Errorf("no legs to press: %v; %w", err, qerr)
		}
		return q.press()
	}
	legs := [2]int{b.joint[anatomy.Side(1, anatomy.UpLeg)], b.joint[anatomy.Side(-1, anatomy.UpLeg)]}
	floor := b.floorBones(legs)
	turns := map[int]vecmath.Mat4{}
	for i, sd := range []int{1, -1} {
		t, _, err := b.legTurn(legs[i], floor[i], legTurnLimit, false)
		if err != nil {
			return fmt.Errorf("the %s: %w", anatomy.Side(sd, "leg"), err)
		}
		turns[legs[i]] = t
		for _, f := range floor[i] {
			turns[f] = t
		}
	}
	b.pose(turns)
	return nil
}

// floorBones returns the bones outside both legs that turn with the left
// (first) and the right leg: every child of a root on the floor whose subtree
// lies on the floor beside the plane, such as a foot weighted to an IK bone or
// an unweighted IK target, as Quaternius' mechs have them. Left behind, such a
// foot would stay apart while its leg presses in, and the artist's foot joint
// with it.
func (b *body) floorBones(legs [2]int) [2][]int {
	sk := b.c.Skeleton
	low := b.floor + 0.2*b.height()
	var out [2][]int
	for top, p := range sk.Parents {
		if p < 0 || sk.Parents[p] >= 0 || sk.Position(p).Dot(b.up) >= low || b.holdsLeg(top, legs) {
			continue
		}
		onFloor := true
		for k, in := range b.subtree(top) {
			onFloor = onFloor && (!in || sk.Position(k).Dot(b.up) < low)
		}
		off := sk.Position(top).Dot(b.side) - b.mid
		if !onFloor || math.Abs(off) < 0.01*b.height() {
			continue
		}
		i := 0
		if off < 0 {
			i = 1
		}
		out[i] = append(out[i], top)
	}
	return out
}

// holdsLeg reports whether joint j's subtree holds either leg's top, or j lies
// in a leg's subtree (then it turns with that leg already).
func (b *body) holdsLeg(j int, legs [2]int) bool {
	in := b.subtree(j)
	for _, l := range legs {
		if in[l] || b.subtree(l)[j] {
			return true
		}
	}
	return false
}

// legTurn returns the turn about the forward axis through joint j that brings the
// leg hanging from it to the mirror plane: its vertices below the top fifth of the
// way from j to the floor reach the plane (overlap past it), or as near as a turn
// of at most limit gets them; it returns the turn and its angle. The joints of
// extra's subtrees turn with the leg (a foot weighted to a bone outside it). With
// blended, each vertex moves as linear blend skinning moves it, by the turn times
// its weight on the turning joints (a thigh vertex shared with the body stops
// short of where the bone takes it); without, as the bone moves (the biped stress
// sets of docs/anatomy.md are made so).
func (b *body) legTurn(j int, extra []int, limit float64, blended bool) (vecmath.Mat4, float64, error) {
	turning := append([]bool(nil), b.subtree(j)...)
	for _, e := range extra {
		for k, in := range b.subtree(e) {
			turning[k] = turning[k] || in
		}
	}
	pivot := b.c.Skeleton.Position(j)
	reach := pivot.Dot(b.up) - 0.2*(pivot.Dot(b.up)-b.floor)
	var pts []vecmath.Vec3
	var share []float64
	for v, d := range b.dominant {
		if p := b.c.Mesh.Positions[v]; d >= 0 && turning[d] && p.Dot(b.up) < reach {
			pts = append(pts, p)
			share = append(share, weightOn(b.c.Skin.Weights[v], turning))
			if !blended {
				share[len(share)-1] = 1
			}
		}
	}
	if len(pts) == 0 {
		return vecmath.Mat4{}, 0, fmt.Errorf("no vertices on the leg below joint %s", b.c.Skeleton.Names[j])
	}
	pts, share = thin(pts), thinFloats(share)
	ctr := centroid(pts)
	s := b.sideOf(ctr)
	dir := b.towardPlane(pivot, ctr)
	gap := func(a float64) float64 {
		t, g := b.turn(pivot, dir*a), math.Inf(1)
		for i, p := range pts {
			q := p.Lerp(t.Point(p), share[i])
			g = math.Min(g, s*(q.Dot(b.side)-b.mid))
		}
		return g
	}
	a := solveDecreasing(gap, -overlap*b.height(), limit)
	return b.turn(pivot, dir*a), a, nil
}

// weightOn is the share of a vertex's weights on the marked joints.
func weightOn(ws []character.Influence, on []bool) float64 {
	sum, all := 0.0, 0.0
	for _, w := range ws {
		all += w.Weight
		if on[w.Joint] {
			sum += w.Weight
		}
	}
	if all == 0 {
		return 0
	}
	return sum / all
}

// lowerArms turns each upper arm about the forward axis through its shoulder joint
// to 45° below horizontal (the line from the shoulder to the arm's centroid), and
// with untilContact on down in degree steps until the forearm or hand meets the
// body beside it (or the arm hangs 88° down).
func lowerArms(c *character.Character, untilContact bool) error {
	b, err := newBody(c)
	if err != nil {
		return err
	}
	arms := map[int][]int{}
	for _, sd := range []int{1, -1} {
		j, ok := b.joint[anatomy.Side(sd, anatomy.Arm)]
		if !ok {
			return fmt.Errorf("no artist joint named as the %s", anatomy.Side(sd, anatomy.Arm))
		}
		if arms[j] = b.vertices(j); len(arms[j]) == 0 {
			return fmt.Errorf("no vertices on the %s", anatomy.Side(sd, anatomy.Arm))
		}
	}
	turns := map[int]vecmath.Mat4{}
	for j, vs := range arms {
		pivot := c.Skeleton.Position(j)
		pts := make([]vecmath.Vec3, len(vs))
		for i, v := range vs {
			pts[i] = c.Mesh.Positions[v]
		}
		ctr := centroid(pts)
		d := ctr.Sub(pivot)
		elev := math.Atan2(d.Dot(b.up), math.Abs(d.Dot(b.side)))
		dir := 1.0
		if b.turn(pivot, 0.01).Point(ctr).Dot(b.up) > ctr.Dot(b.up) {
			dir = -1
		}
		a := elev + math.Pi/4
		if untilContact {
			a = b.untilContact(pivot, dir, a, elev+88*math.Pi/180, farPart(pts, pivot), arms)
		}
		turns[j] = b.turn(pivot, dir*a)
	}
	b.pose(turns)
	return nil
}

// untilContact turns pts about pivot (dir·angle) from angle a0 in degree steps up to
// a1 and returns the first angle at which one of them lies within the body's
// outline beside it: in a band of 1% of the height, no farther out than the body's
// outermost vertex on that side and between its front and back. The body is every
// vertex not on an arm.
func (b *body) untilContact(pivot vecmath.Vec3, dir, a0, a1 float64, pts []vecmath.Vec3, arms map[int][]int) float64 {
	const bands = 100
	H := b.height()
	s := b.sideOf(pivot)
	onArm := make([]bool, len(b.c.Mesh.Positions))
	for _, vs := range arms {
		for _, v := range vs {
			onArm[v] = true
		}
	}
	out := make([]float64, bands)
	front, back := make([]float64, bands), make([]float64, bands)
	for k := range out {
		out[k], front[k], back[k] = math.Inf(-1), math.Inf(-1), math.Inf(1)
	}
	band := func(p vecmath.Vec3) int {
		return min(bands-1, max(0, int((p.Dot(b.up)-b.floor)/H*bands)))
	}
	for v, p := range b.c.Mesh.Positions {
		if off := s * (p.Dot(b.side) - b.mid); !onArm[v] && off > 0 {
			k := band(p)
			out[k] = math.Max(out[k], off)
			front[k], back[k] = math.Max(front[k], p.Dot(b.fwd)), math.Min(back[k], p.Dot(b.fwd))
		}
	}
	step := math.Pi / 180
	for a := a0; a < a1; a += step {
		t := b.turn(pivot, dir*a)
		for _, p := range pts {
			q := t.Point(p)
			k := band(q)
			f := q.Dot(b.fwd)
			if s*(q.Dot(b.side)-b.mid) <= out[k]+overlap*H && f <= front[k] && f >= back[k] {
				return a
			}
		}
	}
	return a1
}

// farPart keeps the points beyond 35% of the farthest one's distance from pivot
// (the forearm and hand; the armpit touches the torso in any pose), thinned.
func farPart(pts []vecmath.Vec3, pivot vecmath.Vec3) []vecmath.Vec3 {
	far := 0.0
	for _, p := range pts {
		far = math.Max(far, p.Dist(pivot))
	}
	var out []vecmath.Vec3
	for _, p := range pts {
		if p.Dist(pivot) > 0.35*far {
			out = append(out, p)
		}
	}
	return thin(out)
}

// solveDecreasing returns the angle in [0, hi] where the decreasing function f
// reaches target (0 when f(0) is already there, hi when f never gets there).
func solveDecreasing(f func(float64) float64, target, hi float64) float64 {
	if f(0) <= target {
		return 0
	}
	if f(hi) > target {
		return hi
	}
	lo := 0.0
	for k := 0; k < 30; k++ {
		m := (lo + hi) / 2
		if f(m) > target {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// thinFloats keeps the values thin keeps of as many points.
func thinFloats(xs []float64) []float64 {
	if len(xs) <= maxSamples {
		return xs
	}
	stride := (len(xs) + maxSamples - 1) / maxSamples
	out := make([]float64, 0, maxSamples)
	for i := 0; i < len(xs); i += stride {
		out = append(out, xs[i])
	}
	return out
}

// thin keeps at most maxSamples points, evenly strided.
func thin(pts []vecmath.Vec3) []vecmath.Vec3 {
	if len(pts) <= maxSamples {
		return pts
	}
	stride := (len(pts) + maxSamples - 1) / maxSamples
	out := make([]vecmath.Vec3, 0, maxSamples)
	for i := 0; i < len(pts); i += stride {
		out = append(out, pts[i])
	}
	return out
}

func centroid(pts []vecmath.Vec3) vecmath.Vec3 {
	var c vecmath.Vec3
	for _, p := range pts {
		c = c.Add(p)
	}
	return c.Scale(1 / float64(len(pts)))
}
