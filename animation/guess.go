package animation

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// GuessHumanoidNames names the joints of a two-legged skeleton whose names follow
// no scheme (rigkit's classical skeletons are called joint_00 …) from its shape:
// the feet are the lowest leaves on either side, the hands the leaves farthest out,
// the head the highest; Hips is where the legs meet, the chest where the arms meet,
// and each chain is named from the top (thigh, knee nearest mid-leg height, foot,
// toe; clavicle when the arm has four joints, upper arm, forearm, hand). The left
// side is +X of a character facing where its toes point. names[j] is "" for a joint
// it leaves unnamed. It fails when the shape is not a biped's.
func GuessHumanoidNames(sk *character.Skeleton) ([]string, error) {
	g, err := newGuesser(sk)
	if err != nil {
		return nil, fmt.Errorf("guess humanoid joint names: %w", err)
	}
	if err := g.name(); err != nil {
		return nil, fmt.Errorf("guess humanoid joint names: %w", err)
	}
	return g.names, nil
}

// guesser names the joints of one skeleton: its frame (height range, left,
// centre), the landmarks found so far and the names given.
type guesser struct {
	sk       *character.Skeleton
	pos      []vecmath.Vec3
	children [][]int
	lo, span float64
	left     vecmath.Vec3 // the character's left, horizontal
	centre   vecmath.Vec3
	names    []string
	landmarks
	sideNames [2]string
}

// landmarks are the joints the other names hang from: the feet, hands, head and
// hips.
type landmarks struct {
	feet  [2]int // left, right
	hands [2]int
	head  int
	hips  int
}

func newGuesser(sk *character.Skeleton) (*guesser, error) {
	if sk.NumJoints() < 8 {
		return nil, fmt.Errorf("%d joints are too few for a biped", sk.NumJoints())
	}
	g := &guesser{sk: sk, pos: sk.Positions(), children: sk.Children(), names: make([]string, sk.NumJoints()),
		sideNames: [2]string{"Left", "Right"}}
	hi := math.Inf(-1)
	g.lo = math.Inf(1)
	for _, p := range g.pos {
		g.lo, hi = math.Min(g.lo, p[1]), math.Max(hi, p[1])
	}
	g.span = hi - g.lo
	if !(g.span > 0) {
		return nil, errors.New("the skeleton is flat")
	}
	for j, p := range sk.Parents {
		if p < 0 {
			g.centre = g.pos[j]
			break
		}
	}
	fwd := g.toesForward()
	if fwd.Len() < 0.02*g.span {
		fwd = vecmath.Vec3{0, 0, 1}
	}
	g.left = vecmath.Vec3{0, 1, 0}.Cross(fwd.Normalize())
	return g, nil
}

// toesForward is where the toes point: the sum over the lowest leaves of their
// horizontal offsets from the highest ancestor that is still as low (the ankle
// under a toe), below 15% of the height, where that offset is more horizontal
// than vertical (a foot lies flat). A leg that ends at its ankle (no toe joint:
// 0 A.D.'s humans, Quaternius' people, a chibi whose knees are that low) gives
// nothing: the shin above it slants back as often as forward, and read as a toe
// it turned the character around, names and all. Without toes forward is
// glTF's +Z.
func (g *guesser) toesForward() vecmath.Vec3 {
	var fwd vecmath.Vec3
	low := g.lo + 0.15*g.span
	for _, j := range g.leaves() {
		if g.pos[j][1] > low {
			continue
		}
		a := j
		for p := g.sk.Parents[a]; p >= 0 && g.pos[p][1] < low; p = g.sk.Parents[a] {
			a = p
		}
		if g.sk.Parents[a] < 0 {
			continue // an inverse-kinematics foot on a root at the floor: its offset is sideways
		}
		d := g.pos[j].Sub(g.pos[a])
		if h := (vecmath.Vec3{d[0], 0, d[2]}); h.Len() > math.Abs(d[1]) { // a foot lies flat; a shin stands
			fwd = fwd.Add(h)
		}
	}
	return fwd
}

