package edit

import (
	"fmt"
	"sort"

	"github.com/rigkit/rigkit/character"
)

// This file holds the edits that change the hierarchy, and with it the joint
// indices that the skin, the locks and the animations refer to.

// Delete removes joint j. Its children go to its parent and its weights too, so that
// every vertex keeps its total weight. A root can go when it has exactly one child,
// which becomes the root and takes its weights, or when it has neither children nor
// weights (a pole target, an attachment point).
func (r *Rig) Delete(j int) error {
	if err := r.checkJoint(j); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	sk := r.cur.skeleton
	name := sk.Names[j]
	if sk.NumJoints() == 1 {
		return fmt.Errorf("delete %s: it is the only joint", name)
	}
	heir, err := heirOf(sk, j)
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	parents := append([]int(nil), sk.Parents...)
	for k, p := range parents {
		if p == j {
			parents[k] = sk.Parents[j]
		}
	}
	keep := make([]int, 0, sk.NumJoints()-1)
	for k := range sk.Names {
		if k != j {
			keep = append(keep, k)
		}
	}
	before := r.cur
	if heir >= 0 {
		before.skin = moveWeights(r.cur.skin, j, heir)
		before.dirty = withFlag(before.dirty, heir, true)
	} else if n := weighted(r.cur.skin, j); n > 0 {
		return fmt.Errorf("delete %s: it is a root without children and moves %d vertices: no joint can take its weights", name, n)
	}
	r.commit(fmt.Sprintf("delete %s", name), reorder(before, parents, keep))
	return nil
}

// heirOf returns the joint that takes joint j's weights when j is deleted (-1 for
// a root without children).
func heirOf(sk *character.Skeleton, j int) (int, error) {
	if p := sk.Parents[j]; p >= 0 {
		return p, nil
	}
	var kids []int
	for k, p := range sk.Parents {
		if p == j {
			kids = append(kids, k)
		}
	}
	switch len(kids) {
	case 0:
		return -1, nil
	case 1:
		return kids[0], nil
	}
	return -1, fmt.Errorf("it is a root with %d children (reparent all but one first)", len(kids))
}

// weighted counts the vertices joint j has weight on.
func weighted(skin *character.Skin, j int) int {
	n := 0
	if skin == nil {
		return 0
	}
	for _, infl := range skin.Weights {
		for _, in := range infl {
			if in.Joint == j && in.Weight > 0 {
				n++
				break
			}
		}
	}
	return n
}

// Reparent makes parent (-1: none, a root) joint j's parent. It refuses a parent
// inside j's own subtree, which would close a cycle. Joints are reordered so that
// parents still come before their children.
func (r *Rig) Reparent(j, parent int) error {
	if err := r.checkJoint(j); err != nil {
		return fmt.Errorf("reparent: %w", err)
	}
	sk := r.cur.skeleton
	if parent != -1 {
		if err := r.checkJoint(parent); err != nil {
			return fmt.Errorf("reparent %s: parent: %w", sk.Names[j], err)
		}
	}
	old := sk.Parents[j]
	if parent == old {
		return nil
	}
	for a := parent; a >= 0; a = sk.Parents[a] {
		if a == j {
			return fmt.Errorf("reparent %s under %s: %s is inside %s's subtree (that would make a cycle)",
				sk.Names[j], sk.Names[parent], sk.Names[parent], sk.Names[j])
		}
	}
	parents := append([]int(nil), sk.Parents...)
	parents[j] = parent
	before := r.cur
	before.dirty = withFlag(before.dirty, j, true)
	for _, k := range []int{old, parent} {
		if k >= 0 {
			before.dirty[k] = true
		}
	}
	label := fmt.Sprintf("reparent %s under %s", sk.Names[j], nameOr(sk, parent, "(root)"))
	r.commit(label, reorder(before, parents, topological(parents)))
	return nil
}

// topological returns the joints in an order where every parent comes before its
// children, keeping the given order wherever it already does.
func topological(parents []int) []int {
	n := len(parents)
	placed := make([]bool, n)
	order := make([]int, 0, n)
	for len(order) < n {
		for k := range parents {
			if !placed[k] && (parents[k] < 0 || placed[parents[k]]) {
				placed[k] = true
				order = append(order, k)
			}
		}
	}
	return order
}

