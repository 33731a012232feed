package geom

import (
	"testing"

	"github.com/rigkit/rigkit/vecmath"
)

// TestBoxGridFlatBox: a box flat along one axis, asked at a resolution no grid
// holds (a flat mesh's height ratio), gives a grid within maxVoxels, not a panic.
func TestBoxGridFlatBox(t *testing.T) {
	for _, tc := range []struct {
		name string
		hi   vecmath.Vec3
		res  int
	}{
		{"flat in y", vecmath.Vec3{1.66, 0, 2.2}, 1 << 40},
		{"a point", vecmath.Vec3{0, 0, 0}, 96},
		{"ordinary", vecmath.Vec3{1, 2, 0.5}, 96},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newBoxGrid(vecmath.Vec3{}, tc.hi, tc.res, 600_000)
			if cells := g.N[0] * g.N[1] * g.N[2]; cells > 600_000 || cells <= 0 || len(g.Occ) != cells {
				t.Errorf("grid %v: %d cells, want 1..600000", g.N, cells)
			}
		})
	}
}
