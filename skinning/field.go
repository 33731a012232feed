package skinning

import (
	"errors"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/vecmath"
)

// Defaults of GeodesicOptions.
const (
	DefaultMinResolution = 64
	DefaultMaxResolution = 128
	DefaultMaxVoxels     = 1 << 21
	DefaultCutoff        = 4.0
)

// FieldOptions control the voxelization and the geodesic search.
type FieldOptions struct {
	// Resolution is the number of voxels along the longest axis of the normalized
	// bounding box; 0 picks it from the mesh (see autoResolution).
	Resolution int
	// MaxVoxels bounds the grid size; the resolution is lowered to fit (0: DefaultMaxVoxels).
	MaxVoxels int
	// Cutoff stops each bone's search where its distance exceeds Cutoff times the
	// nearest bone's distance (plus two voxels); farther vertices get +Inf for that
	// bone. 0: DefaultCutoff; negative: no cutoff (exact distances everywhere).
	Cutoff float64
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
	// Cancel, when closed, stops the voxelization and the searches early and
	// NewField returns ErrCanceled: a scoring service's deadline reaches the
	// seconds of winding-number queries a large mesh costs.
	Cancel <-chan struct{}
}

// ErrCanceled is NewField's error when FieldOptions.Cancel closed before it finished.
var ErrCanceled = errors.New("skinning: geodesic field canceled")

// closed reports whether c is closed (never, for a nil channel).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Field is the geodesic distance from every vertex to every bone through the solid
// voxelization of the mesh, in normalized units (the mesh's bounding box scaled to a
// largest extent of 2, shared/METRICS.md).
type Field struct {
	NumVertices, NumJoints int
	FieldStats

	dist []float32 // NumVertices×NumJoints, +Inf beyond the cutoff
	// eucl holds NumVertices×NumJoints Euclidean distances to the bones, computed on
	// first use (fallbacks, leakage).
	eucl     []float32
	euclOnce sync.Once
	workers  int
	normPos  []vecmath.Vec3
	norm     character.Normalization
	segs     []Segment // normalized
}

// FieldStats describes the voxel grid a Field was measured in and counts and times
// the work of building it, for reports and benchmarks.
type FieldStats struct {
	// VoxelSize is the voxel edge in normalized units and Grid the grid's cell counts.
	VoxelSize float64
	Grid      [3]int
	// SolidVoxels counts the voxels inside or touching the surface.
	SolidVoxels int
	// Islands counts solid parts no bone passes through, attached by a bridge edge to
	// the nearest reached part.
	Islands int
	// Fallbacks counts vertices no search reached (they use Euclidean distances).
	Fallbacks int
	// WindingQueries counts winding-number evaluations of the voxelization.
	WindingQueries int
	// Timings of the stages, for reports.
	VoxelizeTime, SearchTime time.Duration
}

// Dist returns the geodesic distance from vertex v to joint j's bone, in normalized
// units, or +Inf where the bone's search stopped before reaching v.
func (f *Field) Dist(v, j int) float64 { return float64(f.dist[v*f.NumJoints+j]) }

// euclideanDist returns the straight-line distance from vertex v to joint j's bone, in
// normalized units.
func (f *Field) euclideanDist(v, j int) float64 { return float64(f.euclidean()[v*f.NumJoints+j]) }

func (f *Field) euclidean() []float32 {
	f.euclOnce.Do(func() {
		nj := f.NumJoints
		f.eucl = make([]float32, f.NumVertices*nj)
		parallelRange(f.NumVertices, f.workers, func(lo, hi int) {
			d := make([]float64, nj)
			for v := lo; v < hi; v++ {
				jointDistances(f.normPos[v], f.segs, d)
				for j, x := range d {
					f.eucl[v*nj+j] = float32(x)
				}
			}
		})
	})
	return f.eucl
}

