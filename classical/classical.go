// Package classical rigs a mesh with no learning: a skeleton from the level sets of
// geodesic distance inside the voxelized solid (a discrete Reeb graph), then weights
// from package skinning (rigid nearest-bone weights unless a Skinner is given). rig
// auto uses it as the baseline every model sample must beat, and as the fallback
// when the model is missing or its sample is unusable.
package classical

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/vecmath"
)

// Skinner computes weights for a character's mesh and skeleton and names its method.
type Skinner func(c *character.Character) (*character.Skin, error)

// Rigger rigs with no network: Skeleton with Options, then Skin (rigid nearest-bone
// weights when Skin is nil).
type Rigger struct {
	Skin     Skinner
	SkinName string // method name of Skin, e.g. "geodesic"
	Options  Options
	// Anatomy, when set, turns the Reeb skeleton into the anatomical, named and
	// oriented skeleton of the mesh's kind (anatomy.Fit) before skinning.
	Anatomy *anatomy.Options
	// Reeb, when set, is the mesh's Reeb skeleton already built by Skeleton with
	// Options (e.g. as the model's proposal), so that Rig does not build it again.
	Reeb *character.Skeleton
}

// Info says how a classical rig was made.
type Info struct {
	// Method is "classical-skeleton+<skin>".
	Method string
	// Anatomy is the anatomical fit of the skeleton (nil without Rigger.Anatomy).
	Anatomy *anatomy.Report
	// TimingsMS holds the milliseconds spent on the skeleton and on the skin.
	TimingsMS map[string]float64
}

// Rig returns a rigged copy of c and how it was made.
func (r Rigger) Rig(c *character.Character) (*character.Character, *Info, error) {
	t0 := time.Now()
	sk := r.Reeb
	var err error
	if sk == nil {
		if sk, err = Skeleton(&c.Mesh, r.Options); err != nil {
			return nil, nil, err
		}
	}
	var rep *anatomy.Report
	if r.Anatomy != nil {
		if sk, rep, err = anatomy.Fit(&c.Mesh, sk, r.Anatomy.ForCharacter(c)); err != nil {
			return nil, nil, fmt.Errorf("classical rig: %w", err)
		}
	}
	t1 := time.Now()
	out := c.Clone()
	out.Skeleton, out.Skin, out.Animations = sk, nil, nil
	skin, name, err := r.skin(out)
	if err != nil {
		return nil, nil, fmt.Errorf("classical rig: %s skin: %w", name, err)
	}
	out.Skin = skin
	return out, &Info{Method: "classical-skeleton+" + name, Anatomy: rep, TimingsMS: map[string]float64{
		"skeleton": ms(t1.Sub(t0)), "skin": ms(time.Since(t1)),
	}}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r Rigger) skin(c *character.Character) (*character.Skin, string, error) {
	if r.Skin == nil {
		return skinning.Rigid(c), "rigid", nil
	}
	name := r.SkinName
	if name == "" {
		name = "custom"
	}
	s, err := r.Skin(c)
	return s, name, err
}

// Options tune the skeleton: the voxel grid's resolution, the first geodesic band's
// width in voxels (widened ×1.3 until the joint count is at most MaxJoints) and the
// joint bound. The defaults, 32 and 3.5, were chosen on the 267 training-split files
// of ../shared/data: lower CD-J2J, -J2B and -B2B than 28 and 2.5 with fewer joints
// (docs/model.md).
type Options struct {
	Resolution int     // voxels along the normalized cube's edge; 0 means 32
	Band       float64 // first band width in voxels; 0 means 3.5
	MaxJoints  int     // most joints; 0 means DefaultMaxJoints
}

// DefaultMaxJoints bounds the skeleton when Options.MaxJoints is 0.
const DefaultMaxJoints = 48

