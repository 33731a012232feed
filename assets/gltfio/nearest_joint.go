package gltfio

import (
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// Orphan repair binds each vertex without weights to its nearest joint. Comparing
// every orphan with every joint costs vertices × joints (a 4.6 MB file of 1M
// orphans and 45,000 joints: about 47 minutes), so the joints go into a k-d tree,
// where a search looks at a few joints per vertex. A search can still look at all
// of them (joints on a sphere around the vertices), so each search counts the
// joints it looks at against Budget.RepairWork.

// jointTree is a k-d tree over joint positions, stored as an implicit balanced
// tree: the median of ids[lo:hi] along axis[mid], the axis along which those
// joints spread most, sits at mid = (lo+hi)/2. Splitting along the widest axis
// keeps a flat skeleton (every joint at one height) from splitting on a plane
// that separates nothing.
type jointTree struct {
	pos  []vecmath.Vec3
	ids  []int
	axis []uint8
}

// newJointTree builds the tree over pos (n log² n: sorting each level).
func newJointTree(pos []vecmath.Vec3) *jointTree {
	t := &jointTree{pos: pos, ids: make([]int, len(pos)), axis: make([]uint8, len(pos))}
	for i := range t.ids {
		t.ids[i] = i
	}
	t.build(0, len(t.ids))
	return t
}

func (t *jointTree) build(lo, hi int) {
	if hi-lo <= 1 {
		return
	}
	part := t.ids[lo:hi]
	axis := widestAxis(t.pos, part)
	sort.Slice(part, func(a, b int) bool {
		pa, pb := t.pos[part[a]][axis], t.pos[part[b]][axis]
		return pa < pb || (pa == pb && part[a] < part[b])
	})
	mid := (lo + hi) / 2
	t.axis[mid] = uint8(axis)
	t.build(lo, mid)
	t.build(mid+1, hi)
}

// widestAxis is the axis along which the points ids spread most.
func widestAxis(pos []vecmath.Vec3, ids []int) int {
	lo, hi := pos[ids[0]], pos[ids[0]]
	for _, id := range ids {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], pos[id][k]), max(hi[k], pos[id][k])
		}
	}
	axis := 0
	for k := 1; k < 3; k++ {
		if hi[k]-lo[k] > hi[axis]-lo[axis] {
			axis = k
		}
	}
	return axis
}

// nearest returns the joint nearest q, the lowest id among equally near ones (as
// a scan in id order finds), and how many joints the search looked at.
func (t *jointTree) nearest(q vecmath.Vec3) (best, looked int) {
	s := search{t: t, q: q, best: -1}
	s.visit(0, len(t.ids))
	return s.best, s.looked
}

// search is one nearest-joint query.
type search struct {
	t      *jointTree
	q      vecmath.Vec3
	best   int
	bestD  float64
	looked int
}

func (s *search) visit(lo, hi int) {
	if lo >= hi {
		return
	}
	mid := (lo + hi) / 2
	id := s.t.ids[mid]
	p := s.t.pos[id]
	s.looked++
	if d := p.Sub(s.q).Dot(p.Sub(s.q)); s.best < 0 || d < s.bestD || (d == s.bestD && id < s.best) {
		s.best, s.bestD = id, d
	}
	if hi-lo == 1 {
		return
	}
	axis := s.t.axis[mid]
	diff := s.q[axis] - p[axis]
	near, far := [2]int{lo, mid}, [2]int{mid + 1, hi}
	if diff > 0 {
		near, far = far, near
	}
	s.visit(near[0], near[1])
	// Equal distance on the far side may hold a lower id: <= keeps the scan's tie.
	if diff*diff <= s.bestD {
		s.visit(far[0], far[1])
	}
}
