package skinning

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/vecmath"
)

// Defaults of HeatOptions.
const (
	DefaultHeatC          = 4.0
	DefaultHeatMaxIter    = 5000
	DefaultHeatTol        = 1e-5
	DefaultHeatMinWeight  = 0.01
	DefaultHeatOccluded   = 1.0
	DefaultHeatMaxVerts   = 300_000
	DefaultHeatWeld       = 1e-5
	DefaultHeatRayOffset  = 1e-4
	DefaultHeatRayTests   = 32
	DefaultHeatTie        = 1e-3
	DefaultHeatFillShare  = 0.25
	DefaultHeatFillVerts  = 1
	DefaultHeatFillReach  = 1.5
	heatFillCandidates    = 256  // nearest vertices tested for visibility when filling a bone
	heatMinDist           = 1e-4 // normalized units: H is at most c/heatMinDist²
	heatMinAreaFraction   = 1e-3 // vertex area floor, as a fraction of the mean
	heatMaxCotangent      = 1e3  // sliver triangles would otherwise dominate L
	heatDegenerateCross2D = 1e-20
)

// HeatOptions configure heat-diffusion skinning. The zero value gives the defaults.
// The limits and the output's shape stay at the top; the heat sources (the linear
// system's right-hand side) and the filling of empty bones come as groups.
type HeatOptions struct {
	// Workers is the number of joints solved at once (0: GOMAXPROCS).
	Workers int
	// MaxIter and Tol bound each joint's conjugate-gradient solve: it stops when the
	// residual is below Tol times the right-hand side's norm, and fails after MaxIter
	// iterations (0: DefaultHeatMaxIter, DefaultHeatTol).
	MaxIter int
	Tol     float64
	// MinWeight drops influences lighter than this before the top MaxInfluences are
	// kept and renormalized (0: DefaultHeatMinWeight).
	MinWeight float64
	// MaxInfluences per vertex (0: assets.MaxInfluencesWritten).
	MaxInfluences int
	// MaxVertices bounds the welded vertex count; a larger mesh is an error, not a
	// solve of unbounded time (0: DefaultHeatMaxVerts).
	MaxVertices int
	// Weld joins vertices closer than Weld times the bounding box diagonal (UV and
	// normal seams) into one surface vertex (0: DefaultHeatWeld).
	Weld    float64
	Sources HeatSources
	Fill    HeatFill
}

// HeatSources say how much heat each vertex receives from which bone: the
// right-hand side of every joint's solve. The zero value gives the defaults.
type HeatSources struct {
	// C scales the heat a vertex receives from its nearest visible bone: H = C/d²,
	// d in normalized units (0: DefaultHeatC; Baran & Popović use 1; 4 scored best
	// on the training split, docs/skinning.md). Larger C keeps weights closer to the
	// nearest bone (sharper joints, higher precision, lower recall).
	C float64
	// Occluded scales the heat of a vertex that sees no bone (its nearest bone is
	// used anyway): H = Occluded·C/d² (0: DefaultHeatOccluded; negative: 0, Baran &
	// Popović's choice, which leaves such vertices to diffusion alone).
	Occluded float64
	// RayOffset is where a visibility ray starts, in normalized units from the vertex
	// towards the bone, so that the vertex's own triangles do not block it
	// (0: DefaultHeatRayOffset).
	RayOffset float64
	// RayTests is how many of a vertex's nearest bones are tested for visibility
	// before it falls back to the nearest (0: DefaultHeatRayTests).
	RayTests int
	// LeafExtension stretches a leaf joint's point into a bone continuing its parent
	// link by this fraction of the link's length, as for the geodesic search
	// (0: LeafExtension; negative: leaves stay points).
	LeafExtension float64
	// Tie splits a vertex's heat source equally among the joints whose visible bones
	// are within (1+Tie) times the nearest visible bone's distance, as Baran & Popović
	// do (0: DefaultHeatTie; negative: no split, exact ties go to the parent).
	Tie float64
}

