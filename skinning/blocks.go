package skinning

import (
	"math"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/unionfind"
	"github.com/rigkit/rigkit/vecmath"
)

// MaxBlockCorners is the most distinct positions a part may have and still be a
// rigid block (a box has eight). Such a part has no vertex between its corners
// for a smooth weight field to bend it with: blended weights only shear it, so
// the artists of blocky characters bind each box to one bone.
const MaxBlockCorners = 8

// BlockReport says what BindBlocks changed.
type BlockReport struct {
	// Blocks is how many parts were bound rigidly, and Vertices how many
	// vertices they hold.
	Blocks   int `json:"blocks"`
	Vertices int `json:"vertices"`
}

// blockMargin is how far from a block, as a share of the mesh's bounding
// diagonal, a joint still counts as on it: the pivots of blocky characters'
// boxes sit on the faces where the boxes meet, and the boxes overlap a little.
const blockMargin = 0.02

// BindBlocks returns k with every rigid block of c's mesh (Blocks) bound
// wholly to one joint: of the joints k weights anywhere that lie on the block
// (within blockMargin of its bounding box), the one nearest its centre.
// Blocky characters' boxes each turn about a pivot on them, and a skeleton
// drawn through the boxes has a joint inside each; the weights a smooth method
// spreads over a box are no guide to which bone the box follows (on the
// blocky characters of ../shared/data the bone heat weights most is the
// artist's for about half the boxes). A block with no joint on it (a feather
// card beside the tail's bones) keeps k's weights, as does every vertex
// outside blocks; k itself is not changed. A mesh without blocks gives k back.
func BindBlocks(c *character.Character, k *character.Skin) (*character.Skin, BlockReport) {
	var rep BlockReport
	if k == nil || c.Skeleton.NumJoints() == 0 || len(k.Weights) != len(c.Mesh.Positions) {
		return k, rep
	}
	blocks := Blocks(&c.Mesh)
	if len(blocks) == 0 {
		return k, rep
	}
	lo, hi := c.Mesh.Bounds()
	margin := blockMargin * hi.Sub(lo).Len()
	weighted := Carries(k, c.Skeleton.NumJoints())
	joints := c.Skeleton.Positions()
	out := &character.Skin{Weights: slices.Clone(k.Weights)}
	for _, b := range blocks {
		box := bounds(c.Mesh.Positions, b)
		j := jointOn(box, joints, weighted, margin)
		if j < 0 {
			continue
		}
		for _, v := range b {
			out.Weights[v] = []character.Influence{{Joint: j, Weight: 1}}
		}
		rep.Blocks++
		rep.Vertices += len(b)
	}
	return out, rep
}

// jointOn returns the weighted joint within margin of the box nearest its
// centre, or -1.
func jointOn(box [2]vecmath.Vec3, joints []vecmath.Vec3, weighted []bool, margin float64) int {
	centre := box[0].Add(box[1]).Scale(0.5)
	best, bestDist := -1, math.Inf(1)
	for j, p := range joints {
		if !weighted[j] {
			continue
		}
		var off vecmath.Vec3
		for a := range 3 {
			off[a] = math.Max(0, math.Max(box[0][a]-p[a], p[a]-box[1][a]))
		}
		if off.Len() > margin {
			continue
		}
		if d := p.Dist(centre); d < bestDist {
			best, bestDist = j, d
		}
	}
	return best
}

// Blocks returns the vertex lists of the mesh's rigid blocks: parts with at
// most MaxBlockCorners distinct positions. A part is the triangles joined by
// shared vertices and by welded edges that exactly two triangles share. The
// second rule puts back together boxes stored as six loose faces, and the
// count of two keeps apart boxes that merely touch: where a blocky
// character's leg meets its body, the edge along the seam belongs to four
// faces, two of each box. Where two boxes touch face to face (two legs side by
// side), the two coincident faces are left loose by that rule; each joins the
// box behind it (attachFaces).
func Blocks(m *character.Mesh) [][]int {
	nv := len(m.Positions)
	if nv == 0 || len(m.Triangles) == 0 {
		return nil
	}
	parts, cand := candidates(m.Triangles, nv)
	if cand == nil {
		return nil
	}
	lo, hi := m.Bounds()
	tol := 1e-6 * math.Max(hi.Sub(lo).Len(), 1e-9)
	rep, big := weldCandidates(m.Positions, cand, parts, tol)
	tris := validTriangles(m.Triangles, rep, cand)
	joinManifoldEdges(tris, rep, parts)
	small := splitParts(nv, tris, rep, parts, big)
	return apart(attachFaces(m, tris, small, tol), rep, big)
}

// maxBlockIndices is the most vertices a piece of connected triangles can have
// and still lie on MaxBlockCorners positions: each of the 56 triangles on
// eight positions with its own three vertices.
const maxBlockIndices = 168

