package geom

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// VoxelGrid is an occupancy grid of cubic cells: N[0]×N[1]×N[2] cells of edge Size,
// indexed x fastest. A cell is occupied (Occ) when it is
// inside the mesh or the surface passes through it, so thin parts stay connected;
// Inner marks the cells known to be inside by winding number (a subset of Occ).
// NewVoxelGrid builds the cubic grid over the normalized cube that the classical
// skeleton walks and the sampler's inside-the-mesh mask dilates; VoxelizeBox builds
// the box-fitted grid the geodesic skinning searches.
type VoxelGrid struct {
	N    [3]int  // cells per axis
	Size float64 // cell edge
	Occ  []bool  // interior or surface
	// Inner marks cells whose centre is inside by winding number.
	Inner []bool
	WN    *WindingNumber // the mesh's, kept for later queries

	// anchor places the lattice: the grid's lower corner when corner is set, else
	// the centre of cell (0, 0, 0). Each constructor anchors the grid at the point
	// it is built from (NewVoxelGrid at the cube's corner, VoxelizeBox at the box's
	// corner, a cell centre), and centres and lookups are computed from that anchor,
	// so a cell's centre is the same float64 whichever way it was derived.
	anchor vecmath.Vec3
	corner bool
}

// newGrid returns an empty grid.
func newGrid(n [3]int, size float64, anchor vecmath.Vec3, corner bool) *VoxelGrid {
	cells := n[0] * n[1] * n[2]
	return &VoxelGrid{N: n, Size: size, Occ: make([]bool, cells), Inner: make([]bool, cells), anchor: anchor, corner: corner}
}

// NewVoxelGrid voxelizes a mesh in the normalized cube [-1,1]³ (slightly padded) at
// res cells per axis, testing every cell's centre by winding number.
func NewVoxelGrid(m *character.Mesh, res int) *VoxelGrid {
	g := newGrid([3]int{res, res, res}, 2.1/float64(res), vecmath.Vec3{-1.05, -1.05, -1.05}, true)
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

// Cell is the index of the cell at integer coordinates (x, y, z), which must lie in
// the grid.
func (g *VoxelGrid) Cell(x, y, z int) int { return x + g.N[0]*(y+g.N[1]*z) }

// Coords are the integer coordinates of cell i.
func (g *VoxelGrid) Coords(i int) (x, y, z int) {
	x = i % g.N[0]
	i /= g.N[0]
	return x, i % g.N[1], i / g.N[1]
}

// Center is the centre of cell i.
func (g *VoxelGrid) Center(i int) vecmath.Vec3 {
	x, y, z := g.Coords(i)
	if g.corner {
		lo := g.anchor
		return vecmath.Vec3{lo[0] + (float64(x)+0.5)*g.Size, lo[1] + (float64(y)+0.5)*g.Size, lo[2] + (float64(z)+0.5)*g.Size}
	}
	return g.anchor.Add(vecmath.Vec3{float64(x) * g.Size, float64(y) * g.Size, float64(z) * g.Size})
}

// CentreCoord is x's coordinate along axis a in cells, counted so that cell c's
// centre is at c: its floor is the lower of the two cells whose centres enclose x.
func (g *VoxelGrid) CentreCoord(x float64, a int) float64 {
	if g.corner {
		return (x-g.anchor[a])/g.Size - 0.5
	}
	return (x - g.anchor[a]) / g.Size
}

// Index is the cell holding p; false outside the grid.
func (g *VoxelGrid) Index(p vecmath.Vec3) (int, bool) {
	var c [3]int
	for a := 0; a < 3; a++ {
		c[a] = g.axisCell(p[a], a)
		if c[a] < 0 || c[a] >= g.N[a] {
			return 0, false
		}
	}
	return g.Cell(c[0], c[1], c[2]), true
}

// Nearest is the cell holding p, or for p outside the grid the nearest cell on its
// border.
func (g *VoxelGrid) Nearest(p vecmath.Vec3) int {
	return g.Cell(g.AxisCell(p[0], 0), g.AxisCell(p[1], 1), g.AxisCell(p[2], 2))
}

// AxisCell is the cell coordinate along axis a whose centre is nearest to x, clamped
// into the grid.
func (g *VoxelGrid) AxisCell(x float64, a int) int { return g.clampAxis(g.axisCell(x, a), a) }

// axisCell is the cell coordinate along axis a whose centre is nearest to x (the
// cell holding x).
func (g *VoxelGrid) axisCell(x float64, a int) int {
	if g.corner {
		return int(math.Floor((x - g.anchor[a]) / g.Size))
	}
	return int(math.Round((x - g.anchor[a]) / g.Size))
}

// clampAxis clamps a cell coordinate into the grid along axis a.
func (g *VoxelGrid) clampAxis(c, a int) int { return min(max(c, 0), g.N[a]-1) }

// Neighbors calls fn for the 26 neighbours of cell i inside the grid with their step
// length in cells, in z, y, x order.
func (g *VoxelGrid) Neighbors(i int, fn func(j int, step float64)) {
	x, y, z := g.Coords(i)
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 && dz == 0 {
					continue
				}
				nx, ny, nz := x+dx, y+dy, z+dz
				if nx < 0 || ny < 0 || nz < 0 || nx >= g.N[0] || ny >= g.N[1] || nz >= g.N[2] {
					continue
				}
				fn(g.Cell(nx, ny, nz), math.Sqrt(float64(dx*dx+dy*dy+dz*dz)))
			}
		}
	}
}
