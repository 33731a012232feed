package geom

import "testing"

// BenchmarkNewBVH builds the hierarchy (with its winding-number moments) over a
// ≈10k-triangle sphere: the largest part of preparing a mesh for scoring.
func BenchmarkNewBVH(b *testing.B) {
	m := uvSphere([3]float64{}, 1, 64, 80)
	b.ReportMetric(float64(len(m.Triangles)), "triangles")
	for i := 0; i < b.N; i++ {
		NewBVH(m)
	}
}