// autoResolution picks the grid resolution for a character: fine enough that the
// thin parts (the 10th percentile of vertex-to-bone distance, a proxy for the radius
// of fingers and tails) span about 2.5 voxels, clamped to [64, 128] along the longest
// axis of the normalized box.
func autoResolution(c *character.Character) int {
	norm := character.NormalizationOf(c.Mesh)
	segs := normalizedBones(c.Skeleton, norm)
	n := len(c.Mesh.Positions)
	stride := max(1, n/2000)
	var ds []float64
	for v := 0; v < n; v += stride {
		p := norm.Point(c.Mesh.Positions[v])
		best := math.Inf(1)
		for _, s := range segs {
			best = math.Min(best, s.dist(p))
		}
		ds = append(ds, best)
	}
	res := DefaultMinResolution
	if len(ds) > 0 {
		sort.Float64s(ds)
		r := ds[len(ds)/10]
		if r > 0 {
			res = int(math.Ceil(2 / (r / 2.5)))
		}
	}
	return clampInt(res, DefaultMinResolution, DefaultMaxResolution)
}

// LeafExtension is how far the geodesic search stretches a leaf joint's bone beyond
// the joint, continuing its parent link, as a fraction of that link's length (a foot
// or fingertip joint then owns the volume past it, as a Blender bone's tail would).
// The rigid floor keeps leaves as points (METRICS.md's nearest bone segment).
const LeafExtension = 0.25

var leafExtension = LeafExtension

func normalizedBones(s *character.Skeleton, norm character.Normalization) []Segment {
	segs := bonesExt(s, leafExtension)
	for i := range segs {
		segs[i].A = norm.Point(segs[i].A)
		segs[i].B = norm.Point(segs[i].B)
	}
	return segs
}

// NewField voxelizes the character's mesh and measures geodesic distances from every
// bone to every vertex (see the package comment for what a bone is).
func NewField(c *character.Character, opt FieldOptions) (*Field, error) {
	if err := checkCharacter(c); err != nil {
		return nil, err
	}
	t0 := time.Now()
	workers := defaultWorkers(opt.Workers)
	norm := character.NormalizationOf(c.Mesh)
	nv, nj := len(c.Mesh.Positions), c.Skeleton.NumJoints()
	mesh := character.Mesh{Positions: make([]vecmath.Vec3, nv), Triangles: c.Mesh.Triangles}
	for v, p := range c.Mesh.Positions {
		mesh.Positions[v] = norm.Point(p)
	}
	segs := normalizedBones(c.Skeleton, norm)
	f := &Field{NumVertices: nv, NumJoints: nj, norm: norm, segs: segs}
	f.workers, f.normPos = workers, mesh.Positions
	sg, h := f.voxelize(c, &mesh, opt)
	f.VoxelizeTime = time.Since(t0)
	if closed(opt.Cancel) {
		return nil, ErrCanceled
	}
	t1 := time.Now()
	seeds, all := f.jointSeeds(sg)
	// Cells around each vertex.
	cells := make([][]seed, nv)
	for v, p := range mesh.Positions {
		cells[v] = sg.vertexCells(p, nil)
	}
	f.searchJoints(sg, seeds, searchLimit(sg, all, opt.Cutoff, h), cells, opt.Cancel)
	if closed(opt.Cancel) {
		return nil, ErrCanceled
	}
	f.euclideanFallbacks()
	f.SearchTime = time.Since(t1)
	return f, nil
}

// voxelize builds the solid voxel grid over the normalized mesh and its bones
// (surface cells, then the interior by winding number) and returns its graph and
// voxel size.
func (f *Field) voxelize(c *character.Character, mesh *character.Mesh, opt FieldOptions) (*solidGraph, float64) {
	res := opt.Resolution
	if res <= 0 {
		res = autoResolution(c)
	}
	maxVox := opt.MaxVoxels
	if maxVox <= 0 {
		maxVox = DefaultMaxVoxels
	}
	lo, hi := mesh.Bounds()
	for _, s := range f.segs {
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], math.Min(s.A[a], s.B[a]))
			hi[a] = math.Max(hi[a], math.Max(s.A[a], s.B[a]))
		}
	}
	// A closed Cancel answers every later winding query with "outside" at once,
	// so the voxelization ends in the time of its surface pass.
	wn := geom.NewWindingNumber(mesh)
	wind := wn.At
	if opt.Cancel != nil {
		wind = func(p vecmath.Vec3) float64 {
			if closed(opt.Cancel) {
				return 0
			}
			return wn.At(p)
		}
	}
	g, queries := geom.VoxelizeBoxWith(mesh, lo, hi, res, maxVox, f.workers, wind)
	g.WN = wn
	f.WindingQueries = queries
	f.VoxelSize, f.Grid = g.Size, g.N
	sg := newSolidGraph(g)
	f.SolidVoxels = sg.numSolid()
	return sg, g.Size
}