// Skeleton builds a skeleton for a mesh with no learning: the mesh is voxelized
// (interior by winding number, plus a surface shell for thin parts), geodesic
// distance is spread from the interior voxel nearest the centroid, and each connected
// piece of each distance band becomes a joint whose parent is the touching piece of
// the previous band. Limbs, tails and wings become chains. Each joint is then centred
// in the mesh's cross section when it is outside or off-centre, or put on the surface
// when it floats beside an open sheet with nothing to centre in (centerJoints), and a
// bone that cuts outside the mesh gets a joint, centred inside or on the sheet, where
// that leaves the least of it outside (splitOutsideBones). The joint count stays
// within opt.MaxJoints. The result is in the mesh's world frame with identity joint
// orientations.
func Skeleton(m *character.Mesh, opt Options) (*character.Skeleton, error) {
	if opt.Resolution <= 0 {
		opt.Resolution = 32
	}
	if opt.Band <= 0 {
		opt.Band = 3.5
	}
	if opt.MaxJoints <= 0 {
		opt.MaxJoints = DefaultMaxJoints
	}
	return classicalSkeleton(m, opt.Resolution, opt.Band, opt.MaxJoints)
}

func classicalSkeleton(m *character.Mesh, res int, band0 float64, maxJoints int) (*character.Skeleton, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("classical skeleton: %w", err)
	}
	norm := character.NormalizationOf(*m)
	nm := character.Mesh{Positions: make([]vecmath.Vec3, len(m.Positions)), Triangles: m.Triangles}
	for i, p := range m.Positions {
		nm.Positions[i] = norm.Point(p)
	}
	g := geom.NewVoxelGrid(&nm, res)
	comp := largestComponent(g)
	if len(comp) == 0 {
		return nil, errors.New("classical skeleton: mesh has no volume or surface voxels")
	}
	// Band width in voxels: start fine and widen until the joint count is bounded.
	var joints []vecmath.Vec3
	var parents []int
	for band := band0; band < float64(res); band *= 1.3 {
		joints, parents = reebSkeleton(g, comp, band)
		if len(joints) <= maxJoints {
			break
		}
	}
	// The bands put joints on voxel centres: centre them in the mesh, then bend the
	// bones that cut outside it.
	centerJoints(joints, g.WN)
	joints, parents = splitOutsideBones(joints, parents, g.WN, maxJoints)
	sk := &character.Skeleton{}
	for j, p := range joints {
		sk.Names = append(sk.Names, fmt.Sprintf("joint_%02d", j))
		sk.Parents = append(sk.Parents, parents[j])
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(norm.InversePoint(p)))
	}
	if err := sk.Validate(); err != nil {
		return nil, fmt.Errorf("classical skeleton: %w", err)
	}
	return sk, nil
}

// centerJoints moves joints (normalized frame) to the middle of the mesh's cross
// section through them. The band pieces' joints sit on voxel centres (0.066 apart at
// the default resolution), so on a part thinner than a voxel a joint lands on the
// surface shell, often outside, and elsewhere it can sit off-centre. For a joint p
// with nearest surface point q, the ray from q through p (from p toward q when p is
// outside) crosses the part; a joint that is outside, or nearer the surface than
// centerDepth of the way to the middle, moves to the midpoint of that crossing when
// the crossing is shorter than centerMaxSpan and the midpoint is inside and not on
// another joint. Joints deep in a large body stay where the bands put them.
func centerJoints(joints []vecmath.Vec3, wn *geom.WindingNumber) {
	for j, p := range joints {
		m, ok := crossSectionMiddle(p, wn, true)
		if !ok {
			// Outside and with no crossing to centre in: a joint beside an open
			// sheet (a cape, a sail, a net), where the voxel centre floats up to
			// half a voxel off the surface. Put it on the sheet.
			m, ok = onSurface(p, wn)
			if !ok {
				continue
			}
		}
		free := true
		for k, o := range joints {
			if k != j && o.Dist(m) < centerMinGap {
				free = false
				break
			}
		}
		if free {
			joints[j] = m
		}
	}
}

// onSurface returns the nearest surface point of a point p that is outside the mesh
// and within sheetSnap of its surface (ok false otherwise).
func onSurface(p vecmath.Vec3, wn *geom.WindingNumber) (vecmath.Vec3, bool) {
	if wn.At(p) > 0.5 {
		return p, false
	}
	hit, ok := wn.BVH().ClosestWithin(p, sheetSnap)
	if !ok {
		return p, false
	}
	return hit.Point, true
}

// inMesh reports whether a point counts as in the mesh for the skeleton: inside by
// winding number, or within sheetSlack of the surface (on an open sheet, where
// nothing is inside; the containment reward gives such points full credit too).
func inMesh(q vecmath.Vec3, wn *geom.WindingNumber) bool {
	if wn.At(q) > 0.5 {
		return true
	}
	_, ok := wn.BVH().ClosestWithin(q, sheetSlack)
	return ok
}

