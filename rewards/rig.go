package rewards

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// rig is a character's skeleton and skin moved into the normalized cube and cleaned
// for scoring: invalid influences are dropped (and counted), weights renormalized.
type rig struct {
	rigJoints
	rigSkin
	movingSkeleton
	fatal []string // problems that make the rig unscorable (score 0)
}

// rigJoints is the skeleton in the normalized cube.
type rigJoints struct {
	names    []string
	parents  []int
	pos      []vecmath.Vec3 // joint positions, cube units
	skel     *character.Skeleton
	children [][]int
}

// rigSkin is the cleaned skin: every vertex's usable influences, normalized, and the
// vertices whose weights were unusable with the count of each reason.
type rigSkin struct {
	skin       [][]character.Influence
	numVerts   int
	badVerts   []int
	badReasons map[string]int
}

// movingSkeleton is the part of the skeleton that moves this mesh.
type movingSkeleton struct {
	// segs is the moving skeleton: for every joint that carries weight, its bones to
	// the children that lead to a joint moving some vertex (the heaviest influence of
	// at least one vertex, the child itself or a descendant), or its own point when
	// no child does. Bones of weightless joints and bones toward weightless or merely
	// passenger joints (a wearer's legs under a blanket, end joints, helpers that only
	// ever take a minor share of a vertex) are left out: they move nothing of this
	// mesh, so adding them can neither help nor hurt the rewards computed on segs, and
	// a sliver of weight on a joint cannot stretch its parent's bones anywhere.
	segs  []segment
	owned [][]int // owned[j]: indices of joint j's segments (none for a weightless joint)
	// mass[j] is the sum over vertices of joint j's (cleaned, normalized) weight: how
	// much of this mesh j moves. Joints of mass 0 (a wearer's legs under a blanket,
	// helper and end joints) move nothing here.
	mass      []float64
	totalMass float64
	// moves[j]: joint j is the heaviest influence (ties included) of some vertex.
	moves []bool
	// reach is segs with leaf joints' points drawn as bones (leaf.go), made once
	// per rig by Prepared.bones for coverage and limbs.
	reach []segment
}

// segment is a bone: the stretch from a joint to one of its children (owner is the
// parent joint, which moves it), or the point of a joint with no children.
type segment struct {
	a, b  vecmath.Vec3
	owner int
	child int          // -1 for a point
	ab    vecmath.Vec3 // b - a
	inv   float64      // 1/|ab|², 0 for a point
}

func newSegment(a, b vecmath.Vec3, owner, child int) segment {
	s := segment{a: a, b: b, owner: owner, child: child, ab: b.Sub(a)}
	if l2 := s.ab.Dot(s.ab); l2 > 0 {
		s.inv = 1 / l2
	}
	return s
}

// dist2 returns the squared distance from p to the segment. It differs from
// assets.SegmentDist on purpose: it runs once per vertex per bone in every reward,
// so it multiplies by the reciprocal cached in newSegment and skips the square root
// (and so rounds differently in the last bit).
func (s *segment) dist2(p vecmath.Vec3) float64 {
	px, py, pz := p[0]-s.a[0], p[1]-s.a[1], p[2]-s.a[2]
	t := (px*s.ab[0] + py*s.ab[1] + pz*s.ab[2]) * s.inv
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	dx, dy, dz := px-t*s.ab[0], py-t*s.ab[1], pz-t*s.ab[2]
	return dx*dx + dy*dy + dz*dz
}

func (s segment) length() float64 { return s.a.Dist(s.b) }

func newRig(c *character.Character, norm character.Normalization, opt Options) *rig {
	r := &rig{rigSkin: rigSkin{badReasons: map[string]int{}, numVerts: len(c.Mesh.Positions)}}
	sk := c.Skeleton
	if sk == nil || sk.NumJoints() == 0 {
		r.fatal = append(r.fatal, "no skeleton")
		return r
	}
	n := sk.NumJoints()
	if n > opt.MaxJoints {
		r.fatal = append(r.fatal, fmt.Sprintf("%d joints, above the limit of %d", n, opt.MaxJoints))
		return r
	}
	if len(sk.Parents) != n || len(sk.BindWorld) != n {
		r.fatal = append(r.fatal, fmt.Sprintf("skeleton arrays disagree: %d names, %d parents, %d bind matrices", n, len(sk.Parents), len(sk.BindWorld)))
		return r
	}
	if !r.readSkeleton(sk, norm) {
		return r
	}
	if c.Skin == nil {
		r.fatal = append(r.fatal, "no skin weights")
		return r
	}
	r.readSkin(c.Skin, n)
	r.buildSegments(n)
	return r
}

// readSkeleton copies the skeleton into the normalized frame, checking each joint
// (parents first, finite and invertible bind matrices); it reports false, with the
// reason in r.fatal, at the first bad joint.
func (r *rig) readSkeleton(sk *character.Skeleton, norm character.Normalization) bool {
	n := sk.NumJoints()
	r.names = sk.Names
	r.parents = sk.Parents
	r.pos = make([]vecmath.Vec3, n)
	r.skel = &character.Skeleton{Names: sk.Names, Parents: sk.Parents, BindWorld: make([]vecmath.Mat4, n)}
	for j := 0; j < n; j++ {
		p := sk.Parents[j]
		if p < -1 || p >= j {
			r.fatal = append(r.fatal, fmt.Sprintf("joint %d (%s) has parent %d; parents must precede children", j, sk.Names[j], p))
			return false
		}
		b := sk.BindWorld[j]
		if !b.IsFinite() {
			r.fatal = append(r.fatal, fmt.Sprintf("joint %d (%s) has a non-finite bind matrix", j, sk.Names[j]))
			return false
		}
		if _, ok := b.Inverse(); !ok {
			r.fatal = append(r.fatal, fmt.Sprintf("joint %d (%s) has a singular bind matrix", j, sk.Names[j]))
			return false
		}
		r.pos[j] = norm.Point(b.Translation())
		b[12], b[13], b[14] = r.pos[j][0], r.pos[j][1], r.pos[j][2]
		r.skel.BindWorld[j] = b
	}
	r.children = r.skel.Children()
	return true
}

