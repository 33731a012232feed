package character

import (
	"github.com/rigkit/rigkit/vecmath"
	"math"
)

// RigidSkin is the rigid floor of shared/METRICS.md: every position gets weight 1 on
// the joint that moves its nearest bone. A bone runs from a joint to each of its
// children and moves with that joint; a joint without children is a point. Ties go
// to the earlier bone (parents before children). A skeleton without joints gives
// every position no influence (an orphan).
//
// It lives here, below both skinning (the baseline every method must beat) and
// rewards (the rigid-weights hack), so the two measure the same floor.
func RigidSkin(positions []vecmath.Vec3, sk *Skeleton) *Skin {
	k := &Skin{Weights: make([][]Influence, len(positions))}
	if sk.NumJoints() == 0 {
		return k
	}
	pos := sk.Positions()
	children := sk.Children()
	type bone struct {
		a, b  vecmath.Vec3
		owner int
	}
	bones := make([]bone, 0, len(pos)+1)
	for j := range pos {
		if len(children[j]) == 0 {
			bones = append(bones, bone{pos[j], pos[j], j})
		}
		for _, ch := range children[j] {
			bones = append(bones, bone{pos[j], pos[ch], j})
		}
	}
	for v, p := range positions {
		best, bj := math.Inf(1), -1
		for _, b := range bones {
			if d := vecmath.SegmentDist(p, b.a, b.b); d < best {
				best, bj = d, b.owner
			}
		}
		k.Weights[v] = []Influence{{Joint: bj, Weight: 1}}
	}
	return k
}