// candidates joins the vertices of each triangle with three distinct corners
// (pieces) and marks the vertices of pieces of at most maxBlockIndices
// vertices, the only ones a block can be made of; cand is nil when there is
// none, as on a smooth surface, so that such a mesh costs one pass.
func candidates(tris [][3]int, nv int) (pieces unionfind.Set[int32], cand []bool) {
	pieces = unionfind.New[int32](nv)
	used := make([]bool, nv)
	for _, t := range tris {
		if !inRange(t, nv) || t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			continue
		}
		pieces.Union(int32(t[0]), int32(t[1]))
		pieces.Union(int32(t[0]), int32(t[2]))
		used[t[0]], used[t[1]], used[t[2]] = true, true, true
	}
	size := make([]int32, nv)
	for v := range nv {
		if used[v] {
			size[pieces.Find(int32(v))]++
		}
	}
	any := false
	cand = make([]bool, nv)
	for v := range nv {
		cand[v] = used[v] && size[pieces.Find(int32(v))] <= maxBlockIndices
		any = any || cand[v]
	}
	if !any {
		return pieces, nil
	}
	return pieces, cand
}

// weldCandidates maps each candidate vertex to the lowest-index candidate at
// the same position (geom.WeldVertices' cells of size tol, over the candidates
// alone; -1 for other vertices), and marks in
// big the representatives that share a position with a piece of other
// vertices of more than maxGlueCorners positions: a block there would be glued
// to a larger part.
func weldCandidates(pos []vecmath.Vec3, cand []bool, pieces unionfind.Set[int32], tol float64) (rep []int, big []bool) {
	key := func(p vecmath.Vec3) [3]int64 { return geom.WeldCell(p, tol) }
	rep = make([]int, len(pos))
	seen := map[[3]int64]int{}
	for v, p := range pos {
		rep[v] = -1
		if !cand[v] {
			continue
		}
		rep[v] = v
		if !p.IsFinite() {
			continue
		}
		if r, ok := seen[key(p)]; ok {
			rep[v] = r
		} else {
			seen[key(p)] = v
		}
	}
	big = make([]bool, len(pos))
	touched := map[int32][]int{} // other pieces at a candidate's position: the candidates there
	for v, p := range pos {
		if !cand[v] && p.IsFinite() {
			if r, ok := seen[key(p)]; ok {
				touched[pieces.Find(int32(v))] = append(touched[pieces.Find(int32(v))], r)
			}
		}
	}
	if len(touched) == 0 {
		return rep, big
	}
	corners := map[int32]map[[3]int64]bool{}
	for v, p := range pos {
		if cand[v] || !p.IsFinite() {
			continue
		}
		r := pieces.Find(int32(v))
		if _, ok := touched[r]; !ok {
			continue
		}
		if corners[r] == nil {
			corners[r] = map[[3]int64]bool{}
		}
		if len(corners[r]) <= maxGlueCorners {
			corners[r][key(p)] = true
		}
	}
	for r, reps := range touched {
		if len(corners[r]) > maxGlueCorners {
			for _, c := range reps {
				big[c] = true
			}
		}
	}
	return rep, big
}

// maxGlueCorners is the most distinct positions a part may have and still let
// a block that touches it be bound alone (apart).
const maxGlueCorners = 32

// apart keeps the blocks that share no position with a part of more than
// maxGlueCorners positions. A part the rules above cut small out of a smooth
// surface (a mesh stored with split vertices and an edge of three faces), or
// a box welded to a smooth body, shares its border with a surface that
// blended weights move with it: binding it alone would tear the surface
// there. Blocks that touch only blocks and other small parts come apart where
// blocky characters come apart anyway.
func apart(blocks [][]int, rep []int, big []bool) [][]int {
	return slices.DeleteFunc(blocks, func(b []int) bool {
		return slices.ContainsFunc(b, func(v int) bool { return big[rep[v]] })
	})
}

// inRange reports whether a triangle's corners are vertex indices.
func inRange(t [3]int, nv int) bool {
	return t[0] >= 0 && t[1] >= 0 && t[2] >= 0 && t[0] < nv && t[1] < nv && t[2] < nv
}

// validTriangles returns the triangles of candidate vertices whose corners are
// at three distinct welded positions.
func validTriangles(tris [][3]int, rep []int, cand []bool) [][3]int {
	var out [][3]int
	for _, t := range tris {
		if !inRange(t, len(cand)) || !cand[t[0]] {
			continue
		}
		a, b, c := rep[t[0]], rep[t[1]], rep[t[2]]
		if a == b || b == c || a == c {
			continue
		}
		out = append(out, t)
	}
	return out
}

// joinManifoldEdges joins the vertices of triangles that share a welded edge
// no other triangle has.
func joinManifoldEdges(tris [][3]int, rep []int, parts unionfind.Set[int32]) {
	type side struct {
		key uint64
		v   int32
	}
	sides := make([]side, 0, 3*len(tris))
	for _, t := range tris {
		for i := range 3 {
			a, b := rep[t[i]], rep[t[(i+1)%3]]
			if a > b {
				a, b = b, a
			}
			sides = append(sides, side{uint64(a)<<32 | uint64(b), int32(t[i])})
		}
	}
	slices.SortFunc(sides, func(x, y side) int {
		switch {
		case x.key < y.key:
			return -1
		case x.key > y.key:
			return 1
		}
		return 0
	})
	for i := 0; i < len(sides); {
		j := i + 1
		for j < len(sides) && sides[j].key == sides[i].key {
			j++
		}
		if j-i == 2 {
			parts.Union(sides[i].v, sides[i+1].v)
		}
		i = j
	}
}

