package skinning

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
)

// Blend returns the per-vertex mix alpha·a + (1−alpha)·b of two skins of the same
// mesh and skeleton, pruned to the heaviest maxK influences and renormalized
// (character.Skin.Prune). Two methods that err differently (a learned one and a
// geometric one, say) often err less together.
func Blend(a, b *character.Skin, alpha float64, maxK int) (*character.Skin, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("blend: missing skin")
	}
	if len(a.Weights) != len(b.Weights) {
		return nil, fmt.Errorf("blend: skins of %d and %d vertices", len(a.Weights), len(b.Weights))
	}
	if !(alpha >= 0 && alpha <= 1) {
		return nil, fmt.Errorf("blend: alpha %v outside [0, 1]", alpha)
	}
	out := &character.Skin{Weights: make([][]character.Influence, len(a.Weights))}
	for v := range a.Weights {
		infl := make([]character.Influence, 0, len(a.Weights[v])+len(b.Weights[v]))
		for _, in := range a.Weights[v] {
			infl = append(infl, character.Influence{Joint: in.Joint, Weight: alpha * in.Weight})
		}
		for _, in := range b.Weights[v] {
			infl = append(infl, character.Influence{Joint: in.Joint, Weight: (1 - alpha) * in.Weight})
		}
		out.Weights[v] = infl
	}
	out.Prune(maxK)
	return out, nil
}

// Sharpen returns a copy of k with every vertex's influences raised to the power p
// and renormalized, then pruned to the heaviest maxK. p > 1 moves a vertex that is
// mostly one bone's further toward that bone while equal blends stay equal: diffusion
// fields (heat, geodesic) are softer than most artists' near-rigid skins. p = 1
// returns the weights unchanged. No influence becomes zero, so no vertex is orphaned
// and no bone emptied.
func Sharpen(k *character.Skin, p float64, maxK int) (*character.Skin, error) {
	if k == nil {
		return nil, fmt.Errorf("sharpen: missing skin")
	}
	if !(p >= 1 && p <= 16) {
		return nil, fmt.Errorf("sharpen: power %v outside [1, 16]", p)
	}
	out := &character.Skin{Weights: make([][]character.Influence, len(k.Weights))}
	for v, infl := range k.Weights {
		s := make([]character.Influence, len(infl))
		for i, in := range infl {
			s[i] = character.Influence{Joint: in.Joint, Weight: math.Pow(in.Weight, p)}
		}
		out.Weights[v] = s
	}
	out.Prune(maxK)
	return out, nil
}
