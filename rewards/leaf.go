package rewards

import (
	"math"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// Leaf bones. A glTF joint has a position but no tail, so a joint without
// children is a point to the rewards, while in the artist's tool it is a bone
// through the part it moves: a head joint at the base of the skull moves the
// whole head, a wrist without fingers the whole hand, an ankle without toes the
// whole foot. Artists leave such rigid parts without an end joint; templates add
// one (Mixamo's HeadTop_End). Judged as points, their far side counts as
// uncovered and the artist's rig loses to the template's for leaving out a joint
// that moves nothing.

const (
	// leafRegionWeight: the vertices a leaf joint moves, for its bone, are those
	// it weighs at least this much.
	leafRegionWeight = 0.5
	// leafExtent is the quantile of the region's reach along the bone where the
	// bone ends, so that a few stray vertices do not stretch it.
	leafExtent = 0.95
	// leafWidths caps a leaf bone at this many widths of its region (twice the
	// root-mean-square distance from the bone's line): a rigid part is about as
	// long as it is wide, a limb left without its chain is many times longer, and
	// its bone stays a stub that covers only the limb's start.
	leafWidths = 2.0
	// leafParents caps a leaf bone at this many lengths of its parent's bone:
	// a skeleton shrunk toward its centre shrinks its leaf bones with it.
	leafParents = 1.5
	// leafDetached: a region that starts (its 1−leafExtent quantile of reach along
	// the bone) more than this many widths beyond its joint lies away from it: the
	// joint was moved off the part it moves (a skeleton shrunk toward its centre,
	// collapsed onto a plane), and a bone drawn to the part would undo the move.
	leafDetached = 0.2
	// leafMinLength (cube units): a region whose centre lies this close to the
	// joint gives no direction; the joint stays a point.
	leafMinLength = 0.01
)

// bones returns r's reachBones, made on first use.
func (p *Prepared) bones(r *rig) []segment {
	if r.reach == nil {
		r.reach = p.reachBones(r)
	}
	return r.reach
}

// reachBones returns the rig's bones with each weighted leaf joint's point
// turned into the bone an artist's tool would draw for it (leafBone); roots stay
// points, so a rig of one joint gains nothing.
func (p *Prepared) reachBones(r *rig) []segment {
	segs := append([]segment(nil), r.segs...)
	regions := p.leafRegions(r)
	for i := range segs {
		s := &segs[i]
		if s.child >= 0 || r.parents[s.owner] < 0 {
			continue
		}
		parent := r.pos[r.parents[s.owner]].Dist(r.pos[s.owner])
		if b, ok := p.leafBone(r.pos[s.owner], parent, regions[s.owner]); ok {
			*s = newSegment(r.pos[s.owner], b, s.owner, -1)
		}
	}
	return segs
}

// leafEnds indexes the leaf bones of reachBones by their joint.
func leafEnds(segs []segment) map[int]segment {
	leaves := map[int]segment{}
	for _, s := range segs {
		if s.child < 0 && s.inv > 0 {
			leaves[s.owner] = s
		}
	}
	return leaves
}

// leafRegions lists, for every joint with a point segment, the vertices it
// weighs at least leafRegionWeight (nil for other joints).
func (p *Prepared) leafRegions(r *rig) [][]int {
	regions := make([][]int, len(r.names))
	point := make([]bool, len(r.names))
	found := false
	for _, s := range r.segs {
		if s.child < 0 && r.parents[s.owner] >= 0 {
			point[s.owner], found = true, true
		}
	}
	if !found {
		return regions
	}
	for v, ws := range r.skin {
		for _, in := range ws {
			if in.Weight >= leafRegionWeight && point[in.Joint] {
				regions[in.Joint] = append(regions[in.Joint], v)
			}
		}
	}
	return regions
}

// leafBone returns the far end of the bone from joint position j through the
// vertices of its region: along the direction to their centre, to the
// leafExtent quantile of their reach, capped at leafWidths of their width. A
// joint that is not at its region's base (leafDetached) gets no bone.
func (p *Prepared) leafBone(j vecmath.Vec3, parent float64, region []int) (vecmath.Vec3, bool) {
	if len(region) < 3 {
		return j, false
	}
	var c vecmath.Vec3
	for _, v := range region {
		c = c.Add(p.pos[v])
	}
	d := c.Scale(1 / float64(len(region))).Sub(j)
	if d.Len() < leafMinLength {
		return j, false
	}
	d = d.Scale(1 / d.Len())
	along := make([]float64, len(region))
	perp2 := 0.0
	for i, v := range region {
		o := p.pos[v].Sub(j)
		along[i] = o.Dot(d)
		perp2 += math.Max(0, o.Dot(o)-along[i]*along[i])
	}
	sort.Float64s(along)
	width := 2 * math.Sqrt(perp2/float64(len(region)))
	if along[int((1-leafExtent)*float64(len(along)-1))] > leafDetached*width {
		return j, false // the part starts away from its joint: a moved joint, not a part's base
	}
	length := math.Min(along[int(leafExtent*float64(len(along)-1))], math.Min(leafWidths*width, leafParents*parent))
	if length < leafMinLength {
		return j, false
	}
	return j.Add(d.Scale(length)), true
}
