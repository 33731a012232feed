package anatomy

import (
	"math"
	"runtime"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/vecmath"
)

// Symmetry is the mirror plane Fit found: its normal axis in the world ("x" or "z"
// for a Y-up mesh, "x" or "y" for a Z-up one), its offset along that axis, and the
// mean distance from the mirrored vertices to the surface as a share of the
// height. Symmetric is Error < symmetricError. Trimmed is the same mean over the
// best-mirrored 80% of the vertices: a body holding a prop in one hand mirrors
// there (Trimmed < symmetricError) though not as a whole.
type Symmetry struct {
	Axis      string  `json:"axis"`
	Offset    float64 `json:"offset"`
	Error     float64 `json:"error"`
	Trimmed   float64 `json:"trimmed_error"`
	Symmetric bool    `json:"symmetric"`
}

// symmetricError is the mirror error (share of the height) under which a mesh
// counts as symmetric and its left and right joints are made mirror images.
// Synthetic bipeds with their deliberate asymmetry measure up to about 0.016.
const symmetricError = 0.02

// clearlyMirrored is a trimmed mirror error (share of the height) so small that
// the plane across canonical Z, which must mirror twice as well (turnedPreference),
// is not searched when the plane across X pairs an end point (pairedEnds): only a
// body mirrored both ways could beat it, and then either plane serves. It saves
// a third of Fit's plane search on most characters.
const clearlyMirrored = 0.003

// turnedPreference is how much better the plane across canonical Z must mirror
// than the one across X to be taken: characters face +Z by convention, and a
// long body mirrors almost as well across its middle as along its length.
const turnedPreference = 0.5

// clearlyTurned is how much better the plane across canonical Z must mirror than
// a clearly mirrored plane across X that pairs no limbs: a low-poly human facing
// ±X with its arms against its sides mirrors front to back within
// clearlyMirrored (0.0027 of the height, Quaternius' cowboy), side to side 36
// times better.
const clearlyTurned = 0.1

// symmetrySamples caps the vertices mirrored to measure the chosen plane's
// Error; searchSamples caps those mirrored per candidate plane while searching,
// where only the order of nearby planes matters (a third of the cost).
const (
	symmetrySamples = 1500
	searchSamples   = 500
)

// mirrorDistances returns the distances, over the height, from about samples
// vertices reflected across the plane canonical x = c of frame f to the surface
// (nil when none is measured).
func mirrorDistances(m *character.Mesh, bvh *geom.BVH, f frame, c, height float64, samples int) []float64 {
	if height <= 0 {
		return nil
	}
	stride := max(1, len(m.Positions)/samples)
	n := (len(m.Positions) + stride - 1) / stride
	dist := make([]float64, n) // -1: no surface found
	workers := min(runtime.GOMAXPROCS(0), max(1, n/256))
	var g workgroup.Group
	for w := range workers {
		g.Go(func() {
			for k := w; k < n; k += workers {
				p := m.Positions[k*stride]
				q := p.Sub(f.left.Scale(2 * (p.Dot(f.left) - c)))
				dist[k] = -1
				if hit, ok := bvh.Closest(q); ok {
					dist[k] = hit.Dist / height
				}
			}
		})
	}
	g.Wait()
	out := dist[:0]
	for _, d := range dist {
		if d >= 0 {
			out = append(out, d)
		}
	}
	return out
}

// mirrorError is the mean of the distances (1 when there are none).
func mirrorError(d []float64) float64 {
	if len(d) == 0 {
		return 1
	}
	sum := 0.0
	for _, x := range d {
		sum += x
	}
	return sum / float64(len(d))
}

// trimmedMirrorError is the mean of the smallest trimmedShare of the distances: a
// prop held in one hand (a pistol, a flamingo) leaves the body's own plane the best.
func trimmedMirrorError(d []float64) float64 {
	if len(d) == 0 {
		return 1
	}
	d = append([]float64(nil), d...)
	sort.Float64s(d)
	return mirrorError(d[:max(1, int(trimmedShare*float64(len(d))))])
}

// trimmedShare is the share of the mirrored vertices that choose the plane.
const trimmedShare = 0.8

// planeCandidates returns the offsets tried for the plane across frame f's X: the
// bounding box middle, the vertex mean and the vertex median.
func planeCandidates(m *character.Mesh, f frame, lo, hi float64) []float64 {
	xs := make([]float64, len(m.Positions))
	mean := 0.0
	for i, p := range m.Positions {
		xs[i] = p.Dot(f.left)
		mean += xs[i]
	}
	mean /= float64(len(xs))
	sort.Float64s(xs)
	return []float64{(lo + hi) / 2, mean, xs[len(xs)/2]}
}

// refinePlane moves the plane offset c in shrinking steps (2% of the width down to 0.5%)
// while the trimmed mirror error of a sparse sample falls, and returns the
// trimmed error of the full sample there, which planes are compared by.
func refinePlane(m *character.Mesh, bvh *geom.BVH, f frame, c, width, height float64) (float64, float64) {
	e := trimmedMirrorError(mirrorDistances(m, bvh, f, c, height, searchSamples))
	for step := 0.02 * width; step > 0.004*width; step /= 2 {
		for moved := true; moved; {
			moved = false
			for _, x := range []float64{c - step, c + step} {
				if ex := trimmedMirrorError(mirrorDistances(m, bvh, f, x, height, searchSamples)); ex < e {
					c, e, moved = x, ex, true
				}
			}
		}
	}
	return c, trimmedMirrorError(mirrorDistances(m, bvh, f, c, height, symmetrySamples))
}