func (g *guesser) leaves() []int {
	var out []int
	for j, ch := range g.children {
		if len(ch) == 0 {
			out = append(out, j)
		}
	}
	return out
}

// lateral is how far joint j is to the character's left of the root.
func (g *guesser) lateral(j int) float64 { return g.pos[j].Sub(g.centre).Dot(g.left) }

func (g *guesser) name() error {
	if err := g.findEnds(); err != nil {
		return err
	}
	legEnds := g.feet
	ends, ikFeet, ik := g.shinEnds()
	if ik {
		legEnds = ends
	}
	g.hips = g.centred(g.lca(legEnds[0], legEnds[1]))
	legs := g.chains(g.hips, legEnds)
	if ik && (len(legs[0]) < 2 || len(legs[1]) < 2) { // no legs above those leaves: the feet's own chains
		ik, legEnds = false, g.feet
		g.hips = g.centred(g.lca(legEnds[0], legEnds[1]))
		legs = g.chains(g.hips, legEnds)
	}
	chest := g.centred(g.lca(g.hands[0], g.hands[1]))
	g.names[g.hips] = "Hips"
	for s := range legs {
		if len(legs[s]) < 2 {
			return fmt.Errorf("the %s leg has %d joints below the hips", g.sideNames[s], len(legs[s]))
		}
		g.nameLeg(g.sideNames[s], "ToeBase", legs[s], false)
		for i, part := range []string{"Foot", "ToeBase"} {
			if ik && i < len(ikFeet[s]) && g.names[ikFeet[s][i]] == "" {
				g.names[ikFeet[s][i]] = g.sideNames[s] + part
			}
		}
	}
	arms := g.chains(chest, g.hands)
	for s := range arms {
		g.nameArm(g.sideNames[s], arms[s])
	}
	g.nameSpine(chest)
	return nil
}

// shinEnds finds the legs of a rig whose feet are inverse-kinematics targets
// (Quaternius' and many Blender rigs: the feet hang from the root, the shins end
// in a leaf). When a foot does not hang from its leg (the chain down to it does
// not rise), each side's leg ends at the lowest other leaf above its foot,
// within 15% of the height of it across and below 60% of the height; feet are
// the chains down to the feet (the foot, then its toes). ok is false when the
// feet hang from their legs or no such leaf is found on both sides.
func (g *guesser) shinEnds() (ends [2]int, feet [2][]int, ok bool) {
	feet = g.chains(g.centred(g.lca(g.feet[0], g.feet[1])), g.feet)
	if g.rises(feet[0]) && g.rises(feet[1]) {
		return ends, feet, false
	}
	for s := range g.feet {
		if len(feet[s]) == 0 {
			return ends, feet, false
		}
		if ends[s] = g.shinAbove(feet[s][0], s == 1, append(g.hands[:], g.feet[:]...)); ends[s] < 0 {
			return ends, feet, false
		}
	}
	return ends, feet, true
}

// shinAbove is the lowest leaf above f, the top joint of a foot's chain (its
// ankle), on its side (right: lateral < 0), other than the skip leaves, within
// 15% of the height of it across and below 60% of the height: where a leg whose
// foot is an inverse-kinematics target ends. -1 when there is none.
func (g *guesser) shinAbove(f int, right bool, skip []int) int {
	end := -1
	for _, j := range g.leaves() {
		d := g.pos[j].Sub(g.pos[f])
		if slices.Contains(skip, j) || d[1] <= 0 || math.Hypot(d[0], d[2]) > 0.15*g.span ||
			g.pos[j][1] > g.lo+0.6*g.span || (g.lateral(j) < 0) != right {
			continue
		}
		if end < 0 || g.pos[j][1] < g.pos[end][1] {
			end = j
		}
	}
	return end
}

