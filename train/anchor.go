package train

import (
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// This file carries a training character's proposal skeleton through its
// augmentations, so that the classical rigger runs once per character.

// anchorCount is how many nearest mesh vertices carry a proposal joint through
// augmentation.
const anchorCount = 4

// anchoredProposal is a training character's proposal skeleton tied to its mesh, so
// that one classical skeleton per character serves every augmented copy: each
// joint follows the mean of its nearest vertices (which augment re-poses, turns,
// mirrors and stretches) plus its offset from them, mapped by the augmentation.
type anchoredProposal struct {
	sk      *character.Skeleton
	anchors [][anchorCount]int
	offsets []vecmath.Vec3
}

// anchorProposal ties sk (in mesh's frame) to mesh's vertices.
func anchorProposal(sk *character.Skeleton, mesh *character.Mesh) *anchoredProposal {
	a := &anchoredProposal{sk: sk, anchors: make([][anchorCount]int, sk.NumJoints()), offsets: make([]vecmath.Vec3, sk.NumJoints())}
	for j := range a.anchors {
		p := sk.Position(j)
		var best [anchorCount]int
		var dist [anchorCount]float64
		for k := range dist {
			dist[k] = -1
		}
		for v, q := range mesh.Positions {
			d := q.Sub(p).Len()
			for k := range dist {
				if dist[k] < 0 || d < dist[k] {
					copy(dist[k+1:], dist[k:anchorCount-1])
					copy(best[k+1:], best[k:anchorCount-1])
					dist[k], best[k] = d, v
					break
				}
			}
		}
		a.anchors[j] = best
		a.offsets[j] = p.Sub(anchorMean(mesh, best))
	}
	return a
}

// anchorMean is the mean position of a joint's anchor vertices.
func anchorMean(mesh *character.Mesh, idx [anchorCount]int) vecmath.Vec3 {
	var s vecmath.Vec3
	for _, v := range idx {
		if v < len(mesh.Positions) {
			s = s.Add(mesh.Positions[v])
		}
	}
	return s.Scale(1.0 / anchorCount)
}

// follow returns the proposal skeleton of the augmented mesh, whose last affine
// map was m.
func (a *anchoredProposal) follow(mesh *character.Mesh, m vecmath.Mat4) *character.Skeleton {
	out := a.sk.Clone()
	for j := range out.BindWorld {
		p := anchorMean(mesh, a.anchors[j]).Add(m.Dir(a.offsets[j]))
		b := vecmath.Identity4()
		b[12], b[13], b[14] = p[0], p[1], p[2]
		out.BindWorld[j] = b
	}
	return out
}
