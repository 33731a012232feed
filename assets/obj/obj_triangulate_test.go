package obj

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/vecmath"
)

// TestTriangulateConcave checks that an L-shaped hexagon is clipped into triangles
// that cover its area exactly (a fan from its reflex corner's neighbour would not).
func TestTriangulateConcave(t *testing.T) {
	pts := []vecmath.Vec3{{0, 0, 0}, {2, 0, 0}, {2, 1, 0}, {1, 1, 0}, {1, 2, 0}, {0, 2, 0}}
	// Start at the reflex corner's successor so that a fan would fold.
	pts = append(pts[4:], pts[:4]...)
	tris := triangulate(pts)
	if len(tris) != 4 {
		t.Fatalf("%d triangles", len(tris))
	}
	area := 0.0
	for _, tr := range tris {
		n := pts[tr[1]].Sub(pts[tr[0]]).Cross(pts[tr[2]].Sub(pts[tr[0]]))
		if n[2] <= 0 {
			t.Fatalf("triangle %v flipped or flat", tr)
		}
		area += n[2] / 2
	}
	if math.Abs(area-3) > 1e-12 {
		t.Fatalf("area %g, want 3", area)
	}
}