// rises says whether a chain from where the feet meet down to a foot is a leg:
// at least two joints, one of them above the lowest 15% of the height (a knee;
// an inverse-kinematics foot and its toes stay at the floor).
func (g *guesser) rises(chain []int) bool {
	if len(chain) < 2 {
		return false
	}
	for _, j := range chain {
		if g.pos[j][1] > g.lo+0.15*g.span {
			return true
		}
	}
	return false
}

// findEnds picks the feet, hands and head among the leaves.
func (g *guesser) findEnds() error {
	g.feet, g.hands, g.head = [2]int{-1, -1}, [2]int{-1, -1}, -1
	for _, j := range g.leaves() {
		s := 0
		if g.lateral(j) < 0 {
			s = 1
		}
		if g.pos[j][1] < g.lo+0.25*g.span && (g.feet[s] < 0 || g.pos[j][1] < g.pos[g.feet[s]][1]) {
			g.feet[s] = j
		}
	}
	if g.feet[0] < 0 || g.feet[1] < 0 {
		return errors.New("no low leaf (foot) on both sides")
	}
	for _, j := range g.leaves() {
		if j == g.feet[0] || j == g.feet[1] || g.pos[j][1] < g.lo+0.35*g.span {
			continue
		}
		s, d := 0, g.lateral(j)
		if d < 0 {
			s, d = 1, -d
		}
		if d > 0.12*g.span && (g.hands[s] < 0 || d > math.Abs(g.lateral(g.hands[s]))) {
			g.hands[s] = j
		}
	}
	if g.hands[0] < 0 || g.hands[1] < 0 {
		return errors.New("no leaf reaching out (hand) on both sides")
	}
	for _, j := range g.leaves() {
		if j != g.hands[0] && j != g.hands[1] && (g.head < 0 || g.pos[j][1] > g.pos[g.head][1]) {
			g.head = j
		}
	}
	return nil
}

// path returns the joints from the root down to j.
func (g *guesser) path(j int) []int {
	var p []int
	for ; j >= 0; j = g.sk.Parents[j] {
		p = append([]int{j}, p...)
	}
	return p
}

// lca is the lowest common ancestor of a and b (-1 when they share no root).
func (g *guesser) lca(a, b int) int { return lowestCommon(g.sk, a, b) }

// centred walks up from j to the first joint near the midline (a limb can hang off
// the other limb's first joint).
func (g *guesser) centred(j int) int {
	for j >= 0 && math.Abs(g.lateral(j)) > 0.05*g.span && g.sk.Parents[j] >= 0 {
		j = g.sk.Parents[j]
	}
	return max(j, 0)
}

// chains returns, per side, the joints below top on the way to that side's end; a
// joint both chains pass through goes to the side it lies on.
func (g *guesser) chains(top int, ends [2]int) [2][]int {
	var raw [2][]int
	count := map[int]int{}
	for s, e := range ends {
		p := g.path(e)
		for i, j := range p {
			if j == top {
				raw[s] = p[i+1:]
				break
			}
		}
		if raw[s] == nil {
			raw[s] = p // top is not above e: the whole path
		}
		for _, j := range raw[s] {
			count[j]++
		}
	}
	var out [2][]int
	for s := range raw {
		for _, j := range raw[s] {
			if count[j] > 1 && (g.lateral(j) < 0) != (s == 1) {
				continue
			}
			out[s] = append(out[s], j)
		}
	}
	return out
}

// nameLeg names a leg chain from the top: the knee is the joint nearest
// mid-leg height, then foot and toe below it; the upper leg is the chain's first
// joint, or with blade the joint just above the knee (a quadruped's leg may
// start at a shoulder blade or hip bone above its upper leg).
func (g *guesser) nameLeg(side, toe string, c []int, blade bool) {
	knee := g.lo + 0.5*(g.pos[g.hips][1]-g.lo)
	k := 1
	for i := 2; i < len(c); i++ {
		if math.Abs(g.pos[c[i]][1]-knee) < math.Abs(g.pos[c[k]][1]-knee) {
			k = i
		}
	}
	top := 0
	if blade {
		top = k - 1
	}
	g.names[c[top]] = side + "UpLeg"
	g.names[c[k]] = side + "Leg"
	if k+1 < len(c) {
		g.names[c[k+1]] = side + "Foot"
	}
	if k+2 < len(c) {
		g.names[c[k+2]] = side + toe
	}
}

