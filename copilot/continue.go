package copilot

import (
	"fmt"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
	"gorgonia.org/tensor"
)

// This file is the model's part of a completion. The given skeleton is encoded
// once (tokens.EncodeSkeleton, depth-first, canonical sibling order); for every
// given joint the prompt is that stream up to the end of the joint's subtree, plus
// the POPs that bring the joint back to the top of the stack. The model continues
// each prompt with the joint's new children (sorted after its given ones, as the
// grammar wants) and their subtrees, and the continuation stops at the POP that
// would close the joint, at SEP, or at the per-point cap. Every prompt is a piece
// of the one encoding of the partial: no prompt is re-encoded from decoded
// geometry.

// point is one continuation point: the given joint the model adds children to
// (anchor; -1 for an empty partial, whose continuation starts after BOS), the
// prompt, and the stack depth the anchor sits at.
type point struct {
	anchor int
	prompt []int
	depth  int
}

// addedJoint is a joint the model wrote at a point: its world position and its
// parent, an earlier joint of the same continuation or -1 for the anchor.
type addedJoint struct {
	pos    vecmath.Vec3
	parent int
}

// continuation is what the model wrote at one point, in stream order (parents
// before children, so every prefix of it is a subtree).
type continuation struct {
	anchor int
	joints []addedJoint
}

// continuationPoints encodes the given skeleton once and cuts one prompt per given
// joint out of the stream (one prompt, BOS, for an empty partial).
func continuationPoints(given *character.Skeleton, norm character.Normalization) ([]point, error) {
	if given == nil || given.NumJoints() == 0 {
		return []point{{anchor: -1, prompt: []int{tokens.BOS}}}, nil
	}
	stream, order, err := tokens.EncodeSkeleton(given, norm)
	if err != nil {
		return nil, fmt.Errorf("encode the given joints: %w", err)
	}
	stream = stream[:len(stream)-1] // the skeleton goes on: no SEP
	n := len(order)
	depth, last, lastDepth := make([]int, n), make([]int, n), make([]int, n)
	var stack []int
	coords, j := 0, 0
	for i, t := range stream {
		switch {
		case t == tokens.POP:
			stack = stack[:len(stack)-1]
		case tokens.IsCoord(t):
			if coords++; coords < 3 {
				continue
			}
			coords = 0
			stack = append(stack, j)
			depth[j] = len(stack)
			for _, a := range stack { // j ends the subtree of every joint above it, so far
				last[a], lastDepth[a] = i+1, len(stack)
			}
			j++
		}
	}
	pts := make([]point, n)
	for i := range pts {
		prompt := append([]int(nil), stream[:last[i]]...)
		for k := lastDepth[i]; k > depth[i]; k-- {
			prompt = append(prompt, tokens.POP)
		}
		pts[i] = point{anchor: order[i], prompt: prompt, depth: depth[i]}
	}
	return pts, nil
}

// continueAt samples the model's continuation at one point, at most maxPerPoint
// joints and no more than the model's context holds (4 tokens a joint, with room
// for SEP), on its own session over the shape latents lat.
func continueAt(gen *sampler.Generator, lat *tensor.Dense, pt point, opt sampler.SampleOptions, norm character.Normalization, rng *rand.Rand) (continuation, error) {
	room := min(maxPerPoint, (gen.Model.Cfg.MaxSeq-len(pt.prompt)-1)/4)
	if room <= 0 {
		return continuation{anchor: pt.anchor}, nil
	}
	sess, err := gen.Model.NewSession(lat)
	if err != nil {
		return continuation{}, err
	}
	w := &subtreeWalk{stack: pt.depth, floor: pt.depth, limit: room}
	smp, err := sampler.Continue(sess, pt.prompt, opt, w.stop, rng)
	if err != nil {
		return continuation{}, err
	}
	return continuation{anchor: pt.anchor, joints: jointsAfter(smp.Tokens[len(pt.prompt):], norm)}, nil
}

// subtreeWalk follows a continuation's stack so that it ends where the anchor's
// subtree ends, or after limit joints.
type subtreeWalk struct {
	stack, floor int
	coords       int
	added, limit int
}

// stop reports whether tok ends the continuation (it is then dropped).
func (w *subtreeWalk) stop(tok int) bool {
	switch {
	case tok == tokens.SEP || tok == tokens.EOS:
		return true
	case tok == tokens.POP:
		if w.stack-1 < w.floor || w.added >= w.limit {
			return true
		}
		w.stack--
	case tokens.IsCoord(tok):
		if w.coords == 0 && w.added >= w.limit {
			return true
		}
		if w.coords++; w.coords == 3 {
			w.coords = 0
			w.stack++
			w.added++
		}
	}
	return false
}

// jointsAfter reads the joints of a continuation (tokens after the prompt), in the
// world frame; parents are -1 for the anchor.
func jointsAfter(toks []int, norm character.Normalization) []addedJoint {
	var out []addedJoint
	stack := []int{-1}
	var bins [3]int
	coords := 0
	for _, t := range toks {
		switch {
		case t == tokens.POP:
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case tokens.IsCoord(t):
			bins[coords] = t - tokens.CoordBase
			if coords++; coords < 3 {
				continue
			}
			coords = 0
			cube := vecmath.Vec3{tokens.BinCenter(bins[0]), tokens.BinCenter(bins[1]), tokens.BinCenter(bins[2])}
			out = append(out, addedJoint{pos: norm.InversePoint(cube), parent: stack[len(stack)-1]})
			stack = append(stack, len(out)-1)
		}
	}
	return out
}