// Sheets: how far off the surface an outside joint is put on it (about one voxel),
// and how close to the surface a point counts as in the mesh.
const (
	sheetSnap  = 0.08
	sheetSlack = 0.01
)

// crossSectionMiddle returns the midpoint of the mesh's crossing along the line from
// p's nearest surface point through p (see centerJoints); with onlyOffCentre it
// declines (ok false) for an inside point already within centerDepth of the middle.
// For a point on or next to the surface, where that line is undefined or grazes the
// surface, it tries the axis directions that lead inside instead.
func crossSectionMiddle(p vecmath.Vec3, wn *geom.WindingNumber, onlyOffCentre bool) (vecmath.Vec3, bool) {
	bvh := wn.BVH()
	hit, ok := bvh.Closest(p)
	if !ok {
		return p, false
	}
	inside := wn.At(p) > 0.5
	if hit.Dist >= 1e-9 {
		q := hit.Point
		dir := p.Sub(q).Scale(1 / hit.Dist) // into the part when p is inside
		if !inside {
			dir = dir.Scale(-1)
		}
		if exit, ok := bvh.Ray(q.Add(dir.Scale(1e-6)), dir, 0, centerMaxSpan); ok {
			if onlyOffCentre && inside && hit.Dist >= centerDepth*exit.T/2 {
				return p, false
			}
			if m := q.Add(dir.Scale(exit.T / 2)); wn.At(m) > 0.5 {
				return m, true
			}
		}
	}
	if hit.Dist >= surfaceEps {
		return p, false
	}
	// On or next to the surface (a voxel centre on a flat face or an edge), where the
	// nearest point gives no direction or one that grazes the surface: cross along
	// the axis directions that lead inside, starting clear of the surface; the
	// shortest crossing with its middle inside wins.
	best, bestT := p, math.Inf(1)
	for _, d := range axisDirs {
		if wn.At(p.Add(d.Scale(2*surfaceEps))) <= 0.5 {
			continue
		}
		exit, ok := bvh.Ray(p, d, 2*surfaceEps, centerMaxSpan)
		if !ok || exit.T >= bestT {
			continue
		}
		if m := p.Add(d.Scale(exit.T / 2)); wn.At(m) > 0.5 {
			best, bestT = m, exit.T
		}
	}
	return best, !math.IsInf(bestT, 1)
}

// surfaceEps is the distance (cube units) under which a point counts as on the
// surface, and axisDirs the directions crossSectionMiddle tries from there.
const surfaceEps = 1e-3

var axisDirs = []vecmath.Vec3{{0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}}

// Joint centring: the longest crossing (cube units) a joint is centred in, the
// share of the way to the middle from which an inside joint counts as centred, and
// the closest a centred joint may come to another.
const (
	centerMaxSpan = 0.6
	centerDepth   = 0.5
	centerMinGap  = 0.02
)

// splitOutsideBones inserts a joint into each bone that leaves the mesh: where at
// least splitOutside of a bone's sample points are outside (not inMesh), the bone's
// middle and its thirds, each centred in the mesh's cross section
// (crossSectionMiddle; put on the surface instead where an open sheet gives no
// cross section), are tried as
// a new joint between the two, and the one that leaves the least of the two new bones
// outside is kept if that is less than the bone had (a body-to-leg bone cut across
// the concave armpit bends there instead; a candidate in another limb makes bones
// across the air and loses), as long as the skeleton stays within maxJoints. The new
// bones are not split again: that would bring the bones further inside only by adding
// more joints than artists use (docs/model.md). It returns the joints and parents,
// parents first.
func splitOutsideBones(joints []vecmath.Vec3, parents []int, wn *geom.WindingNumber, maxJoints int) ([]vecmath.Vec3, []int) {
	outside := func(a, b vecmath.Vec3) int {
		n := 0
		for k := 1; k <= splitSamples; k++ {
			if !inMesh(a.Lerp(b, float64(k)/float64(splitSamples+1)), wn) {
				n++
			}
		}
		return n
	}
	n := len(joints)
	for c := 0; c < n && len(joints) < maxJoints; c++ {
		p := parents[c]
		if p < 0 {
			continue
		}
		a, b := joints[p], joints[c]
		out := outside(a, b)
		if float64(out) < splitOutside*splitSamples {
			continue
		}
		// Candidates: the bone's middle and thirds, each centred; the one that leaves
		// the least of the two new bones outside, if that is less than now.
		var best vecmath.Vec3
		bestOut := 2 * out // outside samples of the two new bones, of 2·splitSamples
		for _, t := range splitAt {
			q := a.Lerp(b, t)
			m, ok := crossSectionMiddle(q, wn, false)
			if !ok {
				m, ok = onSurface(q, wn)
			}
			if !ok || m.Dist(a) < centerMinGap || m.Dist(b) < centerMinGap {
				continue
			}
			if o := outside(a, m) + outside(m, b); o < bestOut {
				best, bestOut = m, o
			}
		}
		if bestOut >= 2*out {
			continue
		}
		joints = append(joints, best)
		parents = append(parents, p)
		parents[c] = len(joints) - 1
	}
	return reorderParentsFirst(joints, parents)
}

