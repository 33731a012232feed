package rewards

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// versionWeights are the weights each reward version combined its rewards with,
// so that a trainer (rig grpo --reward) or a report can optimize or score the
// combination of an earlier version on today's rewards. Only the combination is
// recalled: the rewards are always this code's (version 3's coverage, for one,
// charged small thin detail left unboned, which today's coverage excuses).
var versionWeights = map[string]map[string]float64{
	// Version 3: the six geometric rewards; symmetry and limbs did not exist.
	"v3": {Containment: 1, Coverage: 3, SkinReward: 1, Locality: 3, Deformation: 2, Sanity: 2},
	// Version 4: the geometric rewards and the semantic ones.
	"v4": {Containment: 1, Coverage: 3, SkinReward: 1, Locality: 3, Deformation: 2, Sanity: 2, Symmetry: 2, Limbs: 1},
	// Version 5: version 4's weights (Weights); its deformation adds clip poses.
	"v5": {Containment: 1, Coverage: 3, SkinReward: 1, Locality: 3, Deformation: 2, Sanity: 2, Symmetry: 2, Limbs: 1},
	// Version 6: version 5's; the learned critic is reported at weight 0.
	"v6": {Containment: 1, Coverage: 3, SkinReward: 1, Locality: 3, Deformation: 2, Sanity: 2, Symmetry: 2, Limbs: 1, criticReward: 0},
	// Version 7: version 6's; coverage and limbs read leaf bones.
	"v7": {Containment: 1, Coverage: 3, SkinReward: 1, Locality: 3, Deformation: 2, Sanity: 2, Symmetry: 2, Limbs: 1, criticReward: 0},
}

// WeightsFor returns the combination a spec names, for CombineWith: "" the
// current Weights, a version ("v3", "v4": the weights that reward version
// combined with), or an explicit list "name=w,name=w" (rewards left out weigh 0).
// It refuses unknown versions and rewards, weights that are negative or not
// finite, a reward named twice, and a list whose weights are all 0, since such a
// combination scores every rig alike and GRPO would learn nothing from it.
func WeightsFor(spec string) (map[string]float64, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return maps.Clone(Weights), nil
	}
	if w, ok := versionWeights[spec]; ok {
		return maps.Clone(w), nil
	}
	if !strings.Contains(spec, "=") {
		return nil, fmt.Errorf("reward weights %q: not a version (%s) nor a list name=w,...", spec, strings.Join(RewardVersions(), ", "))
	}
	out := map[string]float64{}
	sum := 0.0
	for _, item := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("reward weights %q: %q is not name=w", spec, item)
		}
		if !slices.Contains(RewardNames, name) {
			return nil, fmt.Errorf("reward weights %q: unknown reward %q (rewards: %s)", spec, name, strings.Join(RewardNames, ", "))
		}
		if _, twice := out[name]; twice {
			return nil, fmt.Errorf("reward weights %q: %s given twice", spec, name)
		}
		w, err := strconv.ParseFloat(val, 64)
		if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return nil, fmt.Errorf("reward weights %q: %s=%s: want a finite weight ≥ 0", spec, name, val)
		}
		out[name] = w
		sum += w
	}
	if sum == 0 {
		return nil, fmt.Errorf("reward weights %q: every weight is 0", spec)
	}
	return out, nil
}

// RewardVersions lists the versions WeightsFor knows, in name order.
func RewardVersions() []string {
	return slices.Sorted(maps.Keys(versionWeights))
}
