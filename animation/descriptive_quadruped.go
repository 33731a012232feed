package animation

import (
	"math"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// The descriptive reading of a four-legged skeleton ("leg.front.left",
// "FrontUpLeg.R", "Fox_BackLeg1_L", "Front Right Leg", Minetest's "Arm.R" for a
// front leg): a side word, an end word (front, fore, arm; hind, back, rear) and
// a leg part word give LeftFrontUpLeg … RightHindFoot; the head and neck are
// read by their words, the trunk from where the legs meet. skeletonNames uses
// it when the humanoid reading does not apply, all four legs are read, they
// reach down alike and hang as the quadruped scheme says.

var (
	frontWords = wordSet("front", "fore", "frontal", "arm")
	hindWords  = wordSet("hind", "back", "rear")
)

// readQuadWords reads one name's words as a quadruped's; ok is false when they
// say nothing its walk moves.
func readQuadWords(words []string) (claim, bool) {
	has := wordSet(words...)
	for w := range has {
		if unreadWords[w] && !frontWords[w] && !hindWords[w] {
			return claim{}, false
		}
	}
	left, right := anyOf(has, leftWords), anyOf(has, rightWords)
	if left == right {
		if c, ok := trunkClaim(has); ok && (c.part == "Head" || c.part == "Neck") {
			return c, true
		}
		return claim{}, false // the trunk is read from where the legs meet (quadrupedTrunk)
	}
	part, rank, ok := quadLegPart(has)
	if !ok {
		return claim{}, false
	}
	c := claim{side: "Right", part: part, rank: rank}
	if left {
		c.side = "Left"
	}
	switch {
	case anyOf(has, frontWords) && !anyOf(has, hindWords):
		c.word = "Front"
	case anyOf(has, hindWords) && !anyOf(has, frontWords):
		c.word = "Hind"
	}
	return c, true
}

// quadLegPart reads a sided name's leg part: UpLeg, Leg, Foot or Toe (rank 1
// for a lone leg or arm word, which is the upper leg only when no word says so).
func quadLegPart(has map[string]bool) (string, int, bool) {
	switch {
	case has["toe"] || has["toes"]:
		return "Toe", 0, true
	case has["foot"] || has["feet"] || has["paw"] || has["hoof"] || has["ankle"]:
		return "Foot", 0, true
	case has["thigh"] || has["femur"] || has["humerus"] || has["upleg"] || has["upperleg"] || anyOf(has, upper):
		return "UpLeg", 0, true
	case has["shin"] || has["calf"] || has["lowleg"] || has["lowerleg"] || has["forearm"] || has["knee"] || anyOf(has, lower):
		return "Leg", 0, true
	case has["leg"] || has["arm"]:
		return "UpLeg", 1, true
	}
	return "", 0, false
}

// quadrupedNames reads every joint of sk as a quadruped's and returns rigkit's
// names ("" for a joint left unread). A leg claim without an end word is a hind
// leg when the same side has a front one and no other hind one (Minetest's
// "Arm.R" and "Leg.R").
func quadrupedNames(sk *character.Skeleton) []string {
	claims := make([]*claim, sk.NumJoints())
	ends := map[string]bool{}
	for j, name := range sk.Names {
		if c, ok := readQuadWords(wordsOf(name)); ok {
			claims[j] = &c
			ends[c.side+c.word] = true
		}
	}
	for j, c := range claims {
		if c == nil || c.side == "" {
			continue
		}
		if c.word == "" && ends[c.side+"Front"] && !ends[c.side+"Hind"] {
			c.word = "Hind"
		}
		if c.word == "" {
			claims[j] = nil
			continue
		}
		c.part = c.word + c.part
	}
	out := nameClaims(sk, claims, [2]string{"LeftHindUpLeg", "RightHindUpLeg"})
	quadrupedTrunk(sk, out)
	legChains(sk, out)
	sidesFacingFront(sk, out)
	return out
}

// legChains names the joints below each upper leg that no word named, down
// its chain of single children: the first Leg, the next Foot ("FrontLeg1_L",
// "FrontLeg2_L", "FrontLeg3_L" as numbered segments), up to a named joint (a
// toe); the clips bend a leg at its named joints.
func legChains(sk *character.Skeleton, out []string) {
	children := sk.Children()
	idx := indexOf(out)
	for _, leg := range quadLegs {
		j, ok := idx[leg]
		if !ok {
			continue
		}
		base := strings.TrimSuffix(leg, "UpLeg")
		for _, part := range []string{"Leg", "Foot"} {
			if len(children[j]) != 1 || out[children[j][0]] != "" {
				break
			}
			if _, named := idx[base+part]; named {
				break
			}
			j = children[j][0]
			out[j] = base + part
		}
	}
}

// sidesFacingFront swaps the reading's Left and Right when its sides, read as
// the character's, would face it away from its front legs (up from legsUp):
// some artists label an animal's sides as seen from the front (0 A.D.'s cattle
// carry their "_L" legs at −X while facing +Z), and the walk would then go
// tail first.
func sidesFacingFront(sk *character.Skeleton, out []string) {
	idx := indexOf(out)
	var top [4]int
	for i, leg := range quadLegs {
		j, ok := idx[leg]
		if !ok {
			return
		}
		top[i] = j
	}
	up := tipsUp(sk, top[:])
	p := func(i int) vecmath.Vec3 { return sk.Position(top[i]) }
	left := p(0).Sub(p(1)).Add(p(2).Sub(p(3)))
	fwd := left.Sub(up.Scale(left.Dot(up))).Cross(up)
	if p(0).Add(p(1)).Sub(p(2)).Sub(p(3)).Dot(fwd) >= 0 {
		return
	}
	for j, n := range out {
		if l, ok := strings.CutPrefix(n, "Left"); ok {
			out[j] = "Right" + l
		} else if r, ok := strings.CutPrefix(n, "Right"); ok {
			out[j] = "Left" + r
		}
	}
}

// quadLegs are a quadruped's upper legs: left and right front, left and right
// hind.
var quadLegs = [4]string{"LeftFrontUpLeg", "RightFrontUpLeg", "LeftHindUpLeg", "RightHindUpLeg"}

// tipsUp is the mean direction from each leg's farthest descendant up to its
// top (unit; the nearest axis when within 30° of one), or +Y when the legs have
// no joints below their tops (one-bone legs).
func tipsUp(sk *character.Skeleton, tops []int) vecmath.Vec3 {
	var sum vecmath.Vec3
	children := sk.Children()
	for _, t := range tops {
		far, d := -1, 0.0
		for _, j := range below(children, t) {
			if e := sk.Position(j).Dist(sk.Position(t)); e > d {
				far, d = j, e
			}
		}
		if far >= 0 {
			sum = sum.Add(sk.Position(t).Sub(sk.Position(far)).Scale(1 / d))
		}
	}
	if sum.Len() < 1e-9 {
		return vecmath.Vec3{0, 1, 0}
	}
	sum = sum.Normalize()
	for a := 0; a < 3; a++ {
		if math.Abs(sum[a]) > math.Cos(math.Pi/6) { // toes tilt a leg's tip forward: the nearest axis
			var axis vecmath.Vec3
			axis[a] = math.Copysign(1, sum[a])
			return axis
		}
	}
	return sum
}

// quadrupedTrunk names the trunk from where the legs meet: Hips where the hind
// legs do, Spine2 where the front legs do, Spine and Spine1 the joints between
// (the first two on the way from Hips). Trunk words are not read: a
// quadruped's spine runs both ways from a middle root as often as not.
func quadrupedTrunk(sk *character.Skeleton, out []string) {
	idx := indexOf(out)
	meet := func(a, b string) int {
		l, okL := idx["Left"+a]
		r, okR := idx["Right"+b]
		if !okL || !okR {
			return -1
		}
		return lowestCommon(sk, l, r)
	}
	hips, chest := meet("HindUpLeg", "HindUpLeg"), meet("FrontUpLeg", "FrontUpLeg")
	if hips < 0 || chest < 0 || hips == chest || out[hips] != "" || out[chest] != "" {
		return
	}
	out[hips], out[chest] = "Hips", "Spine2"
	between := trunkPath(sk, hips, chest)
	for i, name := range []string{"Spine", "Spine1"} {
		if i < len(between) && out[between[i]] == "" {
			out[between[i]] = name
		}
	}
}

// lowestCommon is the deepest joint both a and b hang below (or are), -1 when
// they share no root.
func lowestCommon(sk *character.Skeleton, a, b int) int {
	on := map[int]bool{}
	for j := a; j >= 0; j = sk.Parents[j] {
		on[j] = true
	}
	for j := b; j >= 0; j = sk.Parents[j] {
		if on[j] {
			return j
		}
	}
	return -1
}

// trunkPath lists the joints strictly between a and b along the hierarchy,
// from a's side.
func trunkPath(sk *character.Skeleton, a, b int) []int {
	top := lowestCommon(sk, a, b)
	var up, down []int
	for j := sk.Parents[a]; j >= 0 && j != top && a != top; j = sk.Parents[j] {
		up = append(up, j)
	}
	if top != a && top != b && top >= 0 {
		up = append(up, top)
	}
	for j := sk.Parents[b]; j >= 0 && j != top && b != top; j = sk.Parents[j] {
		down = append([]int{j}, down...)
	}
	return append(up, down...)
}

// legsLevel says whether the four legs of canon reach down alike along the
// legs' own up (tipsUp): the lowest joint of the front legs (a leg's own joint
// when it has no other) within a fifth of the skeleton's height of the hind
// legs' (a dinosaur's front legs, named as such, are arms that end halfway up).
func legsLevel(sk *character.Skeleton, canon []string) bool {
	idx := indexOf(canon)
	var tops []int
	for _, leg := range quadLegs {
		j, ok := idx[leg]
		if !ok {
			return false
		}
		tops = append(tops, j)
	}
	dir := tipsUp(sk, tops)
	up := func(j int) float64 { return sk.Position(j).Dot(dir) }
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range sk.Names {
		lo, hi = math.Min(lo, up(j)), math.Max(hi, up(j))
	}
	var low [4]float64
	children := sk.Children()
	for i, t := range tops {
		low[i] = up(t)
		for _, j := range below(children, t) {
			low[i] = math.Min(low[i], up(j))
		}
	}
	front, hind := math.Max(low[0], low[1]), math.Max(low[2], low[3])
	return math.Abs(front-hind) <= 0.2*(hi-lo)
}