// HeatFill fills bones that would stay empty (no vertex's nearest visible bone):
// the Vertices vertices nearest to such a bone (those that see it first) take it as
// a heat source with Share of their p, the other sources scaled to the rest, so a
// short leaf gets a small local influence; if that still falls under MinWeight, it
// gets MinBoneWeight on its nearest vertex (0: DefaultHeatFillVerts,
// DefaultHeatFillShare; Vertices negative: no fill, as Blender). The zero value
// gives the defaults.
type HeatFill struct {
	Vertices int
	Share    float64
	// Reach leaves a bone empty when its nearest vertex is farther from it than
	// Reach times that vertex's distance to its own heat source: such a bone is
	// outside this surface (a prop carrying a whole character's skeleton), and
	// weighting it made deformation worse (0: DefaultHeatFillReach).
	Reach float64
}

func (o HeatOptions) withDefaults() HeatOptions {
	o.Workers = defaultWorkers(o.Workers)
	o.Sources.C = positiveOr(o.Sources.C, DefaultHeatC)
	o.Sources.Occluded = signedOption(o.Sources.Occluded, DefaultHeatOccluded, 0)
	o.MaxIter = positiveOr(o.MaxIter, DefaultHeatMaxIter)
	o.Tol = positiveOr(o.Tol, DefaultHeatTol)
	o.MinWeight = positiveOr(o.MinWeight, DefaultHeatMinWeight)
	o.MaxInfluences = positiveOr(o.MaxInfluences, character.MaxInfluencesWritten)
	o.MaxVertices = positiveOr(o.MaxVertices, DefaultHeatMaxVerts)
	o.Weld = positiveOr(o.Weld, DefaultHeatWeld)
	o.Sources.RayOffset = positiveOr(o.Sources.RayOffset, DefaultHeatRayOffset)
	o.Sources.RayTests = positiveOr(o.Sources.RayTests, DefaultHeatRayTests)
	o.Sources.LeafExtension = signedOption(o.Sources.LeafExtension, LeafExtension, 0)
	o.Sources.Tie = signedOption(o.Sources.Tie, DefaultHeatTie, -1)
	if o.Fill.Vertices == 0 {
		o.Fill.Vertices = DefaultHeatFillVerts
	}
	o.Fill.Reach = positiveOr(o.Fill.Reach, DefaultHeatFillReach)
	if o.Fill.Share <= 0 || o.Fill.Share > 1 {
		o.Fill.Share = DefaultHeatFillShare
	}
	return o
}

// positiveOr is def when v ≤ 0, else v: an option's zero value (or a meaningless
// negative one) means its default.
func positiveOr[T int | float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// signedOption is an option where zero means the default def and a negative value
// means off (stored as off); a positive value is kept.
func signedOption(v, def, off float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return off
	}
	return v
}

