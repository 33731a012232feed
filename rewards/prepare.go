package rewards

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/geom"
)

// Options configure scoring. The zero value gives the documented defaults.
type Options struct {
	// Poses is the number of seeded random poses of the deformation reward (default 8).
	Poses int
	// Seed seeds the poses and every sample (default 1). Equal seeds give equal scores.
	Seed int64
	// MaxAngle is the largest joint rotation of a random pose in radians (default
	// DefaultMaxAngle).
	MaxAngle float64
	// SurfaceSamples is the number of area-uniform surface points of the coverage
	// reward (default 512).
	SurfaceSamples int
	// MaxTriangles refuses meshes with more triangles (default 2,000,000) so that a
	// request is answered in bounded time.
	MaxTriangles int
	// MaxJoints refuses skeletons with more joints (default 4096).
	MaxJoints int
}

func (o Options) withDefaults() Options {
	if o.Poses <= 0 {
		o.Poses = 8
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if !(o.MaxAngle > 0) {
		o.MaxAngle = DefaultMaxAngle
	}
	if o.SurfaceSamples <= 0 {
		o.SurfaceSamples = 512
	}
	if o.MaxTriangles <= 0 {
		o.MaxTriangles = 2_000_000
	}
	if o.MaxJoints <= 0 {
		o.MaxJoints = 4096
	}
	return o
}

// DefaultMaxAngle is 30°: METRICS.md's 45° on every joint at once tears even
// artist rigs of low-poly game meshes, which drowns the difference between smooth and
// rigid weights that the deformation reward is for.
const DefaultMaxAngle = math.Pi / 6

// Sample budgets that bound the cost of one score regardless of mesh size.
const (
	maxStrainEdges    = 3000 // edges whose stretch is measured per pose
	maxFlipTriangles  = 2000 // triangles checked for flips per pose
	maxVolumeVertices = 60000
	maxLocalityVerts  = 1500
	maxFarPairs       = 512  // vertex pairs whose distance change measures articulation
	farPairDist       = 0.3  // cube units: the least rest distance of such a pair // vertices whose weight locality is measured
	proximityRadius   = 0.02 // cube units: surface pieces this close count as touching
	maxThickness      = 0.25 // cube units: coverage reach never exceeds 1.5× this
)

// ErrMeshTooLarge is returned for meshes above Options.MaxTriangles.
var ErrMeshTooLarge = errors.New("mesh too large")

// Prepared is a mesh made ready for scoring: normalized, with its BVH, winding
// number, surface samples and edge samples. Preparing dominates the cost of scoring
// one rig, so RL groups that share a mesh prepare it once (see Prepare). A Prepared
// is immutable and safe for concurrent use.
type Prepared struct {
	Norm        assets.Normalization
	pos         []assets.Vec3 // normalized vertex positions
	tris        [][3]int
	bvh         *geom.BVH
	wn          *geom.WindingNumber
	surf        []surfPoint
	graph       [][]int // mesh edges + proximity links, for influence connectivity
	edges       []restEdge
	flipTris    []int
	flipNormals []assets.Vec3 // rest normals of flipTris (unnormalized)
	farPairs    []restEdge    // random vertex pairs far apart, for articulation
	defVerts    []int         // vertices the deformation reward poses
	volTris     bool          // whether the mesh is closed enough for a volume ratio
	restVol     float64
	locVerts    []int
	seed        int64
	nSurfaces   int
}

type surfPoint struct {
	p, n      assets.Vec3
	thickness float64 // inward ray length across the part, capped
}

type restEdge struct {
	a, b int
	len  float64
}

// Prepare normalizes and indexes a mesh for scoring. It fails on an empty or
// non-finite mesh and on meshes above opt.MaxTriangles.
func Prepare(m *assets.Mesh, opt Options) (*Prepared, error) {
	opt = opt.withDefaults()
	if len(m.Triangles) > opt.MaxTriangles {
		return nil, fmt.Errorf("prepare mesh: %d triangles above the limit of %d: %w", len(m.Triangles), opt.MaxTriangles, ErrMeshTooLarge)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("prepare mesh: %w", err)
	}
	norm := assets.NormalizationOf(*m)
	p := &Prepared{Norm: norm, tris: m.Triangles, seed: opt.Seed, nSurfaces: opt.SurfaceSamples}
	p.pos = make([]assets.Vec3, len(m.Positions))
	for i, q := range m.Positions {
		p.pos[i] = norm.Point(q)
	}
	nm := &assets.Mesh{Positions: p.pos, Triangles: m.Triangles}
	p.bvh = geom.NewBVH(nm)
	p.wn = geom.NewWindingNumberBVH(p.bvh)
	rng := rand.New(rand.NewSource(opt.Seed))

	for _, s := range geom.SampleSurface(nm, opt.SurfaceSamples, rng) {
		th := 0.2 // an open sheet: no opposite side found
		if hit, ok := p.bvh.Ray(s.Point, s.Normal.Scale(-1), 1e-4, 1); ok {
			th = hit.T
		}
		p.surf = append(p.surf, surfPoint{p: s.Point, n: s.Normal, thickness: math.Min(th, maxThickness)})
	}
	if len(p.surf) == 0 {
		return nil, errors.New("prepare mesh: the mesh has no surface area")
	}

	g := geom.NewEdgeGraph(nm, 0)
	p.graph = make([][]int, len(p.pos))
	for v := range p.pos {
		p.graph[v] = append([]int(nil), g.Neighbors(v)...)
	}
	addProximityLinks(p.pos, p.graph, proximityRadius)

	// Edge and triangle samples for the deformation reward, deterministic by seed.
	edges := make([]restEdge, 0, len(g.Edges))
	for _, e := range g.Edges {
		if l := p.pos[e[0]].Dist(p.pos[e[1]]); l > 1e-6 {
			edges = append(edges, restEdge{e[0], e[1], l})
		}
	}
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	if len(edges) > maxStrainEdges {
		edges = edges[:maxStrainEdges]
	}
	p.edges = edges
	var flips []int
	for t, tr := range m.Triangles {
		a, b, c := p.pos[tr[0]], p.pos[tr[1]], p.pos[tr[2]]
		if b.Sub(a).Cross(c.Sub(a)).Len() > 1e-8 {
			flips = append(flips, t)
		}
	}
	rng.Shuffle(len(flips), func(i, j int) { flips[i], flips[j] = flips[j], flips[i] })
	if len(flips) > maxFlipTriangles {
		flips = flips[:maxFlipTriangles]
	}
	p.flipTris = flips
	p.flipNormals = make([]assets.Vec3, len(flips))
	for i, t := range flips {
		tr := m.Triangles[t]
		p.flipNormals[i] = p.pos[tr[1]].Sub(p.pos[tr[0]]).Cross(p.pos[tr[2]].Sub(p.pos[tr[0]]))
	}
	// Volume only for meshes that are nearly closed and small enough to pose whole.
	boundary := boundaryEdgeFraction(m.Triangles)
	if boundary < 0.05 && len(p.pos) <= maxVolumeVertices {
		p.restVol = signedVolume(p.pos, m.Triangles)
		p.volTris = math.Abs(p.restVol) > 1e-4
	}
	// Far vertex pairs: rigid motion keeps their distances, articulation changes them.
	for tries := 0; tries < 20*maxFarPairs && len(p.farPairs) < maxFarPairs && len(p.pos) > 1; tries++ {
		a, b := rng.Intn(len(p.pos)), rng.Intn(len(p.pos))
		if l := p.pos[a].Dist(p.pos[b]); l >= farPairDist {
			p.farPairs = append(p.farPairs, restEdge{a, b, l})
		}
	}
	used := make([]bool, len(p.pos))
	for _, e := range p.farPairs {
		used[e.a], used[e.b] = true, true
	}
	if p.volTris {
		for v := range used {
			used[v] = true
		}
	}
	for _, e := range p.edges {
		used[e.a], used[e.b] = true, true
	}
	for _, t := range p.flipTris {
		for _, v := range m.Triangles[t] {
			used[v] = true
		}
	}
	for v, u := range used {
		if u {
			p.defVerts = append(p.defVerts, v)
		}
	}
	stride := (len(p.pos) + maxLocalityVerts - 1) / maxLocalityVerts
	for v := 0; v < len(p.pos); v += stride {
		p.locVerts = append(p.locVerts, v)
	}
	return p, nil
}

// NumVertices returns the vertex count of the prepared mesh.
func (p *Prepared) NumVertices() int { return len(p.pos) }

// NumTriangles returns the triangle count of the prepared mesh.
func (p *Prepared) NumTriangles() int { return len(p.tris) }

// Matches reports whether m has this prepared mesh's vertex and triangle counts (the
// cheap check Score makes before reusing it).
func (p *Prepared) Matches(m *assets.Mesh) bool {
	return len(m.Positions) == len(p.pos) && len(m.Triangles) == len(p.tris)
}

// addProximityLinks joins vertices closer than r (cube units) that are not already
// neighbours, at most a few per vertex, so that touching but unconnected mesh pieces
// (a belt on a body, a duplicated seam) count as one surface.
func addProximityLinks(pos []assets.Vec3, graph [][]int, r float64) {
	type cell [3]int64
	key := func(q assets.Vec3) cell {
		return cell{int64(math.Floor(q[0] / r)), int64(math.Floor(q[1] / r)), int64(math.Floor(q[2] / r))}
	}
	grid := make(map[cell][]int, len(pos))
	for v, q := range pos {
		k := key(q)
		grid[k] = append(grid[k], v)
	}
	const maxLinks = 6
	for v, q := range pos {
		k := key(q)
		links := 0
		for dx := int64(-1); dx <= 1 && links < maxLinks; dx++ {
			for dy := int64(-1); dy <= 1 && links < maxLinks; dy++ {
				for dz := int64(-1); dz <= 1 && links < maxLinks; dz++ {
					for _, u := range grid[cell{k[0] + dx, k[1] + dy, k[2] + dz}] {
						if u <= v || pos[u].Dist(q) > r {
							continue
						}
						graph[v] = append(graph[v], u)
						graph[u] = append(graph[u], v)
						links++
						if links >= maxLinks {
							break
						}
					}
				}
			}
		}
	}
}

func boundaryEdgeFraction(tris [][3]int) float64 {
	count := make(map[[2]int]int, 3*len(tris)/2)
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			count[[2]int{a, b}]++
		}
	}
	if len(count) == 0 {
		return 1
	}
	open := 0
	for _, c := range count {
		if c == 1 {
			open++
		}
	}
	return float64(open) / float64(len(count))
}

func signedVolume(pos []assets.Vec3, tris [][3]int) float64 {
	v := 0.0
	for _, t := range tris {
		v += pos[t[0]].Dot(pos[t[1]].Cross(pos[t[2]]))
	}
	return v / 6
}

// segDist returns the distance from p to segment ab.
func segDist(p, a, b assets.Vec3) float64 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return p.Dist(a)
	}
	t := p.Sub(a).Dot(ab) / l2
	t = math.Max(0, math.Min(1, t))
	return p.Dist(a.Add(ab.Scale(t)))
}
