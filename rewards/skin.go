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
	influenceFloor  = 0.01 // weights below count as no influence
	freeInfluences  = 4    // influences per vertex that cost nothing
	localitySlack   = 0.05 // cube units added to both distances of the locality ratio
	regionThreshold = 0.2  // a joint's influence region: vertices it weighs at least this much
)

// locality measures whether weights are sparse and local, as the product of three
// factors. Sparsity: per vertex min(1, 4/influences) (influences above 0.01), averaged.
// Distance: per vertex (d_near+0.05)/(d_weighted+0.05), where d_near is the distance
// to the nearest bone and d_weighted the weight-averaged distance to the bones of the
// joints that move it, averaged (uniform or random weights reach across the body and
// score low). Connectivity: for each joint, the share of its influence (weights ≥ 0.2)
// in the largest connected piece of the surface graph (mesh edges plus links between
// pieces closer than 0.02), averaged by influence mass.
// Blind to: how smooth the weights are across joints (rigid weights score 1; see
// deformation) and whether the bones are right.
func (p *Prepared) locality(r *rig) (float64, *LocalityDetails) {
	det := &LocalityDetails{}
	nJ := len(r.pos)
	// Sparsity over all vertices.
	sparse, counted, infl := 0.0, 0, 0.0
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
	if counted == 0 {
		return 0, det
	}
	det.Sparsity = sparse / float64(counted)
	det.MeanInfluences = infl / float64(counted)

	// Distance locality over a vertex subsample.
	dsum, dn := 0.0, 0
	for _, v := range p.locVerts {
		ws := r.skin[v]
		if len(ws) == 0 {
			continue
		}
		q := p.pos[v]
		near, _ := r.nearestBone(q)
		weighted := 0.0
		for _, in := range ws {
			weighted += in.Weight * r.jointDist(q, in.Joint)
		}
		dsum += (near + localitySlack) / (weighted + localitySlack)
		dn++
	}
	det.Distance = 1
	if dn > 0 {
		det.Distance = dsum / float64(dn)
	}

	// Connectivity of each joint's region.
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
	totalMass, connMass := 0.0, 0.0
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
		largest := 0.0
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
				for _, u := range p.graph[v] {
					if member[u] == stamp && seen[u] != stamp {
						seen[u] = stamp
						stack = append(stack, u)
					}
				}
			}
			largest = math.Max(largest, comp)
		}
		totalMass += mass[j]
		connMass += largest
		if lost := 1 - largest/mass[j]; lost > 0.05 {
			det.Scattered = append(det.Scattered, JointValue{Joint: r.names[j], Value: lost})
		}
	}
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
