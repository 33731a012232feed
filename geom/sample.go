package geom

import (
	"math"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// SurfaceSample is a point drawn on a mesh surface.
type SurfaceSample struct {
	Point    vecmath.Vec3
	Normal   vecmath.Vec3 // the triangle's unit face normal (counter-clockwise front)
	Triangle int          // index into the mesh's Triangles
	// Bary holds the barycentric weights of Point on the triangle's three corners.
	Bary [3]float64
}

// SampleSurface draws n points uniformly by area over m's valid triangles, seeded by
// rng. It returns nil for a mesh with no area.
func SampleSurface(m *character.Mesh, n int, rng *rand.Rand) []SurfaceSample {
	nv := len(m.Positions)
	cdf := make([]float64, 0, len(m.Triangles))
	idx := make([]int, 0, len(m.Triangles))
	total := 0.0
	for i, t := range m.Triangles {
		if t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= nv || t[1] >= nv || t[2] >= nv {
			continue
		}
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		area := 0.5 * b.Sub(a).Cross(c.Sub(a)).Len()
		if !(area > 0) || math.IsInf(area, 0) {
			continue
		}
		total += area
		cdf = append(cdf, total)
		idx = append(idx, i)
	}
	if total == 0 || n <= 0 {
		return nil
	}
	out := make([]SurfaceSample, n)
	for s := range out {
		k := sort.SearchFloat64s(cdf, rng.Float64()*total)
		if k >= len(idx) {
			k = len(idx) - 1
		}
		t := m.Triangles[idx[k]]
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		r1, r2 := math.Sqrt(rng.Float64()), rng.Float64()
		u, v, w := 1-r1, r1*(1-r2), r1*r2
		out[s] = SurfaceSample{
			Point:    a.Scale(u).Add(b.Scale(v)).Add(c.Scale(w)),
			Normal:   b.Sub(a).Cross(c.Sub(a)).Normalize(),
			Triangle: idx[k],
			Bary:     [3]float64{u, v, w},
		}
	}
	return out
}

// SampleVolume draws up to n points uniformly inside the mesh (winding number > 0.5)
// by rejection from its bounding box, seeded by rng. It stops after maxTries box
// draws (0 means 50·n), so a thin or open mesh may yield fewer than n points.
func SampleVolume(w *WindingNumber, n, maxTries int, rng *rand.Rand) []vecmath.Vec3 {
	if maxTries <= 0 {
		maxTries = 50 * n
	}
	lo, hi := w.bvh.Bounds()
	if w.bvh.NumTriangles() == 0 {
		return nil
	}
	out := make([]vecmath.Vec3, 0, n)
	for try := 0; try < maxTries && len(out) < n; try++ {
		p := vecmath.Vec3{
			lo[0] + rng.Float64()*(hi[0]-lo[0]),
			lo[1] + rng.Float64()*(hi[1]-lo[1]),
			lo[2] + rng.Float64()*(hi[2]-lo[2]),
		}
		if w.Inside(p) {
			out = append(out, p)
		}
	}
	return out
}
