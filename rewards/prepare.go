package rewards

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// Options configure scoring. The zero value gives the documented defaults.
type Options struct {
	// Poses is the number of seeded random poses of the deformation reward (default 8).
	Poses int
	// Seed seeds the poses and every sample (default 1). Equal seeds give equal scores.
	Seed int64
	// MaxAngle is the largest joint rotation of a random pose in radians (default
	// defaultMaxAngle).
	MaxAngle float64
	// SurfaceSamples is the number of area-uniform surface points of the coverage
	// reward (default 512).
	SurfaceSamples int
	// MaxTriangles refuses meshes with more triangles (default 2,000,000) so that a
	// request is answered in bounded time.
	MaxTriangles int
	// MaxJoints refuses skeletons with more joints (default 4096).
	MaxJoints int
	// Motion, when set, adds poses to the deformation reward's random ones: given
	// the character's skeleton it returns frames of skinning matrices (posed world
	// × inverse bind, one per joint, in the character's own units), or none for a
	// skeleton it cannot move. Random poses turn every joint of a dense skeleton at
	// once; clips (animation.ClipPoses) move the joints an animator moves, as a
	// walk, a wave, a crouch and raised arms do, and show the armpit and groin
	// tears an animator sees. Frames that do not fit the skeleton are ignored.
	Motion func(*character.Skeleton) [][]vecmath.Mat4
	// Cancel, when closed (a request context's Done channel), stops Prepare and
	// Score between their phases and between deformation poses; they then return
	// ErrCanceled. Scores do not depend on it while it stays open.
	Cancel <-chan struct{}
}

// ErrCanceled is returned by Prepare and Score when Options.Cancel closes.
var ErrCanceled = errors.New("scoring canceled")

// canceled reports whether o.Cancel is closed.
func (o Options) canceled() bool {
	select {
	case <-o.Cancel:
		return true
	default:
		return false
	}
}