// jointSeeds returns each joint's seed cells (its bones' cells) and all of them,
// and bridges the islands no bone passes through.
func (f *Field) jointSeeds(sg *solidGraph) ([][]seed, []seed) {
	var nearOnce sync.Once
	var near []int32
	nearFn := func() []int32 {
		nearOnce.Do(func() { near = sg.nearestSolid() })
		return near
	}
	byJoint := make([][]Segment, f.NumJoints)
	for _, s := range f.segs {
		byJoint[s.Joint] = append(byJoint[s.Joint], s)
	}
	seeds := make([][]seed, f.NumJoints)
	seeded := make([]bool, sg.numSolid())
	var all []seed
	for j := range seeds {
		seeds[j] = sg.segmentSeeds(byJoint[j], nearFn)
		for _, s := range seeds[j] {
			seeded[s.v] = true
		}
		all = append(all, seeds[j]...)
	}
	f.Islands = sg.bridgeIslands(seeded)
	return seeds, all
}

// searchLimit bounds each bone's search by the distance to the nearest bone: a cell
// farther than cutoff times it (plus two voxels) is not expanded. nil: no bound.
func searchLimit(sg *solidGraph, all []seed, cutoff, h float64) []float32 {
	if cutoff == 0 {
		cutoff = DefaultCutoff
	}
	if cutoff <= 0 || math.IsInf(cutoff, 1) {
		return nil
	}
	w := newDijkstraWork(sg.numSolid())
	sg.run(all, nil, w)
	limit := make([]float32, sg.numSolid())
	pad := float32(2 * h)
	for i, d := range w.dist {
		limit[i] = float32(cutoff)*d + pad
	}
	return limit
}

// searchJoints runs one bounded search per joint on the workers and fills f.dist:
// a vertex's distance is the least over its cells of cell distance plus offset.
// The workers take no further joint once cancel closes.
func (f *Field) searchJoints(sg *solidGraph, seeds [][]seed, limit []float32, cells [][]seed, cancel <-chan struct{}) {
	nv, nj := f.NumVertices, f.NumJoints
	f.dist = make([]float32, nv*nj)
	inf := float32(math.Inf(1))
	// Workers take joints from a shared counter (no sender to block), and a
	// panic on one reaches the caller (workgroup).
	var next atomic.Int64
	var g workgroup.Group
	for w := 0; w < f.workers; w++ {
		g.Go(func() {
			work := newDijkstraWork(sg.numSolid())
			for j := int(next.Add(1)) - 1; j < nj && !closed(cancel); j = int(next.Add(1)) - 1 {
				sg.run(seeds[j], limit, work)
				for v := 0; v < nv; v++ {
					best := inf
					for _, cl := range cells[v] {
						if d := work.dist[cl.v] + cl.d; d < best {
							best = d
						}
					}
					f.dist[v*nj+j] = best
				}
			}
		})
	}
	g.Wait()
}

// euclideanFallbacks gives a vertex no search reached Euclidean distances.
func (f *Field) euclideanFallbacks() {
	nj := f.NumJoints
	for v := 0; v < f.NumVertices; v++ {
		row := f.dist[v*nj : (v+1)*nj]
		reached := false
		for _, d := range row {
			if !math.IsInf(float64(d), 1) {
				reached = true
				break
			}
		}
		if !reached {
			f.Fallbacks++
			copy(row, f.euclidean()[v*nj:(v+1)*nj])
		}
	}
}

// parallelRange splits [0,n) into contiguous chunks run on up to workers goroutines.
func parallelRange(n, workers int, fn func(lo, hi int)) {
	if workers <= 1 || n < 256 {
		fn(0, n)
		return
	}
	var g workgroup.Group
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		g.Go(func() { fn(lo, hi) })
	}
	g.Wait()
}

func clampInt(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// defaultWorkers is n, or GOMAXPROCS when n is 0 or less.
func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