// Bone splitting: points sampled along a bone, and the outside share that splits it.
const (
	splitSamples = 8
	splitOutside = 0.25
)

// splitAt is where along a bone splitOutsideBones tries a new joint.
var splitAt = []float64{0.5, 1.0 / 3, 2.0 / 3}

// reorderParentsFirst renumbers a forest depth-first from its roots (in index order,
// children in index order) so that every parent precedes its children.
func reorderParentsFirst(joints []vecmath.Vec3, parents []int) ([]vecmath.Vec3, []int) {
	children := make([][]int, len(joints))
	var roots []int
	for j, p := range parents {
		if p < 0 {
			roots = append(roots, j)
		} else {
			children[p] = append(children[p], j)
		}
	}
	newID := make([]int, len(joints))
	var order []int
	var walk func(j int)
	walk = func(j int) {
		newID[j] = len(order)
		order = append(order, j)
		for _, c := range children[j] {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	outJ := make([]vecmath.Vec3, len(order))
	outP := make([]int, len(order))
	for k, j := range order {
		outJ[k] = joints[j]
		outP[k] = -1
		if p := parents[j]; p >= 0 {
			outP[k] = newID[p]
		}
	}
	return outJ, outP
}

// largestComponent returns the voxels of the largest 26-connected occupied component.
func largestComponent(g *geom.VoxelGrid) []int {
	label := make([]int, len(g.Occ))
	var best []int
	for s := range g.Occ {
		if !g.Occ[s] || label[s] != 0 {
			continue
		}
		label[s] = 1
		comp := []int{s}
		for q := 0; q < len(comp); q++ {
			g.Neighbors(comp[q], func(j int, _ float64) {
				if g.Occ[j] && label[j] == 0 {
					label[j] = 1
					comp = append(comp, j)
				}
			})
		}
		if len(comp) > len(best) {
			best = comp
		}
	}
	return best
}

// reebSkeleton returns joints (normalized frame) and parents (parents first) from the
// bands of geodesic distance of width band voxels inside comp.
func reebSkeleton(g *geom.VoxelGrid, comp []int, band float64) ([]vecmath.Vec3, []int) {
	in := make(map[int]bool, len(comp))
	for _, v := range comp {
		in[v] = true
	}
	root, dist := geodesicFromCentroid(g, comp, in)
	level := func(v int) int { return int(dist[v] / band) }
	piece, pieces := bandPieces(g, comp, in, level)
	parent := pieceParents(g, pieces, piece, level)
	// Order from the root piece (pieces not reachable from it are dropped).
	rootPiece := piece[root]
	children := make([][]int, len(pieces))
	for id, p := range parent {
		if p >= 0 {
			children[p] = append(children[p], id)
		}
	}
	order := []int{rootPiece}
	newID := map[int]int{rootPiece: 0}
	for q := 0; q < len(order); q++ {
		ch := children[order[q]]
		sort.Ints(ch)
		for _, c := range ch {
			newID[c] = len(order)
			order = append(order, c)
		}
	}
	joints := make([]vecmath.Vec3, len(order))
	parents := make([]int, len(order))
	for k, id := range order {
		joints[k] = pieceJoint(g, pieces[id], in)
		parents[k] = -1
		if p := parent[id]; p >= 0 {
			parents[k] = newID[p]
		}
	}
	return joints, parents
}

// geodesicFromCentroid returns the voxel of comp nearest its centroid and the
// geodesic distance from it to every voxel of comp (Dijkstra over the
// 26-neighbourhood, Euclidean steps).
func geodesicFromCentroid(g *geom.VoxelGrid, comp []int, in map[int]bool) (int, map[int]float64) {
	var centroid vecmath.Vec3
	for _, v := range comp {
		centroid = centroid.Add(g.Center(v))
	}
	centroid = centroid.Scale(1 / float64(len(comp)))
	root := comp[0]
	for _, v := range comp {
		if g.Center(v).Dist(centroid) < g.Center(root).Dist(centroid) {
			root = v
		}
	}
	dist := make(map[int]float64, len(comp))
	for _, v := range comp {
		dist[v] = math.Inf(1)
	}
	dist[root] = 0
	h := &distHeap{{root, 0}}
	for h.Len() > 0 {
		it := h.pop()
		if it.d > dist[it.v] {
			continue
		}
		g.Neighbors(it.v, func(j int, step float64) {
			if in[j] && it.d+step < dist[j] {
				dist[j] = it.d + step
				h.push(heapItem{j, dist[j]})
			}
		})
	}
	return root, dist
}

// bandPieces cuts comp into pieces: connected sets of voxels within one band. It
// returns each voxel's piece and the pieces.
func bandPieces(g *geom.VoxelGrid, comp []int, in map[int]bool, level func(int) int) (map[int]int, [][]int) {
	piece := make(map[int]int, len(comp))
	var pieces [][]int
	for _, s := range comp {
		if _, ok := piece[s]; ok {
			continue
		}
		id := len(pieces)
		piece[s] = id
		set := []int{s}
		for q := 0; q < len(set); q++ {
			g.Neighbors(set[q], func(j int, _ float64) {
				if _, ok := piece[j]; !ok && in[j] && level(j) == level(s) {
					piece[j] = id
					set = append(set, j)
				}
			})
		}
		pieces = append(pieces, set)
	}
	return piece, pieces
}

// pieceParents gives each piece a parent: the touching piece one band closer with
// the most contacts (-1 for the first band).
func pieceParents(g *geom.VoxelGrid, pieces [][]int, piece map[int]int, level func(int) int) []int {
	parent := make([]int, len(pieces))
	for id, set := range pieces {
		parent[id] = -1
		lv := level(set[0])
		if lv == 0 {
			continue
		}
		contacts := map[int]int{}
		for _, v := range set {
			g.Neighbors(v, func(j int, _ float64) {
				if q, ok := piece[j]; ok && level(j) == lv-1 {
					contacts[q]++
				}
			})
		}
		best, bestN := -1, 0
		for q, n := range contacts {
			if n > bestN || (n == bestN && q < best) {
				best, bestN = q, n
			}
		}
		parent[id] = best
	}
	return parent
}

// pieceJoint is a piece's joint: its centroid, kept inside on the nearest interior
// voxel of the piece (or any voxel of it for a piece that is all surface shell).
func pieceJoint(g *geom.VoxelGrid, set []int, in map[int]bool) vecmath.Vec3 {
	var c vecmath.Vec3
	for _, v := range set {
		c = c.Add(g.Center(v))
	}
	c = c.Scale(1 / float64(len(set)))
	bestV, bestD := -1, math.Inf(1)
	for _, v := range set {
		d := g.Center(v).Dist(c)
		if !g.Inner[v] {
			d += 10
		}
		if d < bestD {
			bestV, bestD = v, d
		}
	}
	if i, ok := g.Index(c); !ok || !in[i] || !g.Inner[i] {
		c = g.Center(bestV)
	}
	return c
}

type heapItem struct {
	v int
	d float64
}

// distHeap is a binary min-heap on d.
type distHeap []heapItem

func (h distHeap) Len() int { return len(h) }

func (h *distHeap) push(it heapItem) {
	*h = append(*h, it)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p].d <= a[i].d {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *distHeap) pop() heapItem {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && a[l].d < a[m].d {
			m = l
		}
		if r < n && a[r].d < a[m].d {
			m = r
		}
		if m == i {
			break
		}
		a[m], a[i] = a[i], a[m]
		i = m
	}
	*h = a
	return top
}
