package skinning

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Segment is a piece of bone: the straight segment from A to B owned by Joint.
// A == B for a joint without children.
type Segment struct {
	Joint int
	A, B  vecmath.Vec3
}

// Bones returns the segments of a skeleton (see the package comment): one per
// parent→child link owned by the parent, and a point for each joint without children.
// Every joint owns at least one segment.
func Bones(s *character.Skeleton) []Segment { return bonesExt(s, 0) }

// bonesExt is Bones with each leaf's point stretched into a segment continuing its
// parent link by ext times that link's length.
func bonesExt(s *character.Skeleton, ext float64) []Segment {
	pos := s.Positions()
	children := s.Children()
	segs := make([]Segment, 0, len(pos)+1)
	for j := range pos {
		if len(children[j]) == 0 {
			b := pos[j]
			if p := s.Parents[j]; p >= 0 && ext > 0 {
				b = pos[j].Add(pos[j].Sub(pos[p]).Scale(ext))
			}
			segs = append(segs, Segment{Joint: j, A: pos[j], B: b})
			continue
		}
		for _, c := range children[j] {
			segs = append(segs, Segment{Joint: j, A: pos[j], B: pos[c]})
		}
	}
	return segs
}

// dist returns the Euclidean distance from p to the segment.
func (g Segment) dist(p vecmath.Vec3) float64 {
	return vecmath.SegmentDist(p, g.A, g.B)
}

// jointDistances returns, for point p, the distance to each joint's nearest owned
// segment (dst has one entry per joint and is overwritten).
func jointDistances(p vecmath.Vec3, segs []Segment, dst []float64) {
	for j := range dst {
		dst[j] = math.Inf(1)
	}
	for _, g := range segs {
		if d := g.dist(p); d < dst[g.Joint] {
			dst[g.Joint] = d
		}
	}
}

// Rigid returns the floor of shared/METRICS.md (assets.RigidSkin): every vertex gets
// weight 1 on the joint owning the nearest bone segment. It leaves bones empty by
// design and is the baseline every skinning method must beat.
//
// A character without joints gets a skin whose vertices are all orphans.
func Rigid(c *character.Character) *character.Skin {
	return character.RigidSkin(c.Mesh.Positions, c.Skeleton)
}

// checkCharacter reports why a character cannot be skinned.
func checkCharacter(c *character.Character) error {
	if c == nil {
		return fmt.Errorf("skinning: nil character")
	}
	if c.Skeleton == nil || c.Skeleton.NumJoints() == 0 {
		return fmt.Errorf("skinning %q: no skeleton", c.Name)
	}
	if err := c.Skeleton.Validate(); err != nil {
		return fmt.Errorf("skinning %q: %w", c.Name, err)
	}
	if err := c.Mesh.Validate(); err != nil {
		return fmt.Errorf("skinning %q: %w", c.Name, err)
	}
	return nil
}
