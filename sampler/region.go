package sampler

import (
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// This file is a sampler-side constraint conditioned on the shape: joints may only be
// written where the (slightly dilated) mesh volume is. An artist's joints sit inside
// the body or on its surface; a stream that runs on past the body's joints otherwise
// wanders off into empty space, which is the model's worst failure on held-out files
// (see docs/model.md). The constraint is a mask, like the grammar: it never adds
// probability, it removes coordinates that cannot be inside.

// Region is a voxel set of the normalized cube where joints are allowed, with its
// per-axis marginals so that coordinates, which are sampled one axis at a time, are
// masked exactly: x is allowed if some (x, ·, ·) voxel is, y given x if some
// (x, y, ·) is, z given x and y if (x, y, z) is.
type Region struct {
	res   int
	occ   []bool // res³, x fastest
	anyX  []bool // res
	anyXY []bool // res², x fastest
	// binVoxel maps a coordinate bin to its voxel along an axis.
	binVoxel [tokens.CoordBins]int
	grid     *geom.VoxelGrid // the voxels' positions in the cube
}

// regionRes is the voxel resolution of MeshRegion (about 8 coordinate bins a voxel).
const regionRes = 32

// MeshRegion returns the region of a mesh in the normalized cube (nm as returned by
// rigmodel.NormalizedMesh): voxels inside by winding number or touched by the
// surface, dilated by one voxel. It returns nil for a mesh with no voxels (no
// constraint).
func MeshRegion(nm *character.Mesh) *Region {
	if len(nm.Triangles) == 0 {
		return nil
	}
	g := geom.NewVoxelGrid(nm, regionRes) // a cube: equal cells and corners on every axis
	r := &Region{res: regionRes, occ: make([]bool, len(g.Occ)), grid: g}
	n := 0
	for i, o := range g.Occ {
		if !o {
			continue
		}
		n++
		r.occ[i] = true
		g.Neighbors(i, func(j int, _ float64) { r.occ[j] = true })
	}
	if n == 0 {
		return nil
	}
	r.marginals()
	for b := range r.binVoxel {
		r.binVoxel[b] = g.AxisCell(tokens.BinCenter(b), 0)
	}
	return r
}

// marginals fills the per-axis marginals from occ.
func (r *Region) marginals() {
	r.anyX, r.anyXY = make([]bool, r.res), make([]bool, r.res*r.res)
	for i, o := range r.occ {
		if o {
			x, y := i%r.res, (i/r.res)%r.res
			r.anyX[x] = true
			r.anyXY[x+r.res*y] = true
		}
	}
}

// near returns the part of the region within dist (cube units) of a bone or joint
// of sk (a skeleton in the cube, e.g. the proposal the model reads): where a model
// that edits the proposal may put joints. It returns r when sk has no joints or no
// voxel is that near.
func (r *Region) near(sk *character.Skeleton, dist float64) *Region {
	if r == nil || sk == nil || sk.NumJoints() == 0 {
		return r
	}
	out := &Region{res: r.res, occ: make([]bool, len(r.occ)), binVoxel: r.binVoxel, grid: r.grid}
	n := 0
	for i, o := range r.occ {
		if o && nearSkeleton(sk, r.grid.Center(i), dist) {
			out.occ[i] = true
			n++
		}
	}
	if n == 0 {
		return r
	}
	out.marginals()
	return out
}

// nearSkeleton reports whether p is within dist of a joint or bone of sk.
func nearSkeleton(sk *character.Skeleton, p vecmath.Vec3, dist float64) bool {
	for j, par := range sk.Parents {
		a := sk.Position(j)
		b := a
		if par >= 0 {
			b = sk.Position(par)
		}
		if vecmath.SegmentDist(p, a, b) <= dist {
			return true
		}
	}
	return false
}

// Contains reports whether the joint whose coordinate bins are bins lies in the
// region.
func (r *Region) Contains(bins [3]int) bool { return r.allows(2, bins, bins[2]) }

// allows reports whether coordinate bin b may be axis a of a joint whose earlier
// axes are the bins in cur[:a].
func (r *Region) allows(a int, cur [3]int, b int) bool {
	v := r.binVoxel[b]
	switch a {
	case 0:
		return r.anyX[v]
	case 1:
		return r.anyXY[r.binVoxel[cur[0]]+r.res*v]
	default:
		return r.occ[r.binVoxel[cur[0]]+r.res*(r.binVoxel[cur[1]]+r.res*v)]
	}
}

// restrict removes from m the coordinate tokens outside the region for axis a of the
// current joint. If that would leave no token, m is kept as it is.
func (r *Region) restrict(m *tokens.Mask, a int, cur [3]int) {
	out := *m
	left := false
	for _, t := range m.Tokens() {
		if tokens.IsCoord(t) && !r.allows(a, cur, t-tokens.CoordBase) {
			out[t>>6] &^= 1 << (uint(t) & 63)
			continue
		}
		left = true
	}
	if left {
		*m = out
	}
}
