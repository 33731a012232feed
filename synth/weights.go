package synth

import (
	"math"

	"github.com/rigkit/rigkit/character"
)

const (
	// ownershipSharpness sets how fast a part's ownership falls off behind the
	// nearest part, as a fraction of the nearest part's radius: small enough that
	// neighbouring fingers or legs never share a vertex.
	ownershipSharpness = 0.15
	// minWeight drops influences lighter than this share of a vertex's total.
	minWeight = 0.02
)

// smoothstep rises from 0 at lo to 1 at hi.
func smoothstep(lo, hi, x float64) float64 {
	if x <= lo {
		return 0
	}
	if x >= hi {
		return 1
	}
	t := (x - lo) / (hi - lo)
	return t * t * (3 - 2*t)
}

// skinWeights derives each vertex's weights from the body parts: every part near
// the vertex gets an ownership share that decays with how far the vertex lies
// behind the nearest part's surface, and each part splits its share between its
// owner joint and, inside the blend windows around its two end joints, the owner's
// parent or the joint at its far end. Away from joints a vertex is rigid.
func skinWeights(prims []prim, parents []int, s *surface) *character.Skin {
	skin := &character.Skin{Weights: make([][]character.Influence, len(s.positions))}
	var ds []float64
	for v, x := range s.positions {
		list := s.blocks[s.vertBlock[v]]
		ds = ds[:0]
		dmin, rnear := math.Inf(1), 0.0
		for _, i := range list {
			d, t := prims[i].dist(x)
			ds = append(ds, d)
			if d < dmin {
				p := &prims[i]
				dmin, rnear = d, (p.ra+(p.rb-p.ra)*t)*p.flatScale
			}
		}
		tau := ownershipSharpness * rnear
		var acc []character.Influence
		add := func(j int, w float64) {
			if w <= 0 || j < 0 {
				return
			}
			for n := range acc {
				if acc[n].Joint == j {
					acc[n].Weight += w
					return
				}
			}
			acc = append(acc, character.Influence{Joint: j, Weight: w})
		}
		for n, i := range list {
			a := math.Exp(-(ds[n] - dmin) / tau)
			if a < 1e-3 {
				continue
			}
			p := &prims[i]
			s := p.axial(x)
			wp, we := 0.0, 0.0
			if p.startBlend && p.wa > 0 {
				wp = 1 - smoothstep(-p.wa, p.wa, s)
			}
			if p.end >= 0 && p.wb > 0 {
				we = smoothstep(-p.wb, p.wb, s-p.length)
			}
			if sum := wp + we; sum > 1 {
				wp, we = wp/sum, we/sum
			}
			add(parents[p.owner], a*wp)
			add(p.end, a*we)
			add(p.owner, a*(1-wp-we))
		}
		acc = separateSiblings(acc, parents)
		total := 0.0
		for _, in := range acc {
			total += in.Weight
		}
		kept := acc[:0]
		for _, in := range acc {
			if in.Weight >= minWeight*total {
				kept = append(kept, in)
			}
		}
		skin.Weights[v] = kept
	}
	skin.Prune(character.MaxInfluencesWritten)
	return skin
}

// separateSiblings keeps a vertex from moving with two sibling joints (two legs off
// the hips, two fingers off the hand): among siblings only the heaviest keeps the
// excess of its weight over the next heaviest, and the rest goes to their parent.
// The map is continuous, so no seam appears where the heaviest sibling changes.
func separateSiblings(acc []character.Influence, parents []int) []character.Influence {
	for i := range acc {
		p := parents[acc[i].Joint]
		if p < 0 || acc[i].Weight == 0 {
			continue
		}
		best, second, moved := i, -1, 0.0
		for k := range acc {
			if k == i || parents[acc[k].Joint] != p || acc[k].Weight == 0 {
				continue
			}
			if acc[k].Weight > acc[best].Weight || (acc[k].Weight == acc[best].Weight && acc[k].Joint < acc[best].Joint) {
				best = k
			}
		}
		for k := range acc {
			if k != best && parents[acc[k].Joint] == p && acc[k].Weight > 0 {
				if second < 0 || acc[k].Weight > acc[second].Weight {
					second = k
				}
			}
		}
		if second < 0 {
			continue
		}
		w2 := acc[second].Weight
		for k := range acc {
			if k != best && parents[acc[k].Joint] == p && acc[k].Weight > 0 {
				moved += acc[k].Weight
				acc[k].Weight = 0
			}
		}
		acc[best].Weight -= w2
		moved += w2
		found := false
		for k := range acc {
			if acc[k].Joint == p {
				acc[k].Weight += moved
				found = true
			}
		}
		if !found {
			acc = append(acc, character.Influence{Joint: p, Weight: moved})
		}
	}
	return acc
}
