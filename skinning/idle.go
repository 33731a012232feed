package skinning

import "github.com/rigkit/rigkit/character"

// IdleJoints returns the names of the joints of c that c's own skin gives no
// weight: a root on the floor between the feet, an armature node, IK and pole
// targets, end joints. The file says they move nothing; heat and geodesic
// weights, which give every bone its surroundings, would give a floor root's
// bones (up between the legs to the hips) the inner thighs. It returns nil when c
// has no skin or its skin gives no joint weight (nothing is said then).
func IdleJoints(c *character.Character) map[string]bool {
	if c.Skin == nil || c.Skeleton == nil {
		return nil
	}
	carries := Carries(c.Skin, c.Skeleton.NumJoints())
	idle := map[string]bool{}
	for j, ok := range carries {
		if !ok {
			idle[c.Skeleton.Names[j]] = true
		}
	}
	if len(idle) == len(carries) {
		return nil
	}
	return idle
}

// Carries reports, for each of n joints, whether k gives it weight on some
// vertex (influences of joints outside [0, n) are ignored).
func Carries(k *character.Skin, n int) []bool {
	carries := make([]bool, n)
	for _, infl := range k.Weights {
		for _, in := range infl {
			if in.Weight > 0 && in.Joint >= 0 && in.Joint < n {
				carries[in.Joint] = true
			}
		}
	}
	return carries
}

// KeepIdle returns k, a skin of c's mesh on c's skeleton, with the weights of the
// joints named in idle moved to the others: each vertex keeps its other
// influences, renormalized, and a vertex left with none goes to the joint of the
// nearest bone among the others. k is returned as is when idle names no joint of
// the skeleton or all of them.
func KeepIdle(k *character.Skin, c *character.Character, idle map[string]bool) *character.Skin {
	keep := make([]int, 0, c.Skeleton.NumJoints())
	for j, name := range c.Skeleton.Names {
		if !idle[name] {
			keep = append(keep, j)
		}
	}
	if len(keep) == 0 || len(keep) == c.Skeleton.NumJoints() {
		return k
	}
	rigid := character.RigidSkin(c.Mesh.Positions, c.Skeleton.Select(keep))
	out := &character.Skin{Weights: make([][]character.Influence, len(k.Weights))}
	for v, infl := range k.Weights {
		for _, in := range infl {
			if !idle[c.Skeleton.Names[in.Joint]] {
				out.Weights[v] = append(out.Weights[v], in)
			}
		}
		if len(out.Weights[v]) == 0 {
			for _, in := range rigid.Weights[v] {
				out.Weights[v] = append(out.Weights[v], character.Influence{Joint: keep[in.Joint], Weight: in.Weight})
			}
		}
		character.NormalizeWeights(out.Weights[v])
	}
	return out
}