// Heat computes skin weights by heat diffusion over the surface (after Baran &
// Popović 2007, "Automatic rigging and animation of 3D characters", the method
// behind Blender's "Automatic Weights"). The mesh is welded so that seams do not cut
// it; every vertex receives heat H = C/d² from the nearest bone it sees (the
// straight segment to the bone does not cross the mesh), or from its nearest bone
// when it sees none; joint j's weights solve the screened Poisson equation
//
//	(L + A·H) w_j = A·H·p_j
//
// with L the cotangent Laplacian, A the lumped vertex areas and p_j the share of a
// vertex's heat that comes from j: 1 on the vertices whose nearest visible bone is
// j's, split equally among bones within (1+Tie) of the nearest. Weights are clamped
// to [0,1], influences under MinWeight dropped, the top MaxInfluences kept and
// renormalized; copies of a welded vertex get identical weights.
//
// Unlike Blender, which gives occluded vertices no heat and can leave them without
// weights, every vertex here has a source, so no vertex is an orphan; and a bone
// that is no vertex's nearest (a short leaf buried in a thick part) becomes a
// partial source on the vertex nearest to it, so it is not empty, unless it lies far
// outside the surface (Fill.Reach).
func Heat(c *character.Character, opt HeatOptions) (*character.Skin, error) {
	if err := checkCharacter(c); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	norm := character.NormalizationOf(c.Mesh)
	hm, err := newHeatMesh(c.Mesh, norm, opt)
	if err != nil {
		return nil, fmt.Errorf("skinning %q: %w", c.Name, err)
	}
	segs := bonesExt(c.Skeleton, opt.Sources.LeafExtension)
	for i := range segs {
		segs[i].A, segs[i].B = norm.Point(segs[i].A), norm.Point(segs[i].B)
	}
	nj := c.Skeleton.NumJoints()
	for _, g := range segs {
		if !g.A.IsFinite() || !g.B.IsFinite() {
			return nil, fmt.Errorf("skinning %q: joint %q has a non-finite position", c.Name, c.Skeleton.Names[g.Joint])
		}
	}
	bvh := geom.NewBVH(&character.Mesh{Positions: hm.pos, Triangles: hm.tris})
	source, dist := hm.heatSources(bvh, segs, opt)
	var filled map[int][]int // joints given a source by fillSources → their vertex order
	if opt.Fill.Vertices > 0 {
		filled = hm.fillSources(bvh, segs, nj, source, dist, opt)
	}
	sys := hm.system(dist, opt)
	weights, err := sys.solveAll(nj, source, opt)
	if err != nil {
		return nil, fmt.Errorf("skinning %q: heat: %w", c.Name, err)
	}

	// Per welded vertex: gather, drop light influences, top K, renormalize.
	m := len(hm.pos)
	rows := make([][]character.Influence, m)
	for j, sw := range weights {
		for k, v := range sw.idx {
			rows[v] = append(rows[v], character.Influence{Joint: j, Weight: float64(sw.val[k])})
		}
	}
	dense := make([]float64, nj)
	for v := range rows {
		if len(rows[v]) == 0 {
			// No joint reached MinWeight (cannot happen after the max principle, whose
			// weights sum to 1): keep the vertex rigid on its main heat source.
			rows[v] = []character.Influence{{Joint: mainSource(source[v]), Weight: 1}}
			continue
		}
		for _, in := range rows[v] {
			dense[in.Joint] = in.Weight
		}
		topK(dense, opt.MaxInfluences)
		out := rows[v][:0]
		for _, in := range rows[v] {
			if w := dense[in.Joint]; w > 0 {
				out = append(out, character.Influence{Joint: in.Joint, Weight: w})
			}
			dense[in.Joint] = 0
		}
		rows[v] = out
	}
	if opt.Fill.Vertices > 0 {
		// A filled source can still fall under MinWeight or out of the top K: such a
		// bone gets MinBoneWeight on its nearest vertex, as in geodesic's fill.
		fill := &boneFiller{weights: rows, maxK: opt.MaxInfluences, filled: map[int][]int{},
			weight: func(v, j int) float64 { return MinBoneWeight }}
		fill.placeEmpty(nj, func(int) bool { return false }, func(j int) []int { return filled[j] })
	}
	skin := &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v := range skin.Weights {
		skin.Weights[v] = append([]character.Influence(nil), rows[hm.welded[v]]...)
	}
	skin.Prune(opt.MaxInfluences)
	return skin, nil
}

// mainSource returns the joint with the largest share of a vertex's heat (the first
// on ties).
func mainSource(src []character.Influence) int {
	best := 0
	for i, in := range src {
		if in.Weight > src[best].Weight {
			best = i
		}
	}
	return src[best].Joint
}

// heatMesh is the welded surface in the normalized frame: one vertex per position,
// non-degenerate triangles only.
type heatMesh struct {
	pos    []vecmath.Vec3
	tris   [][3]int
	welded []int // original vertex → welded vertex
}

func newHeatMesh(mesh character.Mesh, norm character.Normalization, opt HeatOptions) (*heatMesh, error) {
	lo, hi := mesh.Bounds()
	diag := norm.Point(hi).Sub(norm.Point(lo)).Len()
	rep := geom.WeldVertices(mesh.Positions, opt.Weld*diag/norm.Scale)
	hm := &heatMesh{welded: make([]int, len(rep))}
	for v, r := range rep {
		if r == v {
			hm.welded[v] = len(hm.pos)
			hm.pos = append(hm.pos, norm.Point(mesh.Positions[v]))
		}
	}
	if len(hm.pos) > opt.MaxVertices {
		return nil, fmt.Errorf("heat: %d welded vertices exceed the limit of %d (HeatOptions.MaxVertices)", len(hm.pos), opt.MaxVertices)
	}
	for v, r := range rep {
		hm.welded[v] = hm.welded[r]
	}
	for _, t := range mesh.Triangles {
		a, b, c := hm.welded[t[0]], hm.welded[t[1]], hm.welded[t[2]]
		if a == b || b == c || a == c {
			continue
		}
		n := hm.pos[b].Sub(hm.pos[a]).Cross(hm.pos[c].Sub(hm.pos[a]))
		if n.Dot(n) <= heatDegenerateCross2D {
			continue
		}
		hm.tris = append(hm.tris, [3]int{a, b, c})
	}
	if len(hm.tris) == 0 {
		return nil, fmt.Errorf("heat: no triangle of non-zero area after welding")
	}
	return hm, nil
}

