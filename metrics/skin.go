package metrics

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Conventions of shared/METRICS.md.
const (
	// VertexTolerance is how close (normalized units) a predicted vertex must be to a
	// ground-truth vertex to correspond to it.
	VertexTolerance = 1e-4
	// InfluenceThreshold is the weight above which a joint influences a vertex.
	InfluenceThreshold = 1e-4
	// DeformPoses is the number of seeded random poses of the deformation error.
	DeformPoses = 8
	// DeformMaxAngle is the largest joint rotation of those poses, in radians (45°).
	DeformMaxAngle = math.Pi / 4
	// DeformScale multiplies deformation distances in reports.
	DeformScale = 100
)

// SkinResult holds the skin-only metrics of one asset. Deformation figures are ×100
// in normalized units.
type SkinResult struct {
	Vertices int `json:"vertices"`
	Joints   int `json:"joints"`
	// L1 is the mean over vertices of Σ_j |w_pred − w_gt| (0..2, lower is better).
	L1 float64 `json:"l1"`
	// Precision and Recall of influences (weight > InfluenceThreshold), per vertex,
	// averaged over vertices.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// DeformMean and DeformMax are the mean and max vertex distance between the mesh
	// skinned with predicted and with ground-truth weights, ×100, averaged over poses.
	DeformMean float64 `json:"deform_mean"`
	DeformMax  float64 `json:"deform_max"`
	// Orphans counts vertices whose predicted weights are all zero (must be 0).
	Orphans int `json:"orphans"`
	// EmptyBones lists the joints ground truth uses (some weight > InfluenceThreshold)
	// that the prediction gives no such weight anywhere.
	EmptyBones []string `json:"empty_bones,omitempty"`
}

// SkinMetrics scores predicted weights given on ground truth's own vertices and
// joints (pred.Weights[v] for gt.Mesh.Positions[v], Joint indexing gt.Skeleton).
// Predicted weights are renormalized to sum to 1 per vertex; the deformation error
// uses DeformPoses poses drawn from seed.
func SkinMetrics(gt *character.Character, pred *character.Skin, seed int64) (SkinResult, error) {
	if gt == nil || !gt.Rigged() {
		return SkinResult{}, fmt.Errorf("skin metrics: ground truth has no skeleton or skin")
	}
	nv, nj := len(gt.Mesh.Positions), gt.Skeleton.NumJoints()
	if pred == nil || len(pred.Weights) != nv {
		n := 0
		if pred != nil {
			n = len(pred.Weights)
		}
		return SkinResult{}, fmt.Errorf("skin metrics: %d predicted weight lists for %d vertices", n, nv)
	}
	if len(gt.Skin.Weights) != nv {
		return SkinResult{}, fmt.Errorf("skin metrics: ground truth has %d weight lists for %d vertices", len(gt.Skin.Weights), nv)
	}
	gtW := normalizedSkin(gt.Skin, nj)
	prW := normalizedSkin(pred, nj)
	r := SkinResult{Vertices: nv, Joints: nj}
	gtUsed := make([]bool, nj)
	prUsed := make([]bool, nj)
	for v := 0; v < nv; v++ {
		g, p := gtW.Weights[v], prW.Weights[v]
		if len(p) == 0 {
			r.Orphans++
		}
		r.L1 += l1(g, p)
		inG, inP := 0, 0
		both := 0
		for _, in := range g {
			if in.Weight > InfluenceThreshold {
				inG++
				gtUsed[in.Joint] = true
				if weightOf(p, in.Joint) > InfluenceThreshold {
					both++
				}
			}
		}
		for _, in := range p {
			if in.Weight > InfluenceThreshold {
				inP++
				prUsed[in.Joint] = true
			}
		}
		if inP > 0 {
			r.Precision += float64(both) / float64(inP)
		}
		if inG > 0 {
			r.Recall += float64(both) / float64(inG)
		}
	}
	if nv > 0 {
		r.L1 /= float64(nv)
		r.Precision /= float64(nv)
		r.Recall /= float64(nv)
	}
	for j := 0; j < nj; j++ {
		if gtUsed[j] && !prUsed[j] {
			r.EmptyBones = append(r.EmptyBones, gt.Skeleton.Names[j])
		}
	}
	r.DeformMean, r.DeformMax = deformationError(gt, gtW, prW, seed)
	return r, nil
}

