package synth

import (
	"github.com/rigkit/rigkit/character"
)

// showcaseNames are the joints, most wanted first, whose weights show a creature's
// skinning best in a heatmap: limb and spine joints in the middle of a chain, where
// two bones blend.
var showcaseNames = []string{"arm_l_upper", "leg_fl_lower", "leg_l_lower", "wing_l_02", "spine_06", "leg_l_1_2", "tentacle_1_03", "arm_upper", "elbow"}

// ShowcaseJoint picks the joint of a generated skeleton whose weights are worth a
// heatmap (render.Sheet): the first of the upper arms, lower legs, wings, spines and
// tentacles it has, else the middle joint.
func ShowcaseJoint(s *character.Skeleton) int {
	for _, want := range showcaseNames {
		for j, n := range s.Names {
			if n == want {
				return j
			}
		}
	}
	return s.NumJoints() / 2
}