// heatSources returns, per welded vertex, its heat source p as joint shares summing
// to 1 (the joints owning its nearest visible bone and the visible bones within
// (1+Tie) of it, equally; or, when it sees none, its nearest bones, and then dist is
// negated) and the distance to the nearest.
func (hm *heatMesh) heatSources(bvh *geom.BVH, segs []Segment, opt HeatOptions) (source [][]character.Influence, dist []float64) {
	m := len(hm.pos)
	source, dist = make([][]character.Influence, m), make([]float64, m)
	parallelRange(m, opt.Workers, func(lo, hi int) {
		ds := make([]float64, len(segs))
		var joints []int
		for v := lo; v < hi; v++ {
			p := hm.pos[v]
			for i, g := range segs {
				ds[i] = g.dist(p)
			}
			// Bones in order of distance, nearest first, until one is visible; ties
			// beyond Tie go to the lower segment index (parents first), as in Rigid.
			nearest, seen := -1, false
			for t := 0; t < min(len(segs), opt.Sources.RayTests); t++ {
				i := 0
				for k, d := range ds {
					if d < ds[i] {
						i = k
					}
				}
				if t == 0 {
					nearest = i
				}
				if visible(bvh, p, vecmath.ClosestOnSegment(p, segs[i].A, segs[i].B), opt.Sources.RayOffset) {
					nearest, seen = i, true
					break
				}
				ds[i] = math.Inf(1)
			}
			d := segs[nearest].dist(p)
			joints = append(joints[:0], segs[nearest].Joint)
			if opt.Sources.Tie >= 0 {
				for k, g := range segs {
					if k == nearest || (seen && math.IsInf(ds[k], 1)) || slices.Contains(joints, g.Joint) {
						continue // bones found invisible were set to +Inf
					}
					if dk := g.dist(p); dk <= d*(1+opt.Sources.Tie) &&
						(!seen || visible(bvh, p, vecmath.ClosestOnSegment(p, g.A, g.B), opt.Sources.RayOffset)) {
						joints = append(joints, g.Joint)
					}
				}
			}
			src := make([]character.Influence, len(joints))
			for k, j := range joints {
				src[k] = character.Influence{Joint: j, Weight: 1 / float64(len(joints))}
			}
			source[v], dist[v] = src, d
			if !seen {
				dist[v] = -d
			}
		}
	})
	return source, dist
}

// fillSources makes every joint without a source one, with Fill.Share of the heat
// of the Fill.Vertices vertices nearest to its bone: a bone that is no vertex's nearest
// (a short leaf inside a thick part, an end bone past the tip) gets an influence as
// local as the surface around it allows. It returns the filled joints' vertex orders
// (nearestTo).
func (hm *heatMesh) fillSources(bvh *geom.BVH, segs []Segment, nj int, source [][]character.Influence, dist []float64, opt HeatOptions) (filled map[int][]int) {
	filled = map[int][]int{}
	has := make([]bool, nj)
	for _, src := range source {
		for _, in := range src {
			has[in.Joint] = true
		}
	}
	for j := 0; j < nj; j++ {
		if has[j] {
			continue
		}
		order, d := hm.nearestTo(bvh, segs, j, opt)
		if d[order[0]] > opt.Fill.Reach*math.Abs(dist[order[0]]) {
			continue // a bone far outside this surface (a prop's unused skeleton)
		}
		for _, v := range order[:min(opt.Fill.Vertices, len(order))] {
			source[v] = insertInfluence(source[v], j, opt.Fill.Share, len(source[v])+1, nil)
		}
		filled[j] = order
	}
	return filled
}

