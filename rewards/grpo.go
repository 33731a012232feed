package rewards

import "math"

// advantageEps keeps std scaling finite for near-constant groups.
const advantageEps = 1e-8

// GroupAdvantages returns GRPO group-normalized advantages: each score minus the
// group mean, divided by the group's standard deviation (population, plus 1e-8) when
// scaleByStd is set. The advantages sum to zero; an all-equal group (or a group of
// one) gives zeros. Non-finite scores count as 0.
func GroupAdvantages(scores []float64, scaleByStd bool) []float64 {
	n := len(scores)
	adv := make([]float64, n)
	if n == 0 {
		return adv
	}
	clean := make([]float64, n)
	mean := 0.0
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			s = 0
		}
		clean[i] = s
		mean += s
	}
	mean /= float64(n)
	allEqual := true
	variance := 0.0
	for i, s := range clean {
		adv[i] = s - mean
		if s != clean[0] {
			allEqual = false
		}
		variance += adv[i] * adv[i]
	}
	if allEqual {
		for i := range adv {
			adv[i] = 0
		}
		return adv
	}
	if scaleByStd {
		std := math.Sqrt(variance / float64(n))
		for i := range adv {
			adv[i] /= std + advantageEps
		}
	}
	// Remove rounding drift so the advantages sum to zero.
	sum := 0.0
	for _, a := range adv {
		sum += a
	}
	for i := range adv {
		adv[i] -= sum / float64(n)
	}
	return adv
}
