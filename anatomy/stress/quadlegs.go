package stress

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
)

// A quadruped's legs are found from the artist's skeleton by geometry, never by
// name (each source names them its own way, some rigs are forests of one tree per
// leg, some weight the hooves to IK bones hung from a root on the floor): the
// weighted chain ends near the floor are the feet, paired left and right by the
// plane that mirrors the mesh best, and each leg's top is where its foot's path
// leaves the path to the other foot of its pair (hind pair at the pelvis, front
// pair at the chest).

const (
	// footReach: a foot's lowest vertex lies within this share of the height of
	// the floor (a shin whose hoof is weighted to a bone of its own reaches 0.3).
	footReach = 0.3
	// toeSpan: chain ends that meet within this share of the height of each, at
	// a joint within toeLevel of the floor, are one foot's toes.
	toeSpan  = 0.3
	toeLevel = 0.15
	// standReach: each leg's lowest vertex, its floor bones' included, lies
	// within this share of the height of the floor (a biped dinosaur's hands
	// hang low, but not to the floor).
	standReach = 0.05
	// maxFeet caps the candidate feet (the lowest ones) the pairing tries.
	maxFeet = 10
	// mirrorSamples is how many vertices the mirror error of a pairing reflects.
	mirrorSamples = 300
	// quadTurnLimit caps a quadruped leg's turn: a frog's or a dinosaur's legs
	// stand splayed farther out than a biped's.
	quadTurnLimit = 90 * math.Pi / 180
	// pressPasses bounds the passes of press.
	pressPasses = 3
)

// quadLegs is a four-legged body ready to pose: its frame (side across the legs'
// mirror plane) and per pair of legs the two top joints and the plane between them.
type quadLegs struct {
	b    *body
	feet [2][2]int          // the foot joint of each leg, by pair
	tops [2][2]int          // the joint each leg turns about, by pair
	mids [2]float64         // each pair's mirror plane: side·p = mid
	pos  [2][2]vecmath.Vec3 // each foot joint, projected on the level plane
	// floorBones are each leg's bones outside its top's subtree that turn
	// with it: a foot weighted to a bone hung from the root on the floor.
	floorBones [2][2][]int
}

// foot is one foot found at a chain end: its joint (the ends' meeting joint when
// it has toes) and its lowest vertex.
type foot struct {
	joint  int
	ground float64
}

// findQuadLegs finds the four legs of c's skeleton, or says why there are not four.
func findQuadLegs(c *character.Character) (*quadLegs, error) {
	b := baseBody(c)
	feet := b.feet()
	if len(feet) < 4 {
		return nil, fmt.Errorf("not four legs: %d chain ends reach within %.0f%% of the height of the floor", len(feet), footReach*100)
	}
	return b.pairFeet(feet)
}

// press turns each leg about the forward axis through its top joint until its
// lower part reaches its pair's mirror plane, and poses the body; again from the
// posed body while a pair is still apart (a vertex weighted to both legs moves
// with both turns, which one leg's prediction does not see), at most pressPasses
// times. A leg that no turn up to quadTurnLimit brings to the plane (its top
// farther out than the leg is long) is an error, and so are legs that all touch
// their plane already (the variant would be the file as it is).
func (q *quadLegs) press() error {
	for pass := 0; pass < pressPasses; pass++ {
		turns := map[int]vecmath.Mat4{}
		moved := false
		for i := range q.tops {
			q.b.mid = q.mids[i]
			for k, j := range q.tops[i] {
				t, a, err := q.b.legTurn(j, q.floorBones[i][k], quadTurnLimit, true)
				if err != nil {
					return err
				}
				if a >= quadTurnLimit {
					return fmt.Errorf("the leg from %s does not reach the plane turned by %.0f°", q.b.c.Skeleton.Names[j], quadTurnLimit*180/math.Pi)
				}
				moved = moved || a > 0
				turns[j] = t
				for _, f := range q.floorBones[i][k] {
					turns[f] = t
				}
			}
		}
		if !moved && pass == 0 {
			return errors.New("the legs touch already")
		}
		if !moved {
			return nil
		}
		q.b.pose(turns)
	}
	return nil
}