// nearestTo returns the welded vertices in order of distance to joint j's bones,
// except that of the nearest heatFillCandidates those that see the bone come first.
func (hm *heatMesh) nearestTo(bvh *geom.BVH, segs []Segment, j int, opt HeatOptions) (order []int, d []float64) {
	m := len(hm.pos)
	d = make([]float64, m)
	order = make([]int, m)
	for v, p := range hm.pos {
		order[v] = v
		d[v] = math.Inf(1)
		for _, g := range segs {
			if g.Joint == j {
				d[v] = math.Min(d[v], g.dist(p))
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return d[order[a]] < d[order[b]] })
	near := order[:min(heatFillCandidates, m)]
	seen := make([]bool, len(near))
	for k, v := range near {
		p := hm.pos[v]
		for _, g := range segs {
			if g.Joint == j && visible(bvh, p, vecmath.ClosestOnSegment(p, g.A, g.B), opt.Sources.RayOffset) {
				seen[k] = true
				break
			}
		}
	}
	sorted := make([]int, 0, len(near))
	for pass := 0; pass < 2; pass++ {
		for k, v := range near {
			if seen[k] == (pass == 0) {
				sorted = append(sorted, v)
			}
		}
	}
	copy(near, sorted)
	return order, d
}

// visible reports whether the segment from p to q crosses no triangle, ignoring the
// first offset (normalized units) next to p, where p's own triangles are.
func visible(bvh *geom.BVH, p, q vecmath.Vec3, offset float64) bool {
	dir := q.Sub(p)
	l := dir.Len()
	if l <= offset {
		return true
	}
	tMin := offset / l
	// limit = tMin: the first hit found ends the search (any hit blocks).
	_, hit := bvh.RayCapped(p, dir, tMin, tMin, 1)
	return !hit
}

// heatSystem is the SPD matrix L + A·H in compressed rows (off-diagonal entries
// follow the edge graph's adjacency) and the diagonal heat term A·H.
type heatSystem struct {
	g    *geom.EdgeGraph
	off  []float64 // entry k multiplies x[g.Adj[k]]
	diag []float64
	ah   []float64 // A_i·H_i, the right-hand side's scale
}

func (hm *heatMesh) system(dist []float64, opt HeatOptions) *heatSystem {
	m := len(hm.pos)
	g := geom.NewEdgeGraph(&character.Mesh{Positions: hm.pos, Triangles: hm.tris}, 0)
	s := &heatSystem{g: g, off: make([]float64, len(g.Adj)), diag: make([]float64, m), ah: make([]float64, m)}
	area := make([]float64, m)
	entry := func(i, j int) int {
		for k := g.Start[i]; k < g.Start[i+1]; k++ {
			if g.Adj[k] == j {
				return k
			}
		}
		panic("skinning: heat: edge missing from its own graph") // a bug, not bad data
	}
	cw := make([]float64, len(g.Adj)) // symmetric cotangent weight per directed entry
	for _, t := range hm.tris {
		a, b, c := hm.pos[t[0]], hm.pos[t[1]], hm.pos[t[2]]
		ar := b.Sub(a).Cross(c.Sub(a)).Len() / 2
		for k := 0; k < 3; k++ {
			area[t[k]] += ar / 3
			// The angle at corner k weighs the opposite edge.
			o, i, j := hm.pos[t[k]], t[(k+1)%3], t[(k+2)%3]
			u, v := hm.pos[i].Sub(o), hm.pos[j].Sub(o)
			cot := u.Dot(v) / u.Cross(v).Len()
			cot = math.Max(-heatMaxCotangent, math.Min(heatMaxCotangent, cot))
			cw[entry(i, j)] += cot / 2
			cw[entry(j, i)] += cot / 2
		}
	}
	meanArea := 0.0
	for _, a := range area {
		meanArea += a
	}
	meanArea /= float64(m)
	for i := 0; i < m; i++ {
		for k := g.Start[i]; k < g.Start[i+1]; k++ {
			// Negative weights (edges opposite obtuse angles) break the maximum
			// principle, which keeps weights in [0,1]; clamp them to zero.
			w := math.Max(cw[k], 0)
			s.off[k] = -w
			s.diag[i] += w
		}
		a := math.Max(area[i], heatMinAreaFraction*meanArea)
		d := math.Max(math.Abs(dist[i]), heatMinDist)
		h := opt.Sources.C / (d * d)
		if dist[i] < 0 { // occluded: the nearest bone is a fallback
			h *= opt.Sources.Occluded
		}
		s.ah[i] = a * h
		s.diag[i] += s.ah[i]
	}
	return s
}

// mul sets y = M x.
func (s *heatSystem) mul(x, y []float64) {
	g := s.g
	for i := range y {
		sum := s.diag[i] * x[i]
		for k := g.Start[i]; k < g.Start[i+1]; k++ {
			sum += s.off[k] * x[g.Adj[k]]
		}
		y[i] = sum
	}
}

// sparseWeights are one joint's weights of at least MinWeight (clamped to 1).
type sparseWeights struct {
	idx []int
	val []float32
}

// solveAll solves every joint's system on opt.Workers goroutines.
func (s *heatSystem) solveAll(nj int, source [][]character.Influence, opt HeatOptions) ([]sparseWeights, error) {
	out := make([]sparseWeights, nj)
	p := make([][]heatShare, nj) // p_j: the vertices that take heat from j, and how much
	for v, src := range source {
		for _, in := range src {
			p[in.Joint] = append(p[in.Joint], heatShare{v, in.Weight})
		}
	}
	// Workers take joints from a shared counter (no sender to block), and a
	// panic on one reaches the caller (workgroup).
	var (
		next   atomic.Int64
		g      workgroup.Group
		failed atomic.Bool
		mu     sync.Mutex
		first  error
	)
	for w := 0; w < min(opt.Workers, nj); w++ {
		g.Go(func() {
			sc := newCGScratch(len(s.diag))
			for j := int(next.Add(1)) - 1; j < nj; j = int(next.Add(1)) - 1 {
				if failed.Load() || len(p[j]) == 0 { // no source, no heat: the solution is zero
					continue
				}
				if err := s.solveJoint(p[j], sc, opt, &failed); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("joint %d: %w", j, err)
					}
					mu.Unlock()
					failed.Store(true)
					continue
				}
				var sw sparseWeights
				for i, x := range sc.x {
					if x >= opt.MinWeight {
						sw.idx = append(sw.idx, i)
						sw.val = append(sw.val, float32(math.Min(x, 1)))
					}
				}
				out[j] = sw
			}
		})
	}
	g.Wait()
	return out, first
}

