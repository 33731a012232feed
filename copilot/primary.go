package copilot

import (
	"encoding/json"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
)

// humanoidPrimaries are the primary joints of a humanoid, as animators block them
// in before the secondary ones: hips, spine chain, neck, head, shoulders, arms,
// forearms, hands, legs, feet (anatomy's names; artists' names map to them through
// anatomy.MixamoName).
var humanoidPrimaries = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{anatomy.Hips, anatomy.Spine, anatomy.Spine1, anatomy.Spine2, anatomy.Neck, anatomy.Head} {
		m[n] = true
	}
	for _, n := range []string{anatomy.Shoulder, anatomy.Arm, anatomy.ForeArm, anatomy.Hand, anatomy.UpLeg, anatomy.Leg, anatomy.Foot} {
		m[anatomy.Side(1, n)], m[anatomy.Side(-1, n)] = true, true
	}
	return m
}()

// minHumanoidPrimaries is how many primary joints a humanoid rig must name for the
// names to choose its primaries; with fewer, the branch rule does.
const minHumanoidPrimaries = 6

// Primaries returns the primary joints of an artist's skeleton, the partial a user
// gives the co-pilot: for a humanoid the joints whose names are primary
// (humanoidPrimaries), otherwise (or when fewer than six are named) every root and
// every joint with three or more neighbours (parent and children). Each kept joint
// hangs from its nearest kept ancestor.
func Primaries(sk *character.Skeleton, humanoid bool) *character.Skeleton {
	var keep []int
	if humanoid {
		for j, n := range sk.Names {
			if humanoidPrimaries[anatomy.MixamoName(n)] || humanoidPrimaries[n] {
				keep = append(keep, j)
			}
		}
	}
	if len(keep) < minHumanoidPrimaries {
		keep = branchJoints(sk)
	}
	return selectWithAncestors(sk, keep)
}

// branchJoints are the roots and the joints with three or more neighbours.
func branchJoints(sk *character.Skeleton) []int {
	children := sk.Children()
	var keep []int
	for j, p := range sk.Parents {
		n := len(children[j])
		if p >= 0 {
			n++
		}
		if p < 0 || n >= 3 {
			keep = append(keep, j)
		}
	}
	return keep
}

// MarshalPartial writes a skeleton as a partial JSON file's content (LoadPartial
// reads it back).
func MarshalPartial(sk *character.Skeleton) ([]byte, error) {
	pj := partialJSON{Joints: make([]partialJoint, sk.NumJoints())}
	for j, n := range sk.Names {
		p := sk.Position(j)
		pj.Joints[j] = partialJoint{Name: n, Position: []float64{p[0], p[1], p[2]}}
		if q := sk.Parents[j]; q >= 0 {
			pj.Joints[j].Parent = &sk.Names[q]
		}
	}
	return json.MarshalIndent(pj, "", "  ")
}

// selectWithAncestors is Skeleton.Select of keep (parents before children), each
// joint hanging from its nearest selected ancestor.
func selectWithAncestors(sk *character.Skeleton, keep []int) *character.Skeleton {
	at := make(map[int]int, len(keep))
	for i, j := range keep {
		at[j] = i
	}
	out := sk.Select(keep)
	for i, j := range keep {
		out.Parents[i] = -1
		for a := sk.Parents[j]; a >= 0; a = sk.Parents[a] {
			if k, ok := at[a]; ok {
				out.Parents[i] = k
				break
			}
		}
	}
	return out
}