// normalizedSkin keeps positive finite weights on valid joints, merges duplicate
// joints and rescales each vertex to sum 1 (vertices with nothing left stay empty).
func normalizedSkin(k *character.Skin, nj int) *character.Skin {
	out := &character.Skin{Weights: make([][]character.Influence, len(k.Weights))}
	for v, infl := range k.Weights {
		var row []character.Influence
		sum := 0.0
		for _, in := range infl {
			if in.Joint < 0 || in.Joint >= nj || !(in.Weight > 0) || math.IsInf(in.Weight, 0) {
				continue
			}
			merged := false
			for i := range row {
				if row[i].Joint == in.Joint {
					row[i].Weight += in.Weight
					merged = true
				}
			}
			if !merged {
				row = append(row, in)
			}
			sum += in.Weight
		}
		for i := range row {
			row[i].Weight /= sum
		}
		out.Weights[v] = row
	}
	return out
}

func weightOf(infl []character.Influence, j int) float64 {
	for _, in := range infl {
		if in.Joint == j {
			return in.Weight
		}
	}
	return 0
}

// l1 returns Σ_j |a_j − b_j| for two sparse rows without duplicate joints.
func l1(a, b []character.Influence) float64 {
	s := 0.0
	for _, in := range a {
		s += math.Abs(in.Weight - weightOf(b, in.Joint))
	}
	for _, in := range b {
		if weightOf(a, in.Joint) == 0 {
			s += in.Weight
		}
	}
	return s
}

// deformationError poses ground truth's skeleton DeformPoses times (in its normalized
// frame) and compares linear blend skinning with both skins.
func deformationError(gt *character.Character, gtW, prW *character.Skin, seed int64) (mean, maxd float64) {
	norm := character.NormalizationOf(gt.Mesh)
	nc := norm.Apply(&character.Character{Mesh: character.Mesh{Positions: gt.Mesh.Positions}, Skeleton: gt.Skeleton})
	rng := rand.New(rand.NewSource(seed))
	nj := nc.Skeleton.NumJoints()
	nv := len(nc.Mesh.Positions)
	if nv == 0 {
		return 0, 0
	}
	for i := 0; i < DeformPoses; i++ {
		pose := character.RandomPose(rng, nj, DeformMaxAngle)
		mats := nc.Skeleton.SkinningMatrices(nc.Skeleton.PosedWorld(pose))
		a := character.LinearBlendSkin(nc.Mesh.Positions, gtW, mats)
		b := character.LinearBlendSkin(nc.Mesh.Positions, prW, mats)
		sum, mx := 0.0, 0.0
		for v := range a {
			d := a[v].Dist(b[v])
			sum += d
			mx = math.Max(mx, d)
		}
		mean += sum / float64(nv)
		maxd += mx
	}
	return DeformScale * mean / DeformPoses, DeformScale * maxd / DeformPoses
}

