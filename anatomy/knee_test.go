package anatomy

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// TestKneeAtFront: a walker's leg whose thigh lies nearly level, reaching from
// the hip forward to a knee 1.2 in front of the hip-to-ankle line, has its knee a
// shin's radius (0.2) behind the thigh's front, at the thigh's height, not at
// the middle of the thigh's horizontal slices where the route's bend lies; the
// same behind for a knee bent backward.
func TestKneeAtFront(t *testing.T) {
	for _, tc := range []struct {
		name   string
		thigh  [2]vecmath.Vec3
		wantZ  float64
		wantY0 float64
	}{
		{"thigh reaching forward", box(0.8, 1.1, -0.2, 1.2, 1.4, 1.2), 1.0, 1.1},
		{"thigh reaching back", box(0.8, 1.1, -1.2, 1.2, 1.4, 0.2), -1.0, 1.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := synth.Boxes(
				box(0.8, 0, -0.2, 1.2, 1.1, 0.2), // shin, 0.4 deep
				tc.thigh,
				box(-1.2, 1.4, -0.4, 1.2, 2.2, 0.4), // body
			)
			s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
			hip, ankle := vecmath.Vec3{1, 1.5, 0}, vecmath.Vec3{1, 0.1, 0}
			mid := (tc.thigh[0][2] + tc.thigh[1][2]) / 2
			var route []vecmath.Vec3
			for y := 0.05; y < 1.1; y += 0.05 {
				route = append(route, vecmath.Vec3{1, y, 0})
			}
			route = append(route, vecmath.Vec3{1, 1.2, mid}, vecmath.Vec3{1, 1.3, mid})
			k := s.kneeAtFront(route, vecmath.Vec3{1, 1.25, mid}, hip, ankle)
			if math.Abs(k[2]-tc.wantZ) > 0.06 || k[1] < tc.wantY0-0.02 || k[1] > 1.4 {
				t.Fatalf("knee %v, want z %.2f at the thigh's height (%.1f to 1.4)", k, tc.wantZ, tc.wantY0)
			}
		})
	}
}

// TestUpright: a leg's upright part ends where its route comes within reach of
// the plane; when its last point lies below the pelvis (the route left the leg
// at the knee for the body's middle) it reaches on to where that segment crosses
// into reach.
func TestUpright(t *testing.T) {
	leg := []vecmath.Vec3{{1, 0.1, 0}, {1, 0.6, 0.3}}
	for _, tc := range []struct {
		name    string
		route   []vecmath.Vec3
		wantTop float64
		wantN   int
	}{
		{"thigh in the route", append(leg, vecmath.Vec3{1, 1.2, 0}, vecmath.Vec3{0.1, 1.6, 0}), 1.2, 3},
		{"route leaving at the knee", append(leg, vecmath.Vec3{0, 1.6, 0}), 1.1, 3},
		{"starting within reach", []vecmath.Vec3{{0.1, 0.5, 0}, {1, 1, 0}}, math.Inf(-1), 0},
		{"never within reach", leg, 0.6, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := upright(tc.route, 0, 0.5, 1.0)
			top := math.Inf(-1)
			for _, p := range up {
				top = math.Max(top, p[1])
			}
			if len(up) != tc.wantN || math.Abs(top-tc.wantTop) > 1e-9 {
				t.Fatalf("upright %v: %d points up to %.3f, want %d up to %.3f", up, len(up), top, tc.wantN, tc.wantTop)
			}
		})
	}
}
