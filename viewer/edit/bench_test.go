package edit

import (
	"testing"

	"github.com/rigkit/rigkit/vecmath"
)

// BenchmarkReskinGeodesic is the workbench's re-skin after a joint fix on a
// 20k-vertex character: move a forearm, re-skin the edited bones with geodesic.
// BenchmarkGeodesicBaseline is `rig skin --method geodesic` on the same rig, the
// baseline the docs state the re-skin against.
func BenchmarkReskinGeodesic(b *testing.B) {
	c, _ := fixture(b, 20000)
	r := newRig(b, c)
	j := joint(b, r, "arm_l_lower")
	b.ResetTimer()
	for i := range b.N {
		d := 0.01
		if i%2 == 1 {
			d = -d
		}
		if err := r.Move(j, vecmath.Vec3{d, 0, 0}); err != nil {
			b.Fatal(err)
		}
		if err := r.Reskin(Geodesic, ScopeEdited); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(c.Mesh.Positions)), "vertices")
}

func BenchmarkGeodesicBaseline(b *testing.B) {
	c, _ := fixture(b, 20000)
	b.ResetTimer()
	for range b.N {
		if _, err := Geodesic(c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(c.Mesh.Positions)), "vertices")
}