// feet returns the chain ends near the floor, toes of one foot joined: the
// weighted joints with no weighted joint below them whose lowest vertex lies within
// footReach of the floor, lowest first.
func (b *body) feet() []foot {
	sk := b.c.Skeleton
	lowest := make([]float64, len(sk.Names))
	for j := range lowest {
		lowest[j] = math.Inf(1)
	}
	for v, j := range b.dominant {
		if j >= 0 {
			lowest[j] = math.Min(lowest[j], b.c.Mesh.Positions[v].Dot(b.up))
		}
	}
	below := make([]bool, len(sk.Names)) // a weighted joint lies below
	for j := range sk.Names {
		if !math.IsInf(lowest[j], 1) {
			for p := sk.Parents[j]; p >= 0; p = sk.Parents[p] {
				below[p] = true
			}
		}
	}
	var ends []int
	for j := range sk.Names {
		if !below[j] && lowest[j] < b.floor+footReach*b.height() {
			ends = append(ends, j)
		}
	}
	return b.joinToes(ends, lowest)
}

// joinToes merges chain ends whose paths meet near the floor, within toeSpan of
// the height of both, into one foot at the joint where they meet: an ankle, never
// a root (IK bones hung from a root on the floor are one foot's each).
func (b *body) joinToes(ends []int, lowest []float64) []foot {
	var out []foot
	for _, e := range ends {
		merged := false
		for i := range out {
			l := b.lca(out[i].joint, e)
			H := b.height()
			if l >= 0 && b.c.Skeleton.Parents[l] >= 0 && b.c.Skeleton.Position(l).Dot(b.up) < b.floor+toeLevel*H && b.chain(out[i].joint, l) <= toeSpan*H && b.chain(e, l) <= toeSpan*H {
				out[i] = foot{joint: l, ground: math.Min(out[i].ground, lowest[e])}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, foot{joint: e, ground: lowest[e]})
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].ground < out[k].ground })
	return out
}

// lca returns the lowest common ancestor of joints a and c (a joint is its own
// ancestor), or -1 when they lie in different trees.
func (b *body) lca(a, c int) int {
	par := b.c.Skeleton.Parents
	anc := map[int]bool{}
	for j := a; j >= 0; j = par[j] {
		anc[j] = true
	}
	for j := c; j >= 0; j = par[j] {
		if anc[j] {
			return j
		}
	}
	return -1
}

// chain is the length of the bones from joint j up to its ancestor a.
func (b *body) chain(j, a int) float64 {
	sk := b.c.Skeleton
	d := 0.0
	for ; j != a && j >= 0; j = sk.Parents[j] {
		if p := sk.Parents[j]; p >= 0 {
			d += sk.Position(j).Dist(sk.Position(p))
		}
	}
	return d
}

// pairFeet chooses four of the feet and pairs them left and right: of every four
// of the lowest maxFeet and every way to pair them whose two pairs run parallel
// across the body (within 30°) with their middles on one plane and whose legs
// have tops (findTops) and stand on the floor (standing), the one whose plane
// mirrors the mesh best.
func (b *body) pairFeet(feet []foot) (*quadLegs, error) {
	feet = feet[:min(len(feet), maxFeet)]
	sample, pool := b.mirrorPoints()
	best, bestErr := (*quadLegs)(nil), math.Inf(1)
	why := errors.New("not four legs: no two pairs of feet near the floor mirror each other across one plane")
	n := len(feet)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				for l := k + 1; l < n; l++ {
					four := [4]int{feet[i].joint, feet[j].joint, feet[k].joint, feet[l].joint}
					for _, pr := range [3][4]int{{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}} {
						q, ok := b.tryPairs([2][2]int{{four[pr[0]], four[pr[1]]}, {four[pr[2]], four[pr[3]]}})
						if !ok {
							continue
						}
						if err := q.findTops(); err != nil {
							why = err
							continue
						}
						q.attachFloorBones(feet)
						if err := q.standing(); err != nil {
							why = err
							continue
						}
						if e := b.mirrorError(sample, pool); e < bestErr {
							best, bestErr = q, e
						}
					}
				}
			}
		}
	}
	if best == nil {
		return nil, why
	}
	best.b.setSide(best.side())
	return best, nil
}

