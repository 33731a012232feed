package sampler

import (
	"fmt"
	"math/rand"
	"runtime"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/tokens"
	"gorgonia.org/tensor"
)

// This file writes skin tokens for skeletons longer than one stream holds. The
// model's streams have learned absolute positions up to MaxSeq, so a skeleton of J
// joints fits one stream only while 3 + J·(4+K) ≤ MaxSeq (Config.MaxJoint joints;
// 78 for the shipped model). A longer skeleton is cut into windows: each window is
// a sub-skeleton of at most that many joints, made of a run of joints it owns
// (consecutive in depth-first order, so a run is a few whole limbs) and, around
// them, the joints nearest in the hierarchy (parents, children, siblings: what
// bounds an owned bone's weights), a third as many as it owns. Every window is
// one ordinary prompt (BOS · sub-skeleton · SEP) on the same shape latents; its
// stream stops after the codes of the last owned joint, and only the owned
// joints' codes are kept. Each
// joint is owned by exactly one window, so the decoder gets one code row per joint
// of the whole skeleton. A window costs at most one stream of MaxJoint joints and
// the windows number about J / (¾·MaxJoint), so time and memory grow linearly with
// the joint count.

// skinWindow is one sub-skeleton of a skeleton too long for one stream.
type skinWindow struct {
	joints []int  // joints of the whole skeleton, increasing, so parents come first
	owned  []bool // owned[i]: the window writes the codes kept for joints[i]
}

// windowOwnShare is the smallest share of a window's joints it owns; the rest,
// at most a third of the owned joints, is context.
const windowOwnShare = 0.75

// planSkinWindows cuts a skeleton (parents before children) into windows of at
// most capacity joints that own every joint exactly once. A skeleton that fits
// is one window owning all of it.
func planSkinWindows(parents []int, capacity int) []skinWindow {
	n := len(parents)
	if n <= capacity {
		w := skinWindow{joints: make([]int, n), owned: make([]bool, n)}
		for j := range w.joints {
			w.joints[j], w.owned[j] = j, true
		}
		return []skinWindow{w}
	}
	children := childLists(parents)
	pre := preOrder(parents, children)
	own := max(1, int(windowOwnShare*float64(capacity)))
	count := (n + own - 1) / own
	per := (n + count - 1) / count
	stamp := make([]int, n) // stamp[j] == w+1: joint j is in window w
	var windows []skinWindow
	for start := 0; start < n; start += per {
		run := pre[start:min(start+per, n)]
		size := min(capacity, len(run)+(len(run)+2)/3)
		windows = append(windows, growWindow(run, parents, children, size, stamp, len(windows)+1))
	}
	return windows
}

// growWindow is the window owning run (a run of the depth-first order), grown
// breadth-first over the hierarchy (parent and children of each joint reached)
// until it holds capacity joints (or the run's whole tree). stamp marks the
// joints taken with id.
func growWindow(run, parents []int, children [][]int, capacity int, stamp []int, id int) skinWindow {
	queue := make([]int, 0, capacity)
	for _, j := range run {
		stamp[j] = id
		queue = append(queue, j)
	}
	for head := 0; head < len(queue) && len(queue) < capacity; head++ {
		j := queue[head]
		next := children[j]
		if p := parents[j]; p >= 0 {
			next = append([]int{p}, next...)
		}
		for _, k := range next {
			if len(queue) == capacity {
				break
			}
			if stamp[k] != id {
				stamp[k] = id
				queue = append(queue, k)
			}
		}
	}
	slices.Sort(queue)
	owns := make(map[int]bool, len(run))
	for _, j := range run {
		owns[j] = true
	}
	w := skinWindow{joints: queue, owned: make([]bool, len(queue))}
	for i, j := range queue {
		w.owned[i] = owns[j]
	}
	return w
}

