package geom

import (
	"math"

	"github.com/rigkit/rigkit/assets"
)

// VoxelGrid is a res³ occupancy grid over the normalized cube [-1,1]³ (slightly
// padded): a voxel is occupied when its centre is inside the mesh by winding number
// or the surface passes through it, so thin parts stay connected. The classical
// skeleton walks it, and the sampler's inside-the-mesh mask is its dilation.
type VoxelGrid struct {
	Res  int
	Lo   float64 // the grid's lower corner on every axis
	Size float64 // voxel edge
	Occ  []bool  // interior or surface, x fastest
	// Inner marks voxels whose center is inside by winding number.
	Inner []bool
	WN    *WindingNumber // the mesh's, kept for later queries
}

// NewVoxelGrid voxelizes a mesh in the normalized cube at res voxels per axis.
func NewVoxelGrid(m *assets.Mesh, res int) *VoxelGrid {
	g := &VoxelGrid{Res: res, Lo: -1.05, Size: 2.1 / float64(res), Occ: make([]bool, res*res*res), Inner: make([]bool, res*res*res)}
	wn := NewWindingNumber(m)
	g.WN = wn
	for i := range g.Occ {
		if wn.At(g.Center(i)) > 0.5 {
			g.Occ[i], g.Inner[i] = true, true
		}
	}
	// Surface shell: sample every triangle finer than a voxel so thin parts connect.
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		l := math.Max(b.Sub(a).Len(), math.Max(c.Sub(a).Len(), c.Sub(b).Len()))
		n := int(math.Ceil(l/(0.5*g.Size))) + 1
		for u := 0; u <= n; u++ {
			for v := 0; u+v <= n; v++ {
				fu, fv := float64(u)/float64(n), float64(v)/float64(n)
				p := a.Add(b.Sub(a).Scale(fu)).Add(c.Sub(a).Scale(fv))
				if i, ok := g.Index(p); ok {
					g.Occ[i] = true
				}
			}
		}
	}
	return g
}

// Center is the centre of voxel i.
func (g *VoxelGrid) Center(i int) assets.Vec3 {
	x, y, z := i%g.Res, (i/g.Res)%g.Res, i/(g.Res*g.Res)
	return assets.Vec3{g.Lo + (float64(x)+0.5)*g.Size, g.Lo + (float64(y)+0.5)*g.Size, g.Lo + (float64(z)+0.5)*g.Size}
}

// Index is the voxel holding p; false outside the grid.
func (g *VoxelGrid) Index(p assets.Vec3) (int, bool) {
	var c [3]int
	for a := 0; a < 3; a++ {
		c[a] = int(math.Floor((p[a] - g.Lo) / g.Size))
		if c[a] < 0 || c[a] >= g.Res {
			return 0, false
		}
	}
	return c[0] + g.Res*(c[1]+g.Res*c[2]), true
}

// Neighbors calls fn for the 26 neighbours of voxel i with their step length.
func (g *VoxelGrid) Neighbors(i int, fn func(j int, step float64)) {
	x, y, z := i%g.Res, (i/g.Res)%g.Res, i/(g.Res*g.Res)
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 && dz == 0 {
					continue
				}
				nx, ny, nz := x+dx, y+dy, z+dz
				if nx < 0 || ny < 0 || nz < 0 || nx >= g.Res || ny >= g.Res || nz >= g.Res {
					continue
				}
				fn(nx+g.Res*(ny+g.Res*nz), math.Sqrt(float64(dx*dx+dy*dy+dz*dz)))
			}
		}
	}
}