// heatShare is the part of vertex's heat source that belongs to one joint.
type heatShare struct {
	vertex int
	share  float64
}

type cgScratch struct{ x, b, r, z, p, q []float64 }

func newCGScratch(n int) *cgScratch {
	f := func() []float64 { return make([]float64, n) }
	return &cgScratch{f(), f(), f(), f(), f(), f()}
}

// solveJoint solves (L + A·H) x = A·H·p_j by conjugate gradients with a Jacobi
// preconditioner, starting from p_j; the solution is left in sc.x.
func (s *heatSystem) solveJoint(pj []heatShare, sc *cgScratch, opt HeatOptions, stop *atomic.Bool) error {
	x, b, r, z, p, q := sc.x, sc.b, sc.r, sc.z, sc.p, sc.q
	for i := range x {
		x[i], b[i] = 0, 0
	}
	bnorm := 0.0
	for _, sh := range pj {
		x[sh.vertex], b[sh.vertex] = sh.share, sh.share*s.ah[sh.vertex]
		bnorm += b[sh.vertex] * b[sh.vertex]
	}
	bnorm = math.Sqrt(bnorm)
	s.mul(x, q)
	rz := 0.0
	for i := range r {
		r[i] = b[i] - q[i]
		z[i] = r[i] / s.diag[i]
		p[i] = z[i]
		rz += r[i] * z[i]
	}
	for it := 0; ; it++ {
		rnorm := 0.0
		for _, v := range r {
			rnorm += v * v
		}
		rnorm = math.Sqrt(rnorm)
		switch {
		case math.IsNaN(rnorm) || math.IsInf(rnorm, 0):
			return fmt.Errorf("conjugate gradient diverged (residual %v at iteration %d)", rnorm, it)
		case rnorm <= opt.Tol*bnorm:
			return nil
		case it == opt.MaxIter:
			return fmt.Errorf("conjugate gradient did not converge in %d iterations (relative residual %.2g > %.2g)", it, rnorm/bnorm, opt.Tol)
		case it%64 == 0 && stop.Load():
			return fmt.Errorf("stopped: another joint failed")
		}
		s.mul(p, q)
		pq := 0.0
		for i := range p {
			pq += p[i] * q[i]
		}
		if !(pq > 0) {
			return fmt.Errorf("matrix not positive definite (pᵀMp = %v at iteration %d)", pq, it)
		}
		alpha := rz / pq
		rzNew := 0.0
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * q[i]
			z[i] = r[i] / s.diag[i]
			rzNew += r[i] * z[i]
		}
		beta := rzNew / rz
		rz = rzNew
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
}