// tryPairs checks that two pairs of feet can be a body's left and right legs
// (each pair apart, the pairs parallel within 30° and apart along the body, their
// middles within 0.1 of the height of one plane) and, when they can, sets b's frame
// to their plane.
func (b *body) tryPairs(pairs [2][2]int) (*quadLegs, bool) {
	H := b.height()
	q := &quadLegs{b: b, feet: pairs}
	var u [2]vecmath.Vec3
	for i, pr := range pairs {
		for k, j := range pr {
			p := b.c.Skeleton.Position(j)
			q.pos[i][k] = p.Sub(b.up.Scale(p.Dot(b.up)))
		}
		u[i] = q.pos[i][0].Sub(q.pos[i][1])
		if u[i].Len() < 0.02*H {
			return nil, false
		}
	}
	if u[0].Dot(u[1]) < 0 {
		q.pos[1][0], q.pos[1][1] = q.pos[1][1], q.pos[1][0]
		q.feet[1][0], q.feet[1][1] = q.feet[1][1], q.feet[1][0]
		u[1] = u[1].Scale(-1)
	}
	if u[0].Normalize().Dot(u[1].Normalize()) < math.Cos(30*math.Pi/180) {
		return nil, false
	}
	b.setSide(q.side())
	m0 := q.pos[0][0].Add(q.pos[0][1]).Scale(0.5)
	m1 := q.pos[1][0].Add(q.pos[1][1]).Scale(0.5)
	if math.Abs(m0.Sub(m1).Dot(b.side)) > 0.1*H || math.Abs(m0.Sub(m1).Dot(b.fwd)) < 0.05*H {
		return nil, false
	}
	b.mid = m0.Add(m1).Scale(0.5).Dot(b.side)
	return q, true
}

// side is the direction across the pairs, from the second foot of each to the
// first.
func (q *quadLegs) side() vecmath.Vec3 {
	return q.pos[0][0].Sub(q.pos[0][1]).Add(q.pos[1][0].Sub(q.pos[1][1]))
}

// mirrorPoints returns the vertices a mirror error reflects and the ones it looks
// for the nearest among, both evenly strided.
func (b *body) mirrorPoints() (sample, pool []vecmath.Vec3) {
	ps := b.c.Mesh.Positions
	stride := max(1, len(ps)/mirrorSamples)
	for i := 0; i < len(ps); i += stride {
		sample = append(sample, ps[i])
	}
	return sample, thin(ps)
}

// mirrorError is the mean distance from each sampled vertex's reflection across
// b's plane to the nearest pooled vertex, over the height.
func (b *body) mirrorError(sample, pool []vecmath.Vec3) float64 {
	sum := 0.0
	for _, p := range sample {
		r := p.Sub(b.side.Scale(2 * (p.Dot(b.side) - b.mid)))
		d := math.Inf(1)
		for _, o := range pool {
			d = math.Min(d, r.Sub(o).Dot(r.Sub(o)))
		}
		sum += math.Sqrt(d)
	}
	return sum / float64(len(sample)) / b.height()
}