// reorder returns st with only the joints keep (old indices, in their new order),
// whose parents are parents (old indices; every kept joint's parent kept or -1).
// Skin influences on a joint not kept must have been moved off it first; animation
// channels of such joints are dropped.
func reorder(st state, parents, keep []int) state {
	newIndex := make([]int, len(parents))
	for k := range newIndex {
		newIndex[k] = -1
	}
	for i, k := range keep {
		newIndex[k] = i
	}
	sk := st.skeleton
	next := state{skeleton: &character.Skeleton{}}
	for _, k := range keep {
		p := parents[k]
		if p >= 0 {
			p = newIndex[p]
		}
		next.skeleton.Names = append(next.skeleton.Names, sk.Names[k])
		next.skeleton.Parents = append(next.skeleton.Parents, p)
		next.skeleton.BindWorld = append(next.skeleton.BindWorld, sk.BindWorld[k])
		next.locked = append(next.locked, st.locked[k])
		next.dirty = append(next.dirty, st.dirty[k])
	}
	next.skin = remapSkin(st.skin, newIndex)
	next.animations = remapAnimations(st.animations, newIndex)
	return next
}

// moveWeights returns skin with every influence of joint from given to joint to
// (merged with to's own), heaviest first. Vertices without from are shared.
func moveWeights(skin *character.Skin, from, to int) *character.Skin {
	if skin == nil {
		return nil
	}
	out := &character.Skin{Weights: make([][]character.Influence, len(skin.Weights))}
	for v, infl := range skin.Weights {
		out.Weights[v] = infl
		moved := 0.0
		has := false
		for _, in := range infl {
			if in.Joint == from {
				moved += in.Weight
				has = true
			}
		}
		if !has {
			continue
		}
		merged := make([]character.Influence, 0, len(infl))
		for _, in := range infl {
			switch in.Joint {
			case from:
			case to:
				in.Weight += moved
				moved = 0
				merged = append(merged, in)
			default:
				merged = append(merged, in)
			}
		}
		if moved > 0 {
			merged = append(merged, character.Influence{Joint: to, Weight: moved})
		}
		sortHeaviest(merged)
		out.Weights[v] = merged
	}
	return out
}

// remapSkin renumbers the skin's joints (newIndex[old]; none may be -1 where a
// vertex has weight).
func remapSkin(skin *character.Skin, newIndex []int) *character.Skin {
	if skin == nil {
		return nil
	}
	out := &character.Skin{Weights: make([][]character.Influence, len(skin.Weights))}
	for v, infl := range skin.Weights {
		w := make([]character.Influence, 0, len(infl))
		for _, in := range infl {
			if k := newIndex[in.Joint]; k >= 0 {
				w = append(w, character.Influence{Joint: k, Weight: in.Weight})
			}
		}
		out.Weights[v] = w
	}
	return out
}

// remapAnimations renumbers the channels' joints and drops the channels of joints
// that are gone.
func remapAnimations(anims []character.Animation, newIndex []int) []character.Animation {
	if anims == nil {
		return nil
	}
	out := make([]character.Animation, len(anims))
	for a, an := range anims {
		out[a].Name = an.Name
		for _, ch := range an.Channels {
			if ch.Joint >= 0 && ch.Joint < len(newIndex) && newIndex[ch.Joint] >= 0 {
				ch.Joint = newIndex[ch.Joint]
				out[a].Channels = append(out[a].Channels, ch)
			}
		}
	}
	return out
}

// sortHeaviest orders influences heaviest first, ties by joint, as the skin's
// contract asks.
func sortHeaviest(w []character.Influence) {
	sort.Slice(w, func(a, b int) bool {
		if w[a].Weight != w[b].Weight {
			return w[a].Weight > w[b].Weight
		}
		return w[a].Joint < w[b].Joint
	})
}

// nameOr returns joint j's name, or none for -1.
func nameOr(sk *character.Skeleton, j int, none string) string {
	if j < 0 {
		return none
	}
	return sk.Names[j]
}
