package skinning

import (
	"math"

	"github.com/rigkit/rigkit/character"
)

// Leakage defaults.
const (
	// LeakDetour is the ratio of geodesic to straight-line distance above which a
	// bone's influence on a vertex counts as leaked: the short way from the bone to
	// the vertex leaves the solid (a neighbouring finger, the other leg).
	LeakDetour = 2.0
	// LeakyVertexWeight is the leaked weight above which a vertex counts as leaky.
	LeakyVertexWeight = 0.05
)

// LeakReport measures influence leakage across separate parts of a character.
type LeakReport struct {
	// Weight is the mean over vertices of the weight on bones whose geodesic distance
	// to the vertex exceeds LeakDetour times their straight-line distance (plus two
	// voxels), i.e. bones reachable only by leaving the solid.
	Weight float64 `json:"weight"`
	// Vertices counts vertices with more than LeakyVertexWeight of leaked weight.
	Vertices int `json:"vertices"`
	// Fraction is Vertices over the vertex count.
	Fraction float64 `json:"fraction"`
}

// Leakage measures how much of skin's weight crosses between separate parts,
// judged by this field's geodesic distances (build the field with a negative Cutoff
// so that every distance is exact). skin must index the field's vertices and joints.
func (f *Field) Leakage(skin *character.Skin) LeakReport {
	var r LeakReport
	if skin == nil || f.NumVertices == 0 {
		return r
	}
	pad := 2 * f.VoxelSize
	for v := 0; v < f.NumVertices && v < len(skin.Weights); v++ {
		leak := 0.0
		for _, in := range skin.Weights[v] {
			if in.Joint < 0 || in.Joint >= f.NumJoints || !(in.Weight > 0) {
				continue
			}
			if f.Dist(v, in.Joint) > LeakDetour*f.euclideanDist(v, in.Joint)+pad {
				leak += in.Weight
			}
		}
		r.Weight += leak
		if leak > LeakyVertexWeight {
			r.Vertices++
		}
	}
	r.Weight /= float64(f.NumVertices)
	r.Fraction = float64(r.Vertices) / float64(f.NumVertices)
	return r
}

// reachMask returns, per joint, which vertices lie within that joint's geodesic
// reach: Dist(v,j) ≤ slack·min_k Dist(v,k) + two voxels. A learned model can zero
// its decoded weights outside the mask (see maskSkin). slack ≤ 1 means 2.
func (f *Field) reachMask(slack float64) [][]bool {
	if slack <= 1 {
		slack = 2
	}
	mask := make([][]bool, f.NumJoints)
	for j := range mask {
		mask[j] = make([]bool, f.NumVertices)
	}
	pad := 2 * f.VoxelSize
	for v := 0; v < f.NumVertices; v++ {
		dmin := math.Inf(1)
		for j := 0; j < f.NumJoints; j++ {
			dmin = math.Min(dmin, f.Dist(v, j))
		}
		for j := 0; j < f.NumJoints; j++ {
			mask[j][v] = f.Dist(v, j) <= slack*dmin+pad
		}
	}
	return mask
}

// maskSkin returns a copy of skin with weights outside mask (reachMask) removed and
// each vertex renormalized. A vertex that would be left without weights takes
// fallback's weights (e.g. the geodesic skin), or weight 1 on its geodesically
// nearest bone when fallback is nil.
func (f *Field) maskSkin(skin *character.Skin, mask [][]bool, fallback *character.Skin) *character.Skin {
	out := &character.Skin{Weights: make([][]character.Influence, f.NumVertices)}
	for v := 0; v < f.NumVertices; v++ {
		var row []character.Influence
		if v < len(skin.Weights) {
			for _, in := range skin.Weights[v] {
				if in.Joint >= 0 && in.Joint < len(mask) && mask[in.Joint][v] && in.Weight > 0 {
					row = append(row, in)
				}
			}
		}
		if len(row) == 0 {
			if fallback != nil && v < len(fallback.Weights) && len(fallback.Weights[v]) > 0 {
				row = append(row, fallback.Weights[v]...)
			} else {
				best := 0
				for j := 1; j < f.NumJoints; j++ {
					if f.Dist(v, j) < f.Dist(v, best) {
						best = j
					}
				}
				row = []character.Influence{{Joint: best, Weight: 1}}
			}
		}
		out.Weights[v] = row
	}
	out.Prune(0)
	return out
}
