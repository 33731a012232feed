package anatomy

import (
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/geom"
)

// Symmetry is the mirror plane Fit found: its normal axis in the world ("x" or "z"
// for a Y-up mesh, "x" or "y" for a Z-up one), its offset along that axis, and the
// mean distance from the mirrored vertices to the surface as a share of the
// height. Symmetric is Error < SymmetricError.
type Symmetry struct {
	Axis      string  `json:"axis"`
	Offset    float64 `json:"offset"`
	Error     float64 `json:"error"`
	Symmetric bool    `json:"symmetric"`
}

// SymmetricError is the mirror error (share of the height) under which a mesh
// counts as symmetric and its left and right joints are made mirror images.
// Synthetic bipeds with their deliberate asymmetry measure up to about 0.016.
const SymmetricError = 0.02

// turnedPreference is how much better the plane across canonical Z must mirror
// than the one across X to be taken: characters face +Z by convention, and a
// long body mirrors almost as well across its middle as along its length.
const turnedPreference = 0.5

// symmetrySamples caps the vertices mirrored per candidate plane.
const symmetrySamples = 1500

// mirrorError returns the mean distance from the vertices reflected across the
// plane canonical x = c of frame f to the surface, over the height.
func mirrorError(m *assets.Mesh, bvh *geom.BVH, f frame, c, height float64) float64 {
	stride := max(1, len(m.Positions)/symmetrySamples)
	sum, n := 0.0, 0
	for i := 0; i < len(m.Positions); i += stride {
		p := m.Positions[i]
		d := p.Dot(f.left) - c
		q := p.Sub(f.left.Scale(2 * d))
		if hit, ok := bvh.Closest(q); ok {
			sum += hit.Dist
			n++
		}
	}
	if n == 0 || height <= 0 {
		return 1
	}
	return sum / float64(n) / height
}

// findSymmetry picks the symmetry plane of a shape: across canonical X or Z (the
// character faces ±X then, and the frame is turned), at the bounding box middle or
// the vertex mean, whichever mirrors best. It returns the frame to use and the plane.
func findSymmetry(m *assets.Mesh, bvh *geom.BVH, s *shape) (frame, float64, Symmetry) {
	best := Symmetry{Error: 2}
	var bestF frame
	bestC := 0.0
	for i, f := range []frame{s.f, s.f.turned()} {
		lo, hi := bounds(projected(s.pts, s.f, f))
		mean := 0.0
		for _, p := range m.Positions {
			mean += p.Dot(f.left)
		}
		mean /= float64(len(m.Positions))
		for _, c := range []float64{(lo[0] + hi[0]) / 2, mean} {
			e := mirrorError(m, bvh, f, c, s.height())
			if i == 1 {
				e /= turnedPreference
			}
			if e < best.Error {
				best.Error, bestF, bestC = e, f, c
			}
		}
	}
	if bestF != s.f {
		best.Error *= turnedPreference
	}
	best.Axis = axisName(bestF.left)
	sign := 1.0
	if bestF.left.Dot(assets.Vec3{1, 1, 1}) < 0 {
		sign = -1
	}
	best.Offset = sign * bestC
	best.Symmetric = best.Error < SymmetricError
	return bestF, bestC, best
}

// projected re-expresses canonical points of frame a in frame b.
func projected(pts []assets.Vec3, a, b frame) []assets.Vec3 {
	out := make([]assets.Vec3, len(pts))
	for i, p := range pts {
		out[i] = b.to(a.from(p))
	}
	return out
}

func axisName(d assets.Vec3) string {
	switch {
	case d[0]*d[0] > 0.5:
		return "x"
	case d[1]*d[1] > 0.5:
		return "y"
	}
	return "z"
}
