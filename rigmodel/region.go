package rigmodel

import (
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/geom"
	"github.com/rigkit/rigkit/tokens"
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
}

// regionRes is the voxel resolution of MeshRegion (about 8 coordinate bins a voxel).
const regionRes = 32

// MeshRegion returns the region of a mesh in the normalized cube (nm as returned by
// NormalizedMesh): voxels inside by winding number or touched by the surface, dilated
// by one voxel. It returns nil for a mesh with no voxels (no constraint).
func MeshRegion(nm *assets.Mesh) *Region {
	if len(nm.Triangles) == 0 {
		return nil
	}
	g := geom.NewVoxelGrid(nm, regionRes) // a cube: equal cells and corners on every axis
	r := &Region{res: regionRes, occ: make([]bool, len(g.Occ)),
		anyX: make([]bool, regionRes), anyXY: make([]bool, regionRes*regionRes)}
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
	for i, o := range r.occ {
		if o {
			x, y := i%r.res, (i/r.res)%r.res
			r.anyX[x] = true
			r.anyXY[x+r.res*y] = true
		}
	}
	for b := range r.binVoxel {
		r.binVoxel[b] = g.AxisCell(tokens.BinCenter(b), 0)
	}
	return r
}

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
