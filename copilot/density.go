package copilot

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// Detail is how finely a completion subdivides the body. The model was not trained
// on a density bucket (that needs training this repository cannot run on its
// shared CPUs), so density is controlled at sampling instead: each level stops the
// model's continuations after a number of joints (ModelJoints) and keeps or leaves
// out the template's small parts (fingers, toes, twist and end joints).
type Detail int

// The detail levels, coarsest first.
const (
	DetailLow Detail = iota
	DetailMedium
	DetailHigh
)

// Details lists the levels, coarsest first.
var Details = []Detail{DetailLow, DetailMedium, DetailHigh}

// ParseDetail parses "low", "medium" or "high".
func ParseDetail(s string) (Detail, error) {
	for _, d := range Details {
		if d.String() == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("detail %q: want low, medium or high", s)
}

func (d Detail) String() string {
	switch d {
	case DetailLow:
		return "low"
	case DetailMedium:
		return "medium"
	case DetailHigh:
		return "high"
	}
	return fmt.Sprintf("Detail(%d)", int(d))
}

// ModelJoints is how many joints the model may add at one continuation point (a
// given joint's new children and their subtrees): none at low, so that the
// template's body parts alone fill; the first two at medium (a toe, a head end);
// the whole subtree it writes at high (fingers).
func (d Detail) ModelJoints() int {
	switch d {
	case DetailLow:
		return 0
	case DetailMedium:
		return 2
	}
	return maxPerPoint
}

// maxPerPoint bounds the joints one continuation adds, so that a model that never
// closes a subtree cannot fill the whole stream from one joint.
const maxPerPoint = 32

// Density is the size a completion is held to.
type Density struct {
	Detail Detail
	// MaxJoints bounds the completed skeleton (0: tokens.MaxJoints); the given
	// joints alone must fit.
	MaxJoints int
}

// limit is the joint bound of d.
func (d Density) limit() int {
	if d.MaxJoints <= 0 || d.MaxJoints > tokens.MaxJoints {
		return tokens.MaxJoints
	}
	return d.MaxJoints
}

// part is what a template joint is, for the detail levels.
type part int

const (
	partBody part = iota
	partFinger
	partToe
	partEnd
	partTwist
)

var fingerNames = []string{"Thumb", "Index", "Middle", "Ring", "Pinky"}

// partOf classifies a template joint by its name (anatomy's templates: Mixamo's
// names, HeadTop_End, LeftToe_End, limb_1_end).
func partOf(name string) part {
	switch {
	case strings.Contains(name, "Twist"):
		return partTwist
	case strings.HasSuffix(name, "_End"), strings.HasSuffix(name, "_end"):
		return partEnd
	case strings.Contains(name, "Toe"):
		return partToe
	}
	for _, f := range fingerNames {
		if strings.Contains(name, "Hand"+f) {
			return partFinger
		}
	}
	return partBody
}

// keeps reports whether detail d keeps a template part: low only the body,
// medium also toes and end joints, high everything.
func (d Detail) keeps(p part) bool {
	switch p {
	case partBody:
		return true
	case partToe, partEnd:
		return d >= DetailMedium
	}
	return d >= DetailHigh
}

// forDetail returns the template's joints that detail d keeps: a joint left out
// takes its subtree with it. At high, every limb bone (a joint named *Arm* or
// *Leg* with one child) also gets a twist joint at its middle.
func forDetail(t *character.Skeleton, d Detail) *character.Skeleton {
	if t == nil {
		return nil
	}
	keep := make([]int, 0, t.NumJoints())
	kept := make([]bool, t.NumJoints())
	for j, n := range t.Names {
		if (t.Parents[j] < 0 || kept[t.Parents[j]]) && d.keeps(partOf(n)) {
			kept[j] = true
			keep = append(keep, j)
		}
	}
	out := t.Select(keep)
	if d >= DetailHigh {
		out = withTwists(out)
	}
	return out
}

// withTwists adds a twist joint at the middle of each limb bone (from a joint
// named for a limb with one child), or, in a template without limbs (a blob, a
// worm), of each bone from a joint with one child, so that high detail always
// adds joints where the template has a bone to twist.
func withTwists(t *character.Skeleton) *character.Skeleton {
	children := t.Children()
	twists := func(limb bool) *character.Skeleton {
		out := t.Clone()
		for j, n := range t.Names {
			if len(children[j]) != 1 || partOf(n) != partBody || (limb && !isLimb(n)) {
				continue
			}
			mid := t.Position(j).Add(t.Position(children[j][0])).Scale(0.5)
			out.Names = append(out.Names, n+"Twist")
			out.Parents = append(out.Parents, j)
			out.BindWorld = append(out.BindWorld, vecmath.Translate4(mid))
		}
		return out
	}
	if out := twists(true); out.NumJoints() > t.NumJoints() {
		return out
	}
	return twists(false)
}

// limbWords mark the templates' limb joints: humanoid and quadruped arms and legs,
// wings, fins, the generic template's limbs.
var limbWords = []string{"Arm", "Leg", "Wing", "Fin", "limb_"}

func isLimb(name string) bool {
	for _, w := range limbWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// prune removes leaves that are not given (joints [0, given) are) until the
// skeleton has at most max joints, least important first: the shortest bone to
// its parent, then the latest joint. It returns the kept joints' old indices.
func prune(sk *character.Skeleton, given, max int) []int {
	n := sk.NumJoints()
	alive := make([]bool, n)
	kids := make([]int, n)
	for j := range alive {
		alive[j] = true
		if p := sk.Parents[j]; p >= 0 {
			kids[p]++
		}
	}
	length := func(j int) float64 {
		if p := sk.Parents[j]; p >= 0 {
			return sk.Position(j).Dist(sk.Position(p))
		}
		return 0
	}
	for count := n; count > max; count-- {
		var leaves []int
		for j := given; j < n; j++ {
			if alive[j] && kids[j] == 0 {
				leaves = append(leaves, j)
			}
		}
		if len(leaves) == 0 {
			break
		}
		sort.SliceStable(leaves, func(a, b int) bool {
			la, lb := length(leaves[a]), length(leaves[b])
			if la != lb {
				return la < lb
			}
			return leaves[a] > leaves[b]
		})
		j := leaves[0]
		alive[j] = false
		if p := sk.Parents[j]; p >= 0 {
			kids[p]--
		}
	}
	var keep []int
	for j, a := range alive {
		if a {
			keep = append(keep, j)
		}
	}
	return keep
}