// findTops sets each leg's top: the child, on the foot's path, of the joint its
// foot's path shares with the other foot of its pair (the root of the foot's tree
// when the two share none), and each pair's plane halfway between its tops. A top
// whose subtree holds another foot, or that stands less than a fifth of the height
// above the floor, is no leg's.
func (q *quadLegs) findTops() error {
	b, par := q.b, q.b.c.Skeleton.Parents
	for i, pr := range q.feet {
		for k, f := range pr {
			l := b.lca(f, pr[1-k])
			if l == f {
				return fmt.Errorf("not four legs: foot %s lies above its pair's other foot", b.c.Skeleton.Names[f])
			}
			top := f
			for par[top] != l {
				top = par[top]
			}
			q.tops[i][k] = top
		}
		q.mids[i] = b.c.Skeleton.Position(q.tops[i][0]).Add(b.c.Skeleton.Position(q.tops[i][1])).Scale(0.5).Dot(b.side)
	}
	for i, pr := range q.tops {
		for k, top := range pr {
			name := b.c.Skeleton.Names[top]
			if b.c.Skeleton.Position(top).Dot(b.up) < b.floor+0.2*b.height() {
				return fmt.Errorf("not four legs: the leg of foot %s starts at %s, near the floor", b.c.Skeleton.Names[q.feet[i][k]], name)
			}
			in := b.subtree(top)
			for i2, pr2 := range q.feet {
				for k2, f := range pr2 {
					if (i2 != i || k2 != k) && in[f] {
						return fmt.Errorf("not four legs: the leg from %s carries two feet", name)
					}
				}
			}
		}
	}
	return nil
}

// attachFloorBones hangs on each leg the feet left over that lie on the floor
// all the way up to their root (a hoof weighted to an IK bone hung from the root):
// the child of the root on such a foot's path turns with the leg whose foot is
// nearest.
func (q *quadLegs) attachFloorBones(feet []foot) {
	b, sk := q.b, q.b.c.Skeleton
	low := b.floor + 0.2*b.height()
	for _, f := range feet {
		j, onFloor := f.joint, true
		for ; sk.Parents[j] >= 0; j = sk.Parents[j] {
			onFloor = onFloor && sk.Position(j).Dot(b.up) < low
		}
		if j == f.joint || !onFloor || sk.Position(j).Dot(b.up) >= low {
			continue
		}
		top := f.joint
		for sk.Parents[top] != j {
			top = sk.Parents[top]
		}
		if q.holdsTop(top) {
			continue
		}
		bi, bk, bd := 0, 0, math.Inf(1)
		for i := range q.feet {
			for k, leg := range q.feet[i] {
				if d := sk.Position(leg).Dist(sk.Position(f.joint)); d < bd {
					bi, bk, bd = i, k, d
				}
			}
		}
		q.floorBones[bi][bk] = append(q.floorBones[bi][bk], top)
	}
}

// holdsTop reports whether joint j's subtree holds a leg's top or foot, or j
// lies in a leg's subtree (then it turns with that leg already).
func (q *quadLegs) holdsTop(j int) bool {
	in := q.b.subtree(j)
	for i := range q.tops {
		for k, top := range q.tops[i] {
			if in[top] || in[q.feet[i][k]] || q.b.subtree(top)[j] {
				return true
			}
		}
	}
	return false
}

// standing checks that each leg reaches the floor: its lowest vertex (of those
// whose heaviest joint is in the top's subtree or a floor bone's) within
// standReach of the height of it.
func (q *quadLegs) standing() error {
	b := q.b
	for i := range q.tops {
		for k, top := range q.tops[i] {
			turning := append([]int{top}, q.floorBones[i][k]...)
			low := math.Inf(1)
			for _, j := range turning {
				for _, v := range b.vertices(j) {
					low = math.Min(low, b.c.Mesh.Positions[v].Dot(b.up))
				}
			}
			if low > b.floor+standReach*b.height() {
				return fmt.Errorf("not four legs: the leg from %s ends %.0f%% of the height above the floor", b.c.Skeleton.Names[top], 100*(low-b.floor)/b.height())
			}
		}
	}
	return nil
}
