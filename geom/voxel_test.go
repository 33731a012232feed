package geom

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/vecmath"
)

// TestVoxelGridsAgree voxelizes one sphere both ways: each grid's cells are inside
// exactly where their centres are well inside the sphere, its border is empty, and
// the lookups invert Center.
func TestVoxelGridsAgree(t *testing.T) {
	const r = 0.6
	m := uvSphere(vecmath.Vec3{0.1, -0.05, 0}, r, 24, 48)
	lo, hi := m.Bounds()
	box, queries := VoxelizeBox(m, lo, hi, 24, 1<<20, 2)
	if queries <= 0 || queries >= len(box.Occ)/4 {
		t.Errorf("VoxelizeBox made %d winding queries for %d cells, want a few per component", queries, len(box.Occ))
	}
	tests := []struct {
		name string
		g    *VoxelGrid
	}{
		{"cube", NewVoxelGrid(m, 24)},
		{"box", box},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			inner := 0
			for i := range g.Occ {
				c := g.Center(i)
				d := c.Sub(vecmath.Vec3{0.1, -0.05, 0}).Len()
				// Well inside: a cell's centre over a cell diagonal in from the surface.
				if d < r-math.Sqrt(3)*g.Size && !g.Inner[i] {
					t.Fatalf("cell %d at distance %.3f is not inside", i, d)
				}
				if d > r+math.Sqrt(3)*g.Size && g.Occ[i] {
					t.Fatalf("cell %d at distance %.3f is occupied", i, d)
				}
				if g.Inner[i] && !g.Occ[i] {
					t.Fatalf("cell %d is inner but not occupied", i)
				}
				if g.Inner[i] {
					inner++
				}
				if j, ok := g.Index(c); !ok || j != i || g.Nearest(c) != i {
					t.Fatalf("Index(Center(%d)) = %d, %v; Nearest = %d", i, j, ok, g.Nearest(c))
				}
				x, _, _ := g.Coords(i)
				if cc := g.CentreCoord(c[0], 0); math.Abs(cc-float64(x)) > 1e-9 {
					t.Fatalf("CentreCoord of cell %d's centre = %v, want %d", i, cc, x)
				}
			}
			if inner == 0 {
				t.Fatal("no inner cells")
			}
			if _, ok := g.Index(vecmath.Vec3{5, 0, 0}); ok {
				t.Error("a point far outside has an Index")
			}
			far := g.Nearest(vecmath.Vec3{5, 0, 0})
			if x, _, _ := g.Coords(far); x != g.N[0]-1 {
				t.Errorf("Nearest of a far point is at x=%d, want the border %d", x, g.N[0]-1)
			}
		})
	}
	// VoxelizeBox keeps its outermost layer empty.
	for i, o := range box.Occ {
		x, y, z := box.Coords(i)
		if o && (x == 0 || y == 0 || z == 0 || x == box.N[0]-1 || y == box.N[1]-1 || z == box.N[2]-1) {
			t.Fatalf("border cell (%d, %d, %d) is occupied", x, y, z)
		}
	}
}
