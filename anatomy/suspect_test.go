package anatomy

import (
	"reflect"
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// TestBodyJointsOutside: body joints in the air beside the mesh are named; body
// joints just past its surface (within 3% of its height), end joints and
// fingers are not.
func TestBodyJointsOutside(t *testing.T) {
	m := synth.Boxes(box(-0.3, 0, -0.2, 0.3, 2, 0.2))
	s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
	for _, tc := range []struct {
		name   string
		joints map[string]vecmath.Vec3
		want   []string
	}{
		{"all inside", map[string]vecmath.Vec3{Hips: {0, 1, 0}, Side(1, Arm): {0.2, 1.6, 0}}, nil},
		{"arms in the air", map[string]vecmath.Vec3{Hips: {0, 1, 0}, Side(1, Arm): {0.6, 1.6, 0}, Side(-1, Arm): {-0.6, 1.6, 0}}, []string{"LeftArm", "RightArm"}},
		{"arms just past the surface", map[string]vecmath.Vec3{Hips: {0, 1, 0}, Side(1, Arm): {0.33, 1.6, 0}, Side(-1, Arm): {-0.33, 1.6, 0}}, nil},
		{"ends and fingers past the surface", map[string]vecmath.Vec3{Hips: {0, 1, 0}, headTopEnd: {0, 2.1, 0}, "LeftHandIndex1": {0.5, 1, 0}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuild()
			for _, n := range []string{Hips, Side(1, Arm), Side(-1, Arm), headTopEnd, "LeftHandIndex1"} {
				if p, ok := tc.joints[n]; ok {
					b.add(n, "", p, false)
				}
			}
			if got := bodyJointsOutside(s, b); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("outside %v, want %v", got, tc.want)
			}
		})
	}
}