// nameArm names an arm chain from the chest out: the hand is where three or more
// fingers branch when the chain reaches one (its leaf is then a fingertip), or
// the joint after it when the fingers all start at one point away from it (they
// hang from the forearm and start at the wrist), with the forearm, the upper arm and a
// clavicle above it; else the chain's joints are upper arm, forearm and hand,
// after a clavicle when it has four.
// nameShin names a leg chain that ends at its shin (its foot an
// inverse-kinematics target) from the bottom: the last joint the lower leg, the
// one above it the upper leg; joints above those (a hip or shoulder blade) keep
// no name.
func (g *guesser) nameShin(side string, c []int) {
	g.names[c[len(c)-1]] = side + "Leg"
	g.names[c[len(c)-2]] = side + "UpLeg"
}

func (g *guesser) nameArm(side string, c []int) {
	parts := []string{"Arm", "ForeArm", "Hand"}
	if len(c) >= 4 {
		parts = []string{"Shoulder", "Arm", "ForeArm", "Hand"}
	}
	for i := 1; i < len(c)-1; i++ {
		if len(g.children[c[i]]) < 3 {
			continue
		}
		h := i
		if !g.fingersOnHand(c[i]) {
			h++ // fingers hung from the forearm start at the wrist: the chain's next joint is the hand
		}
		if h >= 2 {
			c, parts = c[max(0, h-3):h+1], []string{"Shoulder", "Arm", "ForeArm", "Hand"}[max(0, 3-h):]
			break
		}
	}
	for i, p := range parts {
		if i < len(c) {
			g.names[c[i]] = side + p
		}
	}
}

// fingersOnHand says whether the children of j spread out from it, as fingers
// from a palm's knuckles, rather than all starting at one point away from it
// (fingers hung from the forearm start together at the wrist).
func (g *guesser) fingersOnHand(j int) bool {
	ch := g.children[j]
	mean, spread := 0.0, 0.0
	for a, x := range ch {
		mean += g.pos[x].Dist(g.pos[j])
		for _, y := range ch[a+1:] {
			spread = math.Max(spread, g.pos[x].Dist(g.pos[y]))
		}
	}
	return spread >= 0.25*mean/float64(len(ch))
}

// nameSpine names the joints between the hips and the head: Spine, Spine1 below the
// chest, Spine2 at the chest, then Neck and Head.
func (g *guesser) nameSpine(chest int) {
	a := g.lca(g.hips, g.head)
	var s []int // from just above the hips to the head leaf
	for j := g.sk.Parents[g.hips]; j >= 0 && g.hips != a; j = g.sk.Parents[j] {
		s = append(s, j)
		if j == a {
			break
		}
	}
	p := g.path(g.head)
	for i, j := range p {
		if j == a {
			s = append(s, p[i+1:]...)
			break
		}
	}
	ci := -1
	for i, j := range s {
		if j == chest {
			ci = i
		}
	}
	if ci < 0 {
		return
	}
	below := []string{"Spine", "Spine1"}
	for i := 0; i < ci && i < len(below); i++ {
		g.names[s[i]] = below[i]
	}
	if g.names[chest] == "" {
		g.names[chest] = "Spine2"
	}
	above := s[ci+1:]
	switch {
	case len(above) >= 2:
		g.names[above[0]], g.names[above[1]] = "Neck", "Head"
	case len(above) == 1:
		g.names[above[0]] = "Head"
	}
}
