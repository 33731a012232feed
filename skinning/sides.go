package skinning

import (
	"cmp"
	"math"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// A mirror-symmetric skeleton has a left and a right copy of each limb, and an
// animator never lets the left leg move the right foot. Learned weights do not
// know that: where two mirrored parts touch (legs pressed together, arms
// against the hips), a token skin puts a few percent of each side's weight on
// the other side's bones (3.2% on a Quaternius space mech with its legs and
// feet pressed together, against 0.24% for heat and none in the artist's).
// MirrorSides hands such weight to the bone's mirror image.

// sideMargin is how far from the mirror plane, as a share of the skeleton's
// size, a vertex or a joint must lie to be on one side of it; sidePairing is
// how near to a joint's mirror image, as the same share, its partner must lie.
const (
	sideMargin  = 0.02
	sidePairing = 0.02
)

// sideNearer is how much nearer the mirror image's bone must lie to a vertex
// than the bone weighting it for the weight to cross: at 1 (any nearer) the
// held-out characters' skins moved both ways by up to 0.09 of deformation
// error; at 0.5 they stay within 0.03 while the pressed legs keep their gain.
const sideNearer = 0.5

// minSidePairs is the fewest mirrored joint pairs that make a skeleton two-sided.
const minSidePairs = 2

// SideReport says what MirrorSides changed.
type SideReport struct {
	// Axis is the mirror plane's normal (0, 1, 2: x, y, z), -1 when the skeleton
	// is not mirror-symmetric along any axis; Pairs the mirrored joint pairs.
	Axis  int `json:"axis"`
	Pairs int `json:"pairs"`
	// Moved is the weight handed across, summed over vertices (a vertex's
	// weights sum to 1).
	Moved float64 `json:"moved"`
}

// MirrorSides returns k with the weight each joint gives a vertex on the other
// side of the skeleton's mirror plane handed to that joint's mirror image,
// where the vertex lies at most sideNearer as far from the mirror image's bone
// as from the joint's own. The plane is the one
// across x, y or z of the mesh's bounds that pairs the most joints with
// partners at their mirror images (mirrorPlane); a skeleton that pairs too few
// this way is returned as it is, and so are joints without a partner (the
// spine, a tail, a prop). Vertices and joints within
// sideMargin of the plane are on neither side. Weights that do not fit c (a
// vertex count or joint index off) come back as they are.
func MirrorSides(c *character.Character, k *character.Skin) (*character.Skin, SideReport) {
	rep := SideReport{Axis: -1}
	if c.Skeleton == nil || k == nil || len(c.Mesh.Positions) == 0 || len(k.Weights) != len(c.Mesh.Positions) ||
		len(c.Skeleton.BindWorld) != c.Skeleton.NumJoints() {
		return k, rep
	}
	pos := c.Skeleton.Positions()
	lo, hi := c.Mesh.Bounds()
	size := math.Max(hi[0]-lo[0], math.Max(hi[1]-lo[1], hi[2]-lo[2]))
	axis, mid, partner, pairs := mirrorPlane(pos, lo, hi, size)
	if axis < 0 {
		return k, rep
	}
	rep.Axis, rep.Pairs = axis, pairs
	bones := make([][]Segment, len(pos))
	for _, g := range Bones(c.Skeleton) {
		bones[g.Joint] = append(bones[g.Joint], g)
	}
	margin := sideMargin * size
	out := &character.Skin{Weights: make([][]character.Influence, len(k.Weights))}
	for v, ws := range k.Weights {
		out.Weights[v] = ws
		q := c.Mesh.Positions[v]
		side := q[axis] - mid
		if math.Abs(side) <= margin {
			continue
		}
		moved := crossedWeights(ws, q, side, axis, mid, margin, pos, partner, bones)
		if moved != nil {
			for i := range ws {
				if moved[i] != ws[i].Joint {
					rep.Moved += ws[i].Weight
				}
			}
			out.Weights[v] = mergeInfluences(ws, moved)
		}
	}
	return out, rep
}

// crossedWeights returns, for a vertex at q on the given side of the plane, the
// joint each of its influences should go to (nil when none crosses): an
// influence of a joint on the other side whose partner's bone lies nearer q
// goes to the partner.
func crossedWeights(ws []character.Influence, q vecmath.Vec3, side float64, axis int, mid, margin float64, pos []vecmath.Vec3, partner []int, bones [][]Segment) []int {
	var to []int
	for i, w := range ws {
		j := w.Joint
		if j < 0 || j >= len(pos) {
			continue
		}
		js := pos[j][axis] - mid
		if partner[j] < 0 || math.Abs(js) <= margin || js*side > 0 {
			continue
		}
		if segDist(bones[partner[j]], q) >= sideNearer*segDist(bones[j], q) {
			continue
		}
		if to == nil {
			to = make([]int, len(ws))
			for k := range ws {
				to[k] = ws[k].Joint
			}
		}
		to[i] = partner[j]
	}
	return to
}

// mergeInfluences returns the influences ws with influence i given to joint
// to[i], weights of one joint summed, heaviest first.
func mergeInfluences(ws []character.Influence, to []int) []character.Influence {
	out := make([]character.Influence, 0, len(ws))
	for i, w := range ws {
		merged := false
		for k := range out {
			if out[k].Joint == to[i] {
				out[k].Weight += w.Weight
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, character.Influence{Joint: to[i], Weight: w.Weight})
		}
	}
	slices.SortStableFunc(out, func(a, b character.Influence) int { return cmp.Compare(b.Weight, a.Weight) })
	return out
}

// mirrorPlane finds the axis and offset (the middle of the bounds lo–hi along
// it) across which the most joints pair, and how many pairs; partner[j] is j's
// mirror joint or -1.
// It returns axis -1 when no axis pairs minSidePairs pairs and minPairedShare of
// the joints off its plane.
func mirrorPlane(pos []vecmath.Vec3, lo, hi vecmath.Vec3, size float64) (axis int, mid float64, partner []int, pairs int) {
	axis = -1
	for a := 0; a < 3; a++ {
		m := (lo[a] + hi[a]) / 2
		pt, n, off := pairAcross(pos, a, m, size)
		if n >= minSidePairs && float64(2*n) >= minPairedShare*float64(off) && n > pairs {
			axis, mid, partner, pairs = a, m, pt, n
		}
	}
	return axis, mid, partner, pairs
}

// minPairedShare is the least share of the joints off a mirror plane that must
// pair across it: a held prop's bones or a one-sided accessory may go without a
// partner, the limbs may not.
const minPairedShare = 0.75

// pairAcross pairs the joints across the plane pos[axis] = mid: each joint more
// than sideMargin·size off it with the joint nearest its mirror image, when
// that lies within sidePairing·size and pairs back. It returns the partners
// (-1: none), the pairs and the joints off the plane.
func pairAcross(pos []vecmath.Vec3, axis int, mid, size float64) (partner []int, pairs, off int) {
	partner = make([]int, len(pos))
	for j, p := range pos {
		partner[j] = -1
		if math.Abs(p[axis]-mid) <= sideMargin*size {
			continue
		}
		off++
		img := p
		img[axis] = 2*mid - p[axis]
		bestD := sidePairing * size
		for k, o := range pos {
			if d := o.Dist(img); k != j && d <= bestD {
				partner[j], bestD = k, d
			}
		}
	}
	for j, p := range partner {
		if p >= 0 && partner[p] != j {
			partner[j] = -1
		}
	}
	for j, p := range partner {
		if p > j {
			pairs++
		}
	}
	return partner, pairs, off
}

// segDist is the distance from q to the nearest of a joint's bone segments.
func segDist(segs []Segment, q vecmath.Vec3) float64 {
	best := math.Inf(1)
	for _, g := range segs {
		best = math.Min(best, g.dist(q))
	}
	return best
}
