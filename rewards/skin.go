package rewards

import (
	"math"
	"sort"
)

// skinCompleteness measures whether every vertex has usable weights: at least one
// influence, every influence on an existing joint with a finite non-negative weight,
// weights summing to 1 (±1e-3). The reward is exp(-20·bad fraction): 1% bad vertices
// cost 18%, 5% cost 63%.
// Blind to: which joints the weights go to and how smooth they are.
func (p *Prepared) skinCompleteness(r *rig) (float64, *SkinDetails) {
	det := &SkinDetails{BadVertices: len(r.badVerts)}
	if len(r.badReasons) > 0 {
		det.Reasons = r.badReasons
	}
	if len(r.badVerts) > 0 {
		det.Examples = append([]int(nil), r.badVerts[:min(10, len(r.badVerts))]...)
	}
	return skinFactor(len(r.badVerts), len(p.pos)), det
}

// skinFactor is exp(-20·bad/total).
func skinFactor(bad, total int) float64 {
	return math.Exp(-20 * float64(bad) / float64(max(1, total)))
}

// Locality tuning.
const (
	influenceFloor = 0.01 // weights below count as no influence
	freeInfluences = 4    // influences per vertex that cost nothing
	localitySlack  = 0.05 // cube units added to both distances of the locality ratio
	// localityReach: a weight on a bone at most this much farther (cube units) than
	// the nearest bone is local; only the distance beyond it counts.
	localityReach   = 0.1
	regionThreshold = 0.2 // a joint's influence region: vertices it weighs at least this much
)

// locality measures whether weights are sparse and local, as the product of three
// factors. Sparsity: per vertex min(1, 4/influences) (influences above 0.01), averaged.
// Distance: per vertex (d_near+0.05)/(d_near + Σ_j w_j·max(0, d_j − d_near − 0.1) +
// 0.05), where d_near is the distance to the nearest bone and d_j to the bones of
// joint j: a weight on a bone up to 0.1 (5% of the model's size) farther than the
// nearest one is free, as at a joint where two bones meet, and only the reach beyond
// counts (uniform or random weights reach across the body and score low). Averaged
// over up to 1500 vertices. Connectivity: for each joint, within each connected piece
// of the mesh (mesh edges plus links between vertices closer than 0.02), the share of
// its influence (weights ≥ 0.2) in its largest surface-connected region there,
// averaged by influence mass; a joint may move several separate pieces (a sword and
// the hand holding it), but within one piece its influence should be one region.
// Blind to: how smooth the weights are across joints (rigid weights score 1; see
// deformation), whether the bones are right, and far weights on a rigid piece whose
// pivot lies far from it (a door on its hinge pays for the distance).
func (p *Prepared) locality(r *rig) (float64, *LocalityDetails) {
	det := &LocalityDetails{}
	sparse, counted, infl := sparsity(r)
	if counted == 0 {
		return 0, det
	}
	det.Sparsity = sparse / float64(counted)
	det.MeanInfluences = infl / float64(counted)
	dsum, dn := p.distanceLocality(r)
	det.Distance = 1
	if dn > 0 {
		det.Distance = dsum / float64(dn)
	}
	connMass, totalMass := p.connectivity(r, det)
	det.Connectivity = 1
	if totalMass > 0 {
		det.Connectivity = connMass / totalMass
	}
	sort.Slice(det.Scattered, func(a, b int) bool { return det.Scattered[a].Value > det.Scattered[b].Value })
	if len(det.Scattered) > 20 {
		det.Scattered = det.Scattered[:20]
	}
	return det.Sparsity * det.Distance * det.Connectivity, det
}

// sparsity sums min(1, freeInfluences/influences) and the influence count over the
// weighted vertices, and counts them.
func sparsity(r *rig) (sparse float64, counted int, infl float64) {
	for _, ws := range r.skin {
		if len(ws) == 0 {
			continue
		}
		n := 0
		for _, in := range ws {
			if in.Weight > influenceFloor {
				n++
			}
		}
		infl += float64(n)
		sparse += math.Min(1, float64(freeInfluences)/float64(max(1, n)))
		counted++
	}
	return sparse, counted, infl
}

// distanceLocality sums, over the locality subsample of weighted vertices, how
// little weight reaches beyond the nearest bone, and counts them.
func (p *Prepared) distanceLocality(r *rig) (dsum float64, dn int) {
	for _, v := range p.locVerts {
		ws := r.skin[v]
		if len(ws) == 0 {
			continue
		}
		q := p.pos[v]
		near, _ := r.nearestBone(q)
		beyond := 0.0
		for _, in := range ws {
			beyond += in.Weight * math.Max(0, r.jointDist(q, in.Joint)-near-localityReach)
		}
		dsum += (near + localitySlack) / (near + beyond + localitySlack)
		dn++
	}
	return dsum, dn
}

// connectivity sums, over the joints, each joint's influence mass and the mass in
// its largest surface-connected region within each mesh piece, and lists in
// det.Scattered the joints that lose more than 5% to stray regions.
func (p *Prepared) connectivity(r *rig, det *LocalityDetails) (connMass, totalMass float64) {
	nJ := len(r.pos)
	regions := make([][]int, nJ)
	mass := make([]float64, nJ)
	for v, ws := range r.skin {
		for _, in := range ws {
			if in.Weight >= regionThreshold {
				regions[in.Joint] = append(regions[in.Joint], v)
			}
		}
	}
	member := make([]int32, len(p.pos)) // joint+1 whose region is being searched
	seen := make([]int32, len(p.pos))
	var stack []int
	// Per mesh piece: the largest region found there for the current joint (valid
	// where pieceStamp equals the joint's stamp), and the pieces touched.
	nPieces := 0
	for _, pc := range p.piece {
		nPieces = max(nPieces, int(pc)+1)
	}
	pieceBest := make([]float64, nPieces)
	pieceStamp := make([]int32, nPieces)
	var touched []int32
	for j, reg := range regions {
		if len(reg) == 0 {
			continue
		}
		w := func(v int) float64 {
			for _, in := range r.skin[v] {
				if in.Joint == j {
					return in.Weight
				}
			}
			return 0
		}
		stamp := int32(j + 1)
		for _, v := range reg {
			member[v] = stamp
			mass[j] += w(v)
		}
		touched = touched[:0]
		for _, s := range reg {
			if seen[s] == stamp {
				continue
			}
			seen[s] = stamp
			comp := 0.0
			stack = append(stack[:0], s)
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				comp += w(v)
				for _, u := range p.graph.neighbors(v) {
					if member[u] == stamp && seen[u] != stamp {
						seen[u] = stamp
						stack = append(stack, int(u))
					}
				}
			}
			pc := p.piece[s]
			if pieceStamp[pc] != stamp {
				pieceStamp[pc], pieceBest[pc] = stamp, 0
				touched = append(touched, pc)
			}
			pieceBest[pc] = math.Max(pieceBest[pc], comp)
		}
		largest := 0.0
		for _, pc := range touched {
			largest += pieceBest[pc]
		}
		totalMass += mass[j]
		connMass += largest
		if lost := 1 - largest/mass[j]; lost > 0.05 {
			det.Scattered = append(det.Scattered, JointValue{Joint: r.names[j], Value: lost})
		}
	}
	return connMass, totalMass
}