// readSkin keeps each vertex's valid, positive influences renormalized to sum 1 (in
// one backing array), and records each bad vertex with its reason rather than
// failing: the rewards score a flawed skin, they do not refuse it.
func (r *rig) readSkin(skin *character.Skin, n int) {
	r.skin = make([][]character.Influence, r.numVerts)
	total := 0
	for v := 0; v < r.numVerts && v < len(skin.Weights); v++ {
		total += len(skin.Weights[v])
	}
	flat := make([]character.Influence, 0, total) // one backing array for every vertex's weights
	for v := 0; v < r.numVerts; v++ {
		var infl []character.Influence
		if v < len(skin.Weights) {
			infl = skin.Weights[v]
		}
		reason := ""
		first := len(flat)
		for _, in := range infl {
			switch {
			case in.Joint < 0 || in.Joint >= n:
				reason = "weight on a joint that does not exist"
			case math.IsNaN(in.Weight) || math.IsInf(in.Weight, 0) || in.Weight < 0:
				reason = "non-finite or negative weight"
			case in.Weight == 0:
			default:
				flat = append(flat, in)
			}
		}
		clean := flat[first:len(flat):len(flat)]
		if len(clean) == 0 {
			clean = nil
		}
		sum := character.NormalizeWeights(clean)
		if reason == "" && len(clean) == 0 {
			reason = "no weights (orphan)"
		}
		if reason == "" && math.Abs(sum-1) > 1e-3 {
			reason = "weights do not sum to 1"
		}
		if reason != "" {
			r.badVerts = append(r.badVerts, v)
			r.badReasons[reason]++
		}
		r.skin[v] = clean
	}
}

// buildSegments computes each joint's skin mass and whether it is some vertex's
// heaviest joint, then gives each joint with mass its bones: one segment per child
// whose subtree moves some vertex, or a point when there is none.
func (r *rig) buildSegments(n int) {
	r.mass = make([]float64, n)
	for _, ws := range r.skin {
		for _, in := range ws {
			r.mass[in.Joint] += in.Weight
			r.totalMass += in.Weight
		}
	}
	r.moves = make([]bool, n)
	for _, ws := range r.skin {
		heaviest := 0.0
		for _, in := range ws {
			heaviest = math.Max(heaviest, in.Weight)
		}
		for _, in := range ws {
			if in.Weight >= heaviest-1e-9 {
				r.moves[in.Joint] = true
			}
		}
	}
	leads := append([]bool(nil), r.moves...) // j or a descendant moves some vertex
	for j := n - 1; j > 0; j-- {
		if leads[j] && r.parents[j] >= 0 {
			leads[r.parents[j]] = true
		}
	}
	r.owned = make([][]int, n)
	for j := 0; j < n; j++ {
		if r.mass[j] <= 0 {
			continue
		}
		for _, ch := range r.children[j] {
			if leads[ch] {
				r.owned[j] = append(r.owned[j], len(r.segs))
				r.segs = append(r.segs, newSegment(r.pos[j], r.pos[ch], j, ch))
			}
		}
		if len(r.owned[j]) == 0 {
			r.owned[j] = append(r.owned[j], len(r.segs))
			r.segs = append(r.segs, newSegment(r.pos[j], r.pos[j], j, -1))
		}
	}
}

// nearestSegment returns the distance from p to the nearest of segs and its index.
func nearestSegment(segs []segment, p vecmath.Vec3) (float64, int) {
	best, bi := math.Inf(1), -1
	for i := range segs {
		if d := segs[i].dist2(p); d < best {
			best, bi = d, i
		}
	}
	return math.Sqrt(best), bi
}

// nearestBone returns the distance from p to the nearest bone segment and that
// segment's index.
func (r *rig) nearestBone(p vecmath.Vec3) (float64, int) {
	best, bi := math.Inf(1), -1
	for i := range r.segs {
		if d := r.segs[i].dist2(p); d < best {
			best, bi = d, i
		}
	}
	return math.Sqrt(best), bi
}

// jointDist returns the distance from p to the bones joint j moves, or to j itself
// for a weightless joint.
func (r *rig) jointDist(p vecmath.Vec3, j int) float64 {
	if len(r.owned[j]) == 0 {
		return p.Dist(r.pos[j])
	}
	best := math.Inf(1)
	for _, si := range r.owned[j] {
		if d := r.segs[si].dist2(p); d < best {
			best = d
		}
	}
	return math.Sqrt(best)
}

// near reports whether joints a and b are at most two bones apart in the skeleton
// (parent, grandparent, sibling, child, grandchild; roots count as siblings).
func (r *rig) near(a, b int) bool {
	if a < 0 || b < 0 || a >= len(r.parents) || b >= len(r.parents) {
		return false
	}
	pa, pb := r.parents[a], r.parents[b]
	if pa == b || pb == a || pa == pb {
		return true
	}
	return (pa >= 0 && r.parents[pa] == b) || (pb >= 0 && r.parents[pb] == a)
}
