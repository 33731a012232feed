package animation

import (
	"errors"
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// GuessQuadrupedNames names the joints of a four-legged skeleton whose names follow
// no scheme, from its shape: the body's long axis is the main horizontal direction
// of its joints, the head end the end of the highest leaf that is not a foot; the
// feet are the lowest leaves, front and hind at the two ends of each side; Hips is
// where the hind legs meet, Spine2 where the front legs meet, Spine and Spine1 lie
// between; the neck and head lead to the foremost leaf (Head at its last branching
// joint), the tail to the hindmost. Legs are named from the top as
// GuessHumanoidNames names them. It fails when the shape has no two feet on each
// side at the two ends of the body.
func GuessQuadrupedNames(sk *character.Skeleton) ([]string, error) {
	g, err := newGuesser(sk)
	if err != nil {
		return nil, fmt.Errorf("guess quadruped joint names: %w", err)
	}
	if err := g.nameQuadruped(); err != nil {
		return nil, fmt.Errorf("guess quadruped joint names: %w", err)
	}
	return g.names, nil
}

// bodyAxis returns the main horizontal direction of the joints (unit, sign arbitrary)
// and their mean.
func (g *guesser) bodyAxis() (vecmath.Vec3, vecmath.Vec3) {
	var mean vecmath.Vec3
	for _, p := range g.pos {
		mean = mean.Add(p)
	}
	mean = mean.Scale(1 / float64(len(g.pos)))
	var xx, xz, zz float64
	for _, p := range g.pos {
		dx, dz := p[0]-mean[0], p[2]-mean[2]
		xx, xz, zz = xx+dx*dx, xz+dx*dz, zz+dz*dz
	}
	ang := 0.5 * math.Atan2(2*xz, xx-zz)
	return vecmath.Vec3{math.Cos(ang), 0, math.Sin(ang)}, mean
}

func (g *guesser) nameQuadruped() error {
	axis, mean := g.bodyAxis()
	g.centre = mean
	var low, high []int
	for _, j := range g.leaves() {
		if g.pos[j][1] < g.lo+0.2*g.span {
			low = append(low, j)
		} else {
			high = append(high, j)
		}
	}
	if len(low) < 4 || len(high) == 0 {
		return fmt.Errorf("%d low leaves (feet) and %d others, want 4 feet and a head", len(low), len(high))
	}
	u := func(j int) float64 { return g.pos[j].Sub(mean).Dot(axis) }
	top := high[0]
	for _, j := range high {
		if g.pos[j][1] > g.pos[top][1] {
			top = j
		}
	}
	if u(top) < 0 {
		axis = axis.Scale(-1)
	}
	g.left = vecmath.Vec3{0, 1, 0}.Cross(axis)
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range g.pos {
		lo, hi = math.Min(lo, u(j)), math.Max(hi, u(j))
	}
	// front[s], hind[s]: the foremost and hindmost low leaves of side s, away from
	// the midline (a tail tip can touch the ground too).
	wide := 0.0
	for _, j := range low {
		wide = math.Max(wide, math.Abs(g.lateral(j)))
	}
	front, hind := [2]int{-1, -1}, [2]int{-1, -1}
	for _, j := range low {
		if math.Abs(g.lateral(j)) < 0.3*wide {
			continue
		}
		s := 0
		if g.lateral(j) < 0 {
			s = 1
		}
		if front[s] < 0 || u(j) > u(front[s]) {
			front[s] = j
		}
		if hind[s] < 0 || u(j) < u(hind[s]) {
			hind[s] = j
		}
	}
	for s := range front {
		if front[s] < 0 || u(front[s])-u(hind[s]) < 0.25*(hi-lo) {
			return errors.New("no front and hind foot on both sides")
		}
	}
	ikFeet := map[int]int{} // shin end → its inverse-kinematics foot
	g.shinsOverIKFeet(&front, &hind, ikFeet)
	g.hips = g.centred(g.lca(hind[0], hind[1]))
	chest := g.centred(g.lca(front[0], front[1]))
	g.names[g.hips] = "Hips"
	for part, feet := range map[string][2]int{"Hind": hind, "Front": front} {
		top := g.hips
		if part == "Front" {
			top = chest
		}
		legs := g.chains(top, feet)
		for s := range legs {
			if len(legs[s]) < 2 {
				return fmt.Errorf("the %s %s leg has %d joints", g.sideNames[s], part, len(legs[s]))
			}
			ankle, ik := ikFeet[feet[s]]
			if !ik {
				g.nameLeg(g.sideNames[s]+part, "Toe", legs[s], true)
				continue
			}
			g.nameShin(g.sideNames[s]+part, legs[s])
			if g.names[ankle] == "" {
				g.names[ankle] = g.sideNames[s] + part + "Foot"
			}
			if ch := g.children[ankle]; len(ch) == 1 && g.names[ch[0]] == "" {
				g.names[ch[0]] = g.sideNames[s] + part + "Toe"
			}
		}
	}
	g.nameQuadSpine(chest, high, u)
	return nil
}

// shinsOverIKFeet replaces each foot that does not hang from its leg (the
// chain down to it from where all four feet meet does not rise: an
// inverse-kinematics target on the root, as in Quaternius' and fable-game's
// animals) by the shin leaf above it (shinAbove), recording the foot's top
// joint (its ankle) in ik.
// Nothing changes unless all four have such a shin.
func (g *guesser) shinsOverIKFeet(front, hind *[2]int, ik map[int]int) {
	all := []int{front[0], front[1], hind[0], hind[1]}
	meet := g.lca(g.lca(all[0], all[1]), g.lca(all[2], all[3]))
	var ends, ankles [4]int
	for i, f := range all {
		var chain []int
		for j := f; j >= 0 && j != meet; j = g.sk.Parents[j] {
			chain = append(chain, j)
		}
		if len(chain) == 0 || g.rises(chain) {
			return
		}
		ankles[i] = chain[len(chain)-1]
		if ends[i] = g.shinAbove(ankles[i], i%2 == 1, all); ends[i] < 0 {
			return
		}
	}
	for i := range all {
		ik[ends[i]] = ankles[i]
	}
	front[0], front[1], hind[0], hind[1] = ends[0], ends[1], ends[2], ends[3]
}

// nameQuadSpine names the joints from the hips to the chest, the neck and head up
// to the foremost high leaf, and the tail down to the hindmost.
func (g *guesser) nameQuadSpine(chest int, high []int, u func(int) float64) {
	between := g.between(g.hips, chest)
	for i, n := range []string{"Spine", "Spine1"} {
		if i < len(between) {
			g.names[between[i]] = n
		}
	}
	if chest != g.hips && g.names[chest] == "" {
		g.names[chest] = "Spine2"
	}
	head, tail := high[0], high[0]
	for _, j := range high {
		if u(j) > u(head) {
			head = j
		}
		if u(j) < u(tail) {
			tail = j
		}
	}
	neck := g.between(chest, head)
	h := g.sk.Parents[head]
	if len(neck) > 0 && g.names[neck[0]] == "" {
		g.names[neck[0]] = "Neck"
		for _, j := range neck[1:] {
			if len(g.children[j]) > 1 {
				h = j
				break
			}
		}
	}
	if h >= 0 && g.names[h] == "" {
		g.names[h] = "Head"
	}
	if u(tail) < u(g.hips) {
		for i, j := range append(g.between(g.hips, tail), tail) {
			if g.names[j] == "" {
				g.names[j] = fmt.Sprintf("Tail%d", i+1)
			}
		}
	}
}

// between returns the joints on the tree path from a to b, both excluded, in order
// from a.
func (g *guesser) between(a, b int) []int {
	if a == b {
		return nil
	}
	c := g.lca(a, b)
	var up []int
	for j := g.sk.Parents[a]; j >= 0 && a != c; j = g.sk.Parents[j] {
		up = append(up, j)
		if j == c {
			break
		}
	}
	if a != c && len(up) > 0 && up[len(up)-1] == c && c == b {
		up = up[:len(up)-1]
	}
	pb := g.path(b)
	for i, j := range pb {
		if j == c {
			for _, k := range pb[i+1:] {
				if k != b {
					up = append(up, k)
				}
			}
			break
		}
	}
	return up
}

// GuessNames names an unnamed skeleton by its shape as kind ("" tries a quadruped,
// then a humanoid) and says which kind it took.
func GuessNames(sk *character.Skeleton, kind string) ([]string, string, error) {
	var errs []error
	if kind == "" || kind == Quadruped {
		names, err := GuessQuadrupedNames(sk)
		if err == nil {
			return names, Quadruped, nil
		}
		errs = append(errs, err)
	}
	if kind == "" || kind == Humanoid {
		names, err := GuessHumanoidNames(sk)
		if err == nil {
			return names, Humanoid, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, "", fmt.Errorf("no shape guess for kind %q", kind)
	}
	return nil, "", errors.Join(errs...)
}