// splitParts groups the triangles' vertices by part and returns the parts of
// at most MaxBlockCorners distinct welded positions, in order of their first
// vertex. It marks in big the positions of the parts of more than
// maxGlueCorners.
func splitParts(nv int, tris [][3]int, rep []int, parts unionfind.Set[int32], big []bool) (small [][]int) {
	corners := map[int32]map[int]bool{}
	verts := map[int32][]int{}
	used := make([]bool, nv)
	for _, t := range tris {
		for _, v := range t {
			if used[v] {
				continue
			}
			used[v] = true
			r := parts.Find(int32(v))
			if corners[r] == nil {
				corners[r] = map[int]bool{}
			}
			if len(corners[r]) <= maxGlueCorners {
				corners[r][rep[v]] = true
			}
			verts[r] = append(verts[r], v)
		}
	}
	for r, c := range corners {
		switch {
		case len(c) <= MaxBlockCorners:
			small = append(small, verts[r])
		case len(c) > maxGlueCorners:
			for _, v := range verts[r] {
				big[rep[v]] = true
			}
		}
	}
	slices.SortFunc(small, func(a, b []int) int { return slices.Min(a) - slices.Min(b) })
	return small
}

// maxAttachBlocks bounds attachFaces' search, which compares every flat block
// with every solid one: a mesh of more blocks (a field of foliage cards) keeps
// its flat blocks as they are.
const maxAttachBlocks = 4096

// attachFaces merges each flat block into the solid block right behind it,
// against its normal: a box's face that coincides with a touching box's face
// goes back to its own box. A flat block with nothing behind it (a card, a
// wing) stays a block of its own. Solid blocks are those whose positions are
// not all in one plane.
func attachFaces(m *character.Mesh, tris [][3]int, blocks [][]int, tol float64) [][]int {
	if len(blocks) > maxAttachBlocks {
		return blocks
	}
	in := make(map[int]int, 8*len(blocks))
	for b, vs := range blocks {
		for _, v := range vs {
			in[v] = b
		}
	}
	normals := make([]vecmath.Vec3, len(blocks))
	for _, t := range tris {
		if b, ok := in[t[0]]; ok {
			a, p, q := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
			normals[b] = normals[b].Add(p.Sub(a).Cross(q.Sub(a)))
		}
	}
	boxes := make([][2]vecmath.Vec3, len(blocks))
	solid := make([]bool, len(blocks))
	for b, vs := range blocks {
		boxes[b] = bounds(m.Positions, vs)
		solid[b] = !flat(m.Positions, vs, normals[b], tol)
	}
	into := make([]int, len(blocks))
	for b := range blocks {
		into[b] = b
		if solid[b] || normals[b].Len() == 0 {
			continue
		}
		c := boxes[b][0].Add(boxes[b][1]).Scale(0.5)
		probe := c.Sub(normals[b].Normalize().Scale(100 * tol))
		if host := solidAt(probe, boxes, solid); host >= 0 {
			into[b] = host
		}
	}
	var out [][]int
	index := make([]int, len(blocks))
	for b := range blocks {
		if into[b] == b {
			index[b] = len(out)
			out = append(out, slices.Clone(blocks[b]))
		}
	}
	for b := range blocks {
		if h := into[b]; h != b {
			out[index[h]] = append(out[index[h]], blocks[b]...)
		}
	}
	return out
}

// bounds returns the bounding box of the positions of vs.
func bounds(pos []vecmath.Vec3, vs []int) [2]vecmath.Vec3 {
	lo, hi := pos[vs[0]], pos[vs[0]]
	for _, v := range vs {
		for a := range 3 {
			lo[a] = math.Min(lo[a], pos[v][a])
			hi[a] = math.Max(hi[a], pos[v][a])
		}
	}
	return [2]vecmath.Vec3{lo, hi}
}

// flat reports whether the positions of vs lie within tol of the plane through
// the first with normal n (a zero normal counts as flat).
func flat(pos []vecmath.Vec3, vs []int, n vecmath.Vec3, tol float64) bool {
	if n.Len() == 0 {
		return true
	}
	n = n.Normalize()
	for _, v := range vs {
		if math.Abs(pos[v].Sub(pos[vs[0]]).Dot(n)) > 10*tol {
			return false
		}
	}
	return true
}

// solidAt returns the smallest solid block whose bounding box holds p, or -1.
func solidAt(p vecmath.Vec3, boxes [][2]vecmath.Vec3, solid []bool) int {
	best, bestVol := -1, math.Inf(1)
	for b, bx := range boxes {
		if !solid[b] {
			continue
		}
		d := bx[1].Sub(bx[0])
		inside := true
		for a := range 3 {
			inside = inside && p[a] >= bx[0][a] && p[a] <= bx[1][a]
		}
		if vol := d[0] * d[1] * d[2]; inside && vol < bestVol {
			best, bestVol = b, vol
		}
	}
	return best
}