func (o Options) withDefaults() Options {
	if o.Poses <= 0 {
		o.Poses = 8
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if !(o.MaxAngle > 0) {
		o.MaxAngle = defaultMaxAngle
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

// defaultMaxAngle is 30°: METRICS.md's 45° on every joint at once tears even
// artist rigs of low-poly game meshes, which drowns the difference between smooth and
// rigid weights that the deformation reward is for.
const defaultMaxAngle = math.Pi / 6

// Sample budgets that bound the cost of one score regardless of mesh size.
const (
	maxStrainEdges    = 3000 // edges whose stretch is measured per pose
	maxFlipTriangles  = 2000 // triangles checked for flips per pose
	maxVolumeVertices = 60000
	maxLocalityVerts  = 1500
	maxFarPairs       = 512  // vertex pairs drawn for the articulation sample (≤1024 vertices)
	farPairDist       = 0.3  // cube units: the least rest distance of such a pair
	proximityRadius   = 0.02 // cube units: surface pieces this close count as touching
	// maxThickness (cube units): coverage reach never exceeds this plus the slack,
	// so a cartoon's big head or a blob's body, a part a unit wide, is covered by
	// the bones at its centre, while bones shrunk toward the centre do not cover a
	// limb (a cap of 1 let them; see docs/rewards.md, "Tried").
	maxThickness = 0.5
	// thicknessRayMax (cube units) is how far the inward thickness ray looks for the
	// opposite side: across the whole cube (its diagonal is 2√3), so that a part
	// wider than 1 finds its far side and is not taken for an open sheet.
	thicknessRayMax = 4.0
)

// ErrMeshTooLarge is returned for meshes above Options.MaxTriangles.
var ErrMeshTooLarge = errors.New("mesh too large")

// Prepared is a mesh made ready for scoring: normalized, with its BVH, winding
// number, surface samples and edge samples. Preparing dominates the cost of scoring
// one rig, so RL groups that share a mesh prepare it once (see Prepare). A Prepared
// is immutable and safe for concurrent use.
type Prepared struct {
	Norm     character.Normalization
	pos      []vecmath.Vec3 // normalized vertex positions
	tris     [][3]int
	bvh      *geom.BVH
	wn       *geom.WindingNumber
	surf     []surfPoint
	graph    surfaceGraph // mesh edges + proximity links, for influence connectivity
	piece    []int32      // connected piece of graph each vertex belongs to
	locVerts []int
	prepSettings
	shape meshShape // mirror plane and limb tips, for the semantic rewards
	deformSample
}

// prepSettings are the options a Prepared was made with.
type prepSettings struct {
	seed      int64
	nSurfaces int
}

// deformSample is what the deformation reward poses, drawn once per mesh
// (sampleDeformation).
type deformSample struct {
	edges       []restEdge
	flipTris    []int
	flipNormals []vecmath.Vec3 // rest normals of flipTris (unnormalized)
	defVerts    []int          // vertices the deformation reward poses
	volTris     bool           // whether the mesh is closed enough for a volume ratio
	restVol     float64
	affine      affineFit // least-squares affine fit over the articulation sample
}

type surfPoint struct {
	p, n      vecmath.Vec3
	thickness float64 // inward ray length across the part, capped
	vert      int     // the corner of the sample's triangle nearest to it, whose weights it takes
}

type restEdge struct {
	a, b int
	len  float64
}

// Prepare normalizes and indexes a mesh for scoring. It fails on an empty or
// non-finite mesh and on meshes above opt.MaxTriangles.
func Prepare(m *character.Mesh, opt Options) (*Prepared, error) {
	opt = opt.withDefaults()
	if len(m.Triangles) > opt.MaxTriangles {
		return nil, fmt.Errorf("prepare mesh: %d triangles above the limit of %d: %w", len(m.Triangles), opt.MaxTriangles, ErrMeshTooLarge)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("prepare mesh: %w", err)
	}
	norm := character.NormalizationOf(*m)
	p := &Prepared{Norm: norm, tris: m.Triangles, prepSettings: prepSettings{seed: opt.Seed, nSurfaces: opt.SurfaceSamples}}
	p.pos = make([]vecmath.Vec3, len(m.Positions))
	for i, q := range m.Positions {
		p.pos[i] = norm.Point(q)
	}
	nm := &character.Mesh{Positions: p.pos, Triangles: m.Triangles}
	p.bvh = geom.NewBVH(nm)
	if opt.canceled() {
		return nil, ErrCanceled
	}
	p.wn = geom.NewWindingNumberBVH(p.bvh)
	rng := rand.New(rand.NewSource(opt.Seed))

	p.sampleSurface(nm, opt.SurfaceSamples, rng)
	if len(p.surf) == 0 {
		return nil, errors.New("prepare mesh: the mesh has no surface area")
	}

	if opt.canceled() {
		return nil, ErrCanceled
	}
	mesh := geom.NewEdgeGraph(m, 0)
	p.graph = newSurfaceGraph(p.pos, mesh.Edges, proximityRadius)
	if opt.canceled() {
		return nil, ErrCanceled
	}
	p.piece = p.graph.pieces()

	boundary := 1.0 // the share of open edges
	if len(mesh.Edges) > 0 {
		boundary = float64(mesh.Open) / float64(len(mesh.Edges))
	}
	p.sampleDeformation(mesh.Edges, boundary, rng)
	if opt.canceled() {
		return nil, ErrCanceled
	}
	p.shape = p.findShape()
	if opt.canceled() {
		return nil, ErrCanceled
	}
	stride := (len(p.pos) + maxLocalityVerts - 1) / maxLocalityVerts
	for v := 0; v < len(p.pos); v += stride {
		p.locVerts = append(p.locVerts, v)
	}
	return p, nil
}

// sampleSurface draws n surface points (the rng's first use, so samples follow
// the seed) with each one's thickness: the nearest opposite side, capped at
// maxThickness; 0.2 for an open sheet (none found).
func (p *Prepared) sampleSurface(nm *character.Mesh, n int, rng *rand.Rand) {
	for _, s := range geom.SampleSurface(nm, n, rng) {
		th := 0.2
		if t, ok := p.bvh.RayCapped(s.Point, s.Normal.Scale(-1), 1e-4, maxThickness, thicknessRayMax); ok {
			th = t
		}
		corner := 0
		for k := 1; k < 3; k++ {
			if s.Bary[k] > s.Bary[corner] {
				corner = k
			}
		}
		p.surf = append(p.surf, surfPoint{p: s.Point, n: s.Normal, thickness: math.Min(th, maxThickness), vert: p.tris[s.Triangle][corner]})
	}
}

// sampleDeformation draws what the deformation reward poses: strain edges, fold
// triangles with their bind normals, the volume of a nearly closed mesh, the
// articulation sample, and the vertices all of these touch (defVerts), so a pose
// skins only those.
func (p *Prepared) sampleDeformation(meshEdges [][2]int, boundary float64, rng *rand.Rand) {
	// Edge and triangle samples for the deformation reward, deterministic by seed.
	// The shuffles move edges and indices; only the kept samples are built.
	keep := meshEdges[:0] // the graph is built: filter the edges in place
	for _, e := range meshEdges {
		if p.pos[e[0]].Dist(p.pos[e[1]]) > 1e-6 {
			keep = append(keep, e)
		}
	}
	rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
	keep = keep[:min(len(keep), maxStrainEdges)]
	p.edges = make([]restEdge, len(keep))
	for i, e := range keep {
		p.edges[i] = restEdge{e[0], e[1], p.pos[e[0]].Dist(p.pos[e[1]])}
	}
	flips := make([]int32, 0, len(p.tris))
	for t, tr := range p.tris {
		a, b, c := p.pos[tr[0]], p.pos[tr[1]], p.pos[tr[2]]
		if b.Sub(a).Cross(c.Sub(a)).Len() > 1e-8 {
			flips = append(flips, int32(t))
		}
	}
	rng.Shuffle(len(flips), func(i, j int) { flips[i], flips[j] = flips[j], flips[i] })
	p.flipTris = make([]int, min(len(flips), maxFlipTriangles))
	for i := range p.flipTris {
		p.flipTris[i] = int(flips[i])
	}
	p.flipNormals = make([]vecmath.Vec3, len(p.flipTris))
	for i, t := range p.flipTris {
		tr := p.tris[t]
		p.flipNormals[i] = p.pos[tr[1]].Sub(p.pos[tr[0]]).Cross(p.pos[tr[2]].Sub(p.pos[tr[0]]))
	}
	// Volume only for meshes that are nearly closed and small enough to pose whole.
	if boundary < 0.05 && len(p.pos) <= maxVolumeVertices {
		p.restVol = signedVolume(p.pos, p.tris)
		p.volTris = math.Abs(p.restVol) > 1e-4
	}
	// The articulation sample: the ends of random vertex pairs at least 0.3 apart,
	// so that it spans the mesh.
	var farPairs []restEdge
	for tries := 0; tries < 20*maxFarPairs && len(farPairs) < maxFarPairs && len(p.pos) > 1; tries++ {
		a, b := rng.Intn(len(p.pos)), rng.Intn(len(p.pos))
		if l := p.pos[a].Dist(p.pos[b]); l >= farPairDist {
			farPairs = append(farPairs, restEdge{a, b, l})
		}
	}
	p.affine = newAffineFit(p.pos, farPairs)
	used := make([]bool, len(p.pos))
	for _, v := range p.affine.verts {
		used[v] = true
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
		for _, v := range p.tris[t] {
			used[v] = true
		}
	}
	for v, u := range used {
		if u {
			p.defVerts = append(p.defVerts, v)
		}
	}
}

// Matches reports whether m has this prepared mesh's vertex and triangle counts (the
// cheap check Score makes before reusing it).
func (p *Prepared) matches(m *character.Mesh) bool {
	return len(m.Positions) == len(p.pos) && len(m.Triangles) == len(p.tris)
}

func signedVolume(pos []vecmath.Vec3, tris [][3]int) float64 {
	v := 0.0
	for _, t := range tris {
		v += pos[t[0]].Dot(pos[t[1]].Cross(pos[t[2]]))
	}
	return v / 6
}

// SizeBytes estimates the memory the prepared mesh holds (positions, BVH, graph and
// samples), for bounding a Cache.
func (p *Prepared) sizeBytes() int64 {
	nv, nt := int64(len(p.pos)), int64(len(p.tris))
	links := int64(len(p.graph.adj))
	const vec, word = 24, 8
	size := nv*vec + // positions
		nt*(3*word+word+48) + // BVH triangles, ids and nodes (≈ one 176-byte node per 4 triangles)
		nv*8 + links*4 + // adjacency and pieces
		int64(len(p.surf))*(2*vec+word) +
		int64(len(p.edges))*3*word + int64(len(p.affine.verts))*(word+vec) +
		int64(len(p.flipTris))*(word+vec) +
		int64(len(p.defVerts)+len(p.locVerts))*word +
		int64(len(p.shape.tips))*(vec+word)
	return size + 1024
}

// affineFit fits the best affine map from a sample of rest positions to their posed
// positions by least squares, to measure how far a pose is from any single affine
// transform of the mesh: a rigid motion, or the one blended transform that equal
// weights on every joint give, moves the mesh without articulating it. With both
// point sets centred, the translation is the difference of the centroids and the
// linear part is M·C⁺, M = Σ posed·restᵀ, C = Σ rest·restᵀ, C⁺ its pseudo-inverse (a
// flat mesh, such as a sail, has a singular C: its out-of-plane direction is left
// free instead of fitted to noise).
type affineFit struct {
	verts  []int
	rest   []vecmath.Vec3 // rest positions minus their centroid
	pinv   [3][3]float64  // C⁺
	spread float64        // RMS distance of the rest positions from their centroid
}

func newAffineFit(pos []vecmath.Vec3, pairs []restEdge) affineFit {
	var f affineFit
	seen := make([]bool, len(pos))
	for _, e := range pairs {
		for _, v := range [2]int{e.a, e.b} {
			if !seen[v] {
				seen[v] = true
				f.verts = append(f.verts, v)
			}
		}
	}
	if len(f.verts) < 4 {
		return affineFit{}
	}
	var c vecmath.Vec3
	for _, v := range f.verts {
		c = c.Add(pos[v])
	}
	c = c.Scale(1 / float64(len(f.verts)))
	var cov [3][3]float64
	for _, v := range f.verts {
		q := pos[v].Sub(c)
		f.rest = append(f.rest, q)
		f.spread += q.Dot(q)
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				cov[i][k] += q[i] * q[k]
			}
		}
	}
	f.spread = math.Sqrt(f.spread / float64(len(f.verts)))
	if !(f.spread > 0) {
		return affineFit{}
	}
	f.pinv = pseudoInverse3(cov)
	return f
}

// pseudoInverse3 returns the Moore–Penrose pseudo-inverse of a symmetric 3×3 matrix
// by Jacobi eigen-decomposition, dropping eigenvalues below 1e-9 of the largest.
func pseudoInverse3(a [3][3]float64) [3][3]float64 {
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 50; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		if off < 1e-30*(a[0][0]*a[0][0]+a[1][1]*a[1][1]+a[2][2]*a[2][2]) {
			break
		}
		for p := 0; p < 2; p++ {
			for q := p + 1; q < 3; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				// a ← Jᵀ a J, v ← v J for the rotation J in the (p, q) plane.
				for k := 0; k < 3; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = cs*akp-sn*akq, sn*akp+cs*akq
				}
				for k := 0; k < 3; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = cs*apk-sn*aqk, sn*apk+cs*aqk
				}
				for k := 0; k < 3; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = cs*vkp-sn*vkq, sn*vkp+cs*vkq
				}
			}
		}
	}
	top := math.Max(math.Abs(a[0][0]), math.Max(math.Abs(a[1][1]), math.Abs(a[2][2])))
	var out [3][3]float64
	for e := 0; e < 3; e++ {
		l := a[e][e]
		if !(math.Abs(l) > 1e-9*top) {
			continue
		}
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				out[i][k] += v[i][e] * v[k][e] / l
			}
		}
	}
	return out
}

// residual returns the RMS distance of the posed positions def[verts] from the best
// affine image of the rest positions, relative to the rest spread.
func (f *affineFit) residual(def []vecmath.Vec3) float64 {
	if len(f.verts) == 0 {
		return 0
	}
	var mean vecmath.Vec3
	for _, v := range f.verts {
		mean = mean.Add(def[v])
	}
	mean = mean.Scale(1 / float64(len(f.verts)))
	var m [3][3]float64 // Σ (posed − mean) · restᵀ
	for i, v := range f.verts {
		e, q := def[v].Sub(mean), f.rest[i]
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				m[a][b] += e[a] * q[b]
			}
		}
	}
	var lin [3][3]float64 // M · C⁺
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			for k := 0; k < 3; k++ {
				lin[a][b] += m[a][k] * f.pinv[k][b]
			}
		}
	}
	sum := 0.0
	for i, v := range f.verts {
		e, q := def[v].Sub(mean), f.rest[i]
		for a := 0; a < 3; a++ {
			fit := lin[a][0]*q[0] + lin[a][1]*q[1] + lin[a][2]*q[2]
			sum += sq(e[a] - fit)
		}
	}
	r := math.Sqrt(sum/float64(len(f.verts))) / f.spread
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return 1
	}
	return r
}
