package tokens

import (
	"errors"
	"fmt"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Order maps token order to a skeleton's own joint order: Order[i] is the index, in
// the encoded skeleton, of the i-th joint of the token stream. Keep it to restore
// joint names (and any per-joint data) after decoding.
type Order []int

// inverse returns the map from the skeleton's joint index to the token-order index.
func (o Order) inverse() []int {
	inv := make([]int, len(o))
	for i, j := range o {
		inv[j] = i
	}
	return inv
}

// Names returns names (in the encoded skeleton's order) rearranged into token order.
func (o Order) Names(names []string) []string {
	out := make([]string, len(o))
	for i, j := range o {
		if j < len(names) {
			out[i] = names[j]
		}
	}
	return out
}

// jointName is the generated name of the i-th decoded joint.
func jointName(i int) string { return fmt.Sprintf("joint_%03d", i) }

// jointKey is a joint's position bins, the canonical sort key of siblings.
type jointKey [3]int

func (a jointKey) less(b jointKey) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// EncodeSkeleton writes a skeleton (world space, bind pose) as the skeleton part of a
// stream, BOS through SEP. Joint positions are mapped into the cube by norm (use
// assets.NormalizationOf(mesh)), clamped to it, and binned. Joints are written
// depth-first; siblings (and roots) in increasing (x, y, z) bin order, ties kept in
// the skeleton's own order. The returned Order gives, for each token-order joint,
// its index in sk.
func EncodeSkeleton(sk *character.Skeleton, norm character.Normalization) ([]int, Order, error) {
	n := sk.NumJoints()
	if n == 0 {
		return nil, nil, errors.New("tokenizer: encode skeleton: no joints")
	}
	if n > MaxJoints {
		return nil, nil, fmt.Errorf("tokenizer: encode skeleton: %d joints, at most %d", n, MaxJoints)
	}
	if len(sk.Parents) != n || len(sk.BindWorld) != n {
		return nil, nil, fmt.Errorf("tokenizer: encode skeleton: %d names, %d parents, %d bind matrices", n, len(sk.Parents), len(sk.BindWorld))
	}
	keys := make([]jointKey, n)
	for j := range keys {
		p := norm.Point(sk.Position(j))
		if !p.IsFinite() {
			return nil, nil, fmt.Errorf("tokenizer: encode skeleton: joint %d (%q) position is not finite", j, sk.Names[j])
		}
		keys[j] = jointKey{Bin(p[0]), Bin(p[1]), Bin(p[2])}
	}
	children := make([][]int, n+1) // children[n] holds the roots
	for j, p := range sk.Parents {
		if p < -1 || p >= n || p == j {
			return nil, nil, fmt.Errorf("tokenizer: encode skeleton: joint %d has parent %d", j, p)
		}
		if p < 0 {
			p = n
		}
		children[p] = append(children[p], j)
	}
	for _, ch := range children {
		sort.SliceStable(ch, func(a, b int) bool { return keys[ch[a]].less(keys[ch[b]]) })
	}

	tokens := make([]int, 0, 2+4*n)
	tokens = append(tokens, BOS)
	order := make(Order, 0, n)
	depth := make([]int, n) // roots have depth 1
	prevDepth := 0
	type item struct{ joint, depth int }
	stack := make([]item, 0, n)
	for i := len(children[n]) - 1; i >= 0; i-- {
		stack = append(stack, item{children[n][i], 1})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := prevDepth - it.depth + 1; k > 0; k-- {
			tokens = append(tokens, POP)
		}
		k := keys[it.joint]
		tokens = append(tokens, CoordToken(k[0]), CoordToken(k[1]), CoordToken(k[2]))
		order = append(order, it.joint)
		depth[it.joint] = it.depth
		prevDepth = it.depth
		ch := children[it.joint]
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, item{ch[i], it.depth + 1})
		}
	}
	if len(order) != n {
		return nil, nil, fmt.Errorf("tokenizer: encode skeleton: only %d of %d joints reachable from a root (cycle in parents)", len(order), n)
	}
	return append(tokens, SEP), order, nil
}

// DecodeSkeleton reads the skeleton part of a stream (tokens from BOS through SEP;
// anything after SEP is ignored) and returns the skeleton in the normalized cube: joints
// in token order at their bin centers, parents from the POP structure, identity
// orientations and generated names (joint_000, joint_001, ...). The tokens must follow the grammar.
func DecodeSkeleton(tokens []int) (*character.Skeleton, error) {
	g := NewGrammar(MaxJoints, 0) // K does not matter: reading stops at SEP
	s := g.Start()
	sk := &character.Skeleton{}
	var stack []int
	var cur [3]int
	coord := 0
	for i, t := range tokens {
		if err := s.Next(t); err != nil {
			return nil, fmt.Errorf("tokenizer: decode skeleton: token %d: %w", i, err)
		}
		switch {
		case t == SEP:
			return sk, nil
		case t == POP:
			stack = stack[:len(stack)-1]
		case IsCoord(t):
			cur[coord] = t - CoordBase
			coord++
			if coord < 3 {
				continue
			}
			coord = 0
			parent := -1
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			j := len(sk.Names)
			sk.Names = append(sk.Names, jointName(j))
			sk.Parents = append(sk.Parents, parent)
			sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{BinCenter(cur[0]), BinCenter(cur[1]), BinCenter(cur[2])}))
			stack = append(stack, j)
		}
	}
	return nil, errors.New("tokenizer: decode skeleton: no SEP")
}

// SkeletonToWorld returns a copy of a cube-space skeleton (from DecodeSkeleton) with
// joint positions mapped back to world space by norm; orientations are kept.
func SkeletonToWorld(sk *character.Skeleton, norm character.Normalization) *character.Skeleton {
	out := sk.Clone()
	for j, m := range out.BindWorld {
		p := norm.InversePoint(m.Translation())
		m[12], m[13], m[14] = p[0], p[1], p[2]
		out.BindWorld[j] = m
	}
	return out
}

// SkeletonToCube returns a copy of a world-space skeleton with joint positions mapped
// into the cube by norm; orientations are kept.
func SkeletonToCube(sk *character.Skeleton, norm character.Normalization) *character.Skeleton {
	out := sk.Clone()
	for j, m := range out.BindWorld {
		p := norm.Point(m.Translation())
		m[12], m[13], m[14] = p[0], p[1], p[2]
		out.BindWorld[j] = m
	}
	return out
}