// childLists returns each joint's children in index order.
func childLists(parents []int) [][]int {
	children := make([][]int, len(parents))
	for j, p := range parents {
		if p >= 0 {
			children[p] = append(children[p], j)
		}
	}
	return children
}

// preOrder is the depth-first pre-order of a forest, roots and children in index
// order: consecutive joints of it are whole limbs, or the ends of neighbouring ones.
func preOrder(parents []int, children [][]int) []int {
	order := make([]int, 0, len(parents))
	var stack []int
	for r := len(parents) - 1; r >= 0; r-- {
		if parents[r] < 0 {
			stack = append(stack, r)
		}
	}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, j)
		for i := len(children[j]) - 1; i >= 0; i-- {
			stack = append(stack, children[j][i])
		}
	}
	return order
}

// streamJoints is how many joints' skin codes one stream of the model holds: its
// Config.MaxJoint, within the grammar's bound.
func (r *Generator) streamJoints() int {
	return max(1, min(r.Model.Cfg.MaxJoint, tokens.MaxJoints))
}

// windowCodes writes n skin-token code sets for the whole skeleton sk (c's own,
// world frame, normalized by norm) window by window (planSkinWindows) on the shape
// latents lat, windows of at most capacity joints. sets[s][j] are joint j's codes
// in stream s, joints in sk's order.
func (r *Generator) windowCodes(sk *character.Skeleton, norm character.Normalization, lat *tensor.Dense, n, capacity int, rng *rand.Rand) ([][][]int, error) {
	windows := planSkinWindows(sk.Parents, capacity)
	got := make([]windowResult, len(windows))
	write := func(wi int) {
		got[wi].order, got[wi].last, got[wi].codes, got[wi].err = r.windowStreams(sk.Select(windows[wi].joints), windows[wi], norm, lat, n, rng)
	}
	if n == 1 && len(windows) > 1 {
		concurrently(len(windows), write)
	} else {
		for wi := range windows {
			write(wi)
		}
	}
	sets := make([][][]int, n)
	for s := range sets {
		sets[s] = make([][]int, sk.NumJoints())
	}
	for wi, w := range windows {
		res := got[wi]
		if res.err != nil {
			return nil, fmt.Errorf("skin window %d of %d (%d joints): %w", wi+1, len(windows), len(w.joints), res.err)
		}
		for s, codes := range res.codes {
			for t, i := range res.order[:res.last] {
				if w.owned[i] {
					sets[s][w.joints[i]] = codes[t]
				}
			}
		}
	}
	return sets, nil
}

// windowResult is what one window's streams wrote: the window's joints in token
// order, how many of them precede the end of the last owned one, and each
// stream's codes for those.
type windowResult struct {
	order []int
	last  int
	codes [][][]int
	err   error
}

// windowStreams samples n streams of skin codes for the window w (its
// sub-skeleton sub), up to the codes of its last owned joint.
func (r *Generator) windowStreams(sub *character.Skeleton, w skinWindow, norm character.Normalization, lat *tensor.Dense, n int, rng *rand.Rand) (order []int, last int, codes [][][]int, err error) {
	prompt, order, err := tokens.EncodeSkeleton(sub, norm)
	if err != nil {
		return nil, 0, nil, err
	}
	for t, i := range order {
		if w.owned[i] {
			last = t + 1 // the token-order index after the last owned joint
		}
	}
	codes, err = r.skinCodesUpTo(lat, prompt, n, last, rng)
	return order, last, codes, err
}

// concurrently runs fn(0), ..., fn(n-1) on up to GOMAXPROCS goroutines at once and
// returns when all have returned. Greedy windows are independent streams on the
// same latents, each a chain of products too small to split (one stream's step
// is memory-bound single-threaded work), so running whole windows side by side
// is how they use more than one core; a panic in fn reaches the caller.
func concurrently(n int, fn func(i int)) {
	var g workgroup.Group
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range min(n, runtime.GOMAXPROCS(0)) {
		g.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	g.Wait()
}