// MatchSkin expresses a prediction's weights on ground truth's vertices and joints:
// each ground-truth vertex takes the weights of the predicted vertex at the same
// normalized position (within VertexTolerance), and joints correspond by name. It
// fails when a ground-truth vertex has no counterpart or a weighted predicted joint
// has no namesake.
func MatchSkin(gt, pred *character.Character) (*character.Skin, error) {
	if gt == nil || gt.Skeleton == nil || pred == nil || pred.Skeleton == nil || pred.Skin == nil {
		return nil, fmt.Errorf("match skin: ground truth and prediction need a skeleton (and the prediction a skin)")
	}
	if len(pred.Skin.Weights) != len(pred.Mesh.Positions) {
		return nil, fmt.Errorf("match skin: prediction has %d weight lists for %d vertices", len(pred.Skin.Weights), len(pred.Mesh.Positions))
	}
	jmap := matchJoints(gt.Skeleton.Names, pred.Skeleton.Names)
	norm := character.NormalizationOf(gt.Mesh)
	idx := newPointIndex(pred.Mesh.Positions, norm, VertexTolerance)
	out := &character.Skin{Weights: make([][]character.Influence, len(gt.Mesh.Positions))}
	for v, p := range gt.Mesh.Positions {
		u := idx.nearest(norm.Point(p))
		if u < 0 {
			return nil, fmt.Errorf("match skin: ground-truth vertex %d at %v has no predicted vertex within %g", v, p, VertexTolerance)
		}
		var row []character.Influence
		for _, in := range pred.Skin.Weights[u] {
			if in.Joint < 0 || in.Joint >= len(jmap) {
				continue
			}
			g := jmap[in.Joint]
			if g < 0 {
				if in.Weight > InfluenceThreshold {
					return nil, fmt.Errorf("match skin: predicted joint %q has no ground-truth namesake", pred.Skeleton.Names[in.Joint])
				}
				continue
			}
			row = append(row, character.Influence{Joint: g, Weight: in.Weight})
		}
		out.Weights[v] = row
	}
	return out, nil
}

// CompareSkin matches a prediction to ground truth (MatchSkin) and scores it
// (SkinMetrics).
func CompareSkin(gt, pred *character.Character, seed int64) (SkinResult, error) {
	w, err := MatchSkin(gt, pred)
	if err != nil {
		return SkinResult{}, err
	}
	return SkinMetrics(gt, w, seed)
}

// matchJoints maps each predicted joint to the ground-truth joint of the same name
// (the k-th of several equal names to the k-th), or -1.
func matchJoints(gt, pred []string) []int {
	byName := map[string][]int{}
	for j, n := range gt {
		byName[n] = append(byName[n], j)
	}
	seen := map[string]int{}
	out := make([]int, len(pred))
	for j, n := range pred {
		k := seen[n]
		seen[n]++
		if c := byName[n]; k < len(c) {
			out[j] = c[k]
		} else {
			out[j] = -1
		}
	}
	return out
}

// pointIndex finds points by position on a hash grid of cell size tol.
type pointIndex struct {
	tol   float64
	pts   []vecmath.Vec3
	cells map[[3]int64][]int
}

func newPointIndex(world []vecmath.Vec3, norm character.Normalization, tol float64) *pointIndex {
	ix := &pointIndex{tol: tol, pts: make([]vecmath.Vec3, len(world)), cells: make(map[[3]int64][]int, len(world))}
	for i, p := range world {
		q := norm.Point(p)
		ix.pts[i] = q
		k := ix.key(q)
		ix.cells[k] = append(ix.cells[k], i)
	}
	return ix
}

func (ix *pointIndex) key(p vecmath.Vec3) [3]int64 {
	return [3]int64{int64(math.Floor(p[0] / ix.tol)), int64(math.Floor(p[1] / ix.tol)), int64(math.Floor(p[2] / ix.tol))}
}

// nearest returns the closest point within tol of p, or -1.
func (ix *pointIndex) nearest(p vecmath.Vec3) int {
	k := ix.key(p)
	best, bi := ix.tol, -1
	for dz := int64(-1); dz <= 1; dz++ {
		for dy := int64(-1); dy <= 1; dy++ {
			for dx := int64(-1); dx <= 1; dx++ {
				for _, i := range ix.cells[[3]int64{k[0] + dx, k[1] + dy, k[2] + dz}] {
					if d := ix.pts[i].Dist(p); d <= best {
						if bi < 0 || d < best {
							best, bi = d, i
						}
					}
				}
			}
		}
	}
	return bi
}