// bestPlane returns the plane across frame f's X (its offset and trimmed mirror
// error) that mirrors best: the best candidate, refined. lo and hi bound the mesh
// in f.
func bestPlane(m *character.Mesh, bvh *geom.BVH, f frame, lo, hi vecmath.Vec3) (float64, float64) {
	fC, fE := 0.0, 2.0
	for _, c := range planeCandidates(m, f, lo[0], hi[0]) {
		if e := trimmedMirrorError(mirrorDistances(m, bvh, f, c, hi[1]-lo[1], searchSamples)); e < fE {
			fC, fE = c, e
		}
	}
	return refinePlane(m, bvh, f, fC, hi[0]-lo[0], hi[1]-lo[1])
}

// findSymmetry picks the symmetry plane of a shape: across canonical X or Z (the
// character faces ±X then, and the frame is turned), from the bounding box middle,
// the vertex mean or median, refined, whichever mirrors best once the worst-mirrored
// fifth of the vertices is left out (a held prop). Its Error is the mean over all
// vertices, so a mesh holding a prop does not count as symmetric. The plane
// across X (the glTF convention's) wins unless the turned one mirrors twice as
// well; where only the turned plane pairs the proposed skeleton's end points
// (ends, pairedEnds: none across X, two or more across Z), the preference is
// the other way round. It returns the frame
// to use and the plane. The plane across X is the view's when it was measured.
func findSymmetry(m *character.Mesh, bvh *geom.BVH, v upView, ends []vecmath.Vec3) (frame, float64, Symmetry) {
	s := v.s
	frames := [2]frame{s.f, s.f.turned()}
	var cs, es [2]float64
	var pairs [2]int
	searched := 1
	for i, f := range frames {
		if i == 0 && v.planeErr >= 0 {
			cs[i], es[i] = s.mid, v.planeErr
		} else {
			lo, hi := bounds(projected(s.pts, s.f, f))
			cs[i], es[i] = bestPlane(m, bvh, f, lo, hi)
		}
		pairs[i] = pairedEnds(ends, f, cs[i], s.height())
		searched = i + 1
		if i == 0 && es[0] < clearlyMirrored && pairs[0] > 0 {
			break // the turned plane would have to mirror twice as well: not searched
		}
	}
	pick := 0
	if searched == 2 {
		// The plane across X is preferred (turnedPreference), and kept when it
		// mirrors clearly unless the turned one mirrors ten times better
		// (clearlyTurned), or it pairs no limbs and the turned one pairs two or
		// more: then the turned one is the preferred one.
		switch {
		case pairs[0] == 0 && pairs[1] >= 2:
			if es[0] >= turnedPreference*es[1] {
				pick = 1
			}
		case es[0] < clearlyMirrored:
			if es[1] < clearlyTurned*es[0] {
				pick = 1
			}
		case es[1] < turnedPreference*es[0]:
			pick = 1
		}
	}
	bestF, bestC := frames[pick], cs[pick]
	d := mirrorDistances(m, bvh, bestF, bestC, s.height(), symmetrySamples)
	best := Symmetry{Error: mirrorError(d), Trimmed: trimmedMirrorError(d)}
	best.Axis = axisName(bestF.left)
	sign := 1.0
	if bestF.left.Dot(vecmath.Vec3{1, 1, 1}) < 0 {
		sign = -1
	}
	best.Offset = sign * bestC
	best.Symmetric = best.Error < symmetricError
	return bestF, bestC, best
}

// pairedEnds counts the end points (of the proposed skeleton, in the mesh's
// frame) that lie off the plane x = c of frame f by more than a tenth of the
// height and have another end point within a tenth of the height of their mirror
// image: the limbs the plane pairs. A humanoid's front and back can mirror as
// well as its sides (a low-poly body), but only the plane between its sides pairs
// its hands and feet; a quadruped's sides and its front and hind halves pair its
// feet alike, and then the convention's plane stays preferred.
func pairedEnds(ends []vecmath.Vec3, f frame, c, H float64) int {
	qs := projected(ends, upFrame("y"), f)
	n := 0
	for i, q := range qs {
		if math.Abs(q[0]-c) <= pairedOffPlane*H {
			continue
		}
		mirror := vecmath.Vec3{2*c - q[0], q[1], q[2]}
		for j, o := range qs {
			if j != i && o.Sub(mirror).Len() <= pairedOffPlane*H {
				n++
				break
			}
		}
	}
	return n
}

// pairedOffPlane is pairedEnds' distance, as a share of the height: off the plane
// and near the mirror image.
const pairedOffPlane = 0.1

// projected re-expresses canonical points of frame a in frame b.
func projected(pts []vecmath.Vec3, a, b frame) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(pts))
	for i, p := range pts {
		out[i] = b.to(a.from(p))
	}
	return out
}

func axisName(d vecmath.Vec3) string {
	switch {
	case d[0]*d[0] > 0.5:
		return "x"
	case d[1]*d[1] > 0.5:
		return "y"
	}
	return "z"
}
