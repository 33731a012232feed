package anatomy

import (
	"errors"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// fitQuadruped builds rigkit's quadruped hierarchy: Hips over the hind legs, the
// spine along the back to the shoulders over the front legs, neck and head along the
// route to the front-most end point, a tail along the route to the rear-most one,
// and four legs from the body's underside along their routes to the feet.
func fitQuadruped(s *shape, t *tree) (*build, error) {
	legs, isFoot, err := quadLegs(s, t)
	if err != nil {
		return nil, err
	}
	zf := (legs[0][0][0][2] + legs[0][1][0][2]) / 2
	zh := (legs[1][0][0][2] + legs[1][1][0][2]) / 2
	H, y0, c := s.height(), s.lo[1], s.mid
	hips, chest := s.back(zh), s.back(zf)
	b := newBuild()
	b.add(Hips, "", hips, true)
	b.add(Spine, Hips, s.back(zh+(zf-zh)/3), true)
	b.add(Spine1, Spine, s.back(zh+2*(zf-zh)/3), true)
	b.add(Spine2, Spine1, chest, true)
	headLeaf, tailLeaf := -1, -1
	for _, l := range t.leaves() {
		if isFoot[l] {
			continue
		}
		if z := t.pos[l][2]; z > zf && t.pos[l][1] > y0+0.25*H && (headLeaf < 0 || z > t.pos[headLeaf][2]) {
			headLeaf = l
		}
		if z := t.pos[l][2]; z < zh-0.05*H && (tailLeaf < 0 || z < t.pos[tailLeaf][2]) {
			tailLeaf = l
		}
	}
	if headLeaf >= 0 {
		route := extendToSurface(s, append([]vecmath.Vec3{chest}, t.points(t.path(t.nearest(chest), headLeaf))...))
		b.add(Neck, Spine2, atFraction(route, 0.4), true)
		b.add(Head, Neck, atFraction(route, 0.75), true)
	}
	if tailLeaf >= 0 {
		addChain(b, Hips, "Tail", tailRoute(s, t, hips, tailLeaf), 0.12*H, true)
	}
	for i := range legs {
		attach, top := Hips, hips
		names := [3]string{hindUpLeg, hindLeg, hindFoot}
		if i == 0 {
			attach, top, names = Spine2, chest, [3]string{frontUpLeg, frontLeg, frontFoot}
		}
		for k, sd := range sides {
			route := legs[i][k]
			if len(route) == 1 { // a foot from the slices: straight up to the body
				route = append(route, vecmath.Vec3{route[0][0], top[1], route[0][2]})
			}
			fitQuadLeg(s, b, sd, attach, names, route, top, c, y0)
		}
	}
	return b, nil
}

// quadLegs returns the four legs' routes from the foot up ([front, hind][left,
// right]) and the proposal's end points used as feet: the four end points nearest
// the ground when the proposal has them apart front and hind, else the feet the
// body's slices show (findQuadFeet), each route then the foot alone.
func quadLegs(s *shape, t *tree) ([2][2][]vecmath.Vec3, map[int]bool, error) {
	var legs [2][2][]vecmath.Vec3
	if feet, err := proposalFeet(s, t); err == nil {
		isFoot := map[int]bool{}
		for i, set := range feet {
			if t.pos[set[0]][0] < t.pos[set[1]][0] {
				set[0], set[1] = set[1], set[0]
			}
			top := t.nearest(s.back((t.pos[set[0]][2] + t.pos[set[1]][2]) / 2))
			for k := range sides {
				isFoot[set[k]] = true
				if legs[i][k] = t.points(t.path(set[k], top)); len(legs[i][k]) == 0 {
					return legs, nil, errors.New("no route from the body to a foot")
				}
			}
		}
		return legs, isFoot, nil
	}
	feet, err := s.profile().findQuadFeet(s)
	if err != nil {
		return legs, nil, err
	}
	for i := range feet {
		for k := range sides {
			legs[i][k] = []vecmath.Vec3{feet[i][k]}
		}
	}
	return legs, map[int]bool{}, nil
}

// proposalFeet returns the proposal's four end points nearest the ground, front
// pair and hind pair, or an error when it has no four apart front and hind.
func proposalFeet(s *shape, t *tree) ([2][2]int, error) {
	H, y0 := s.height(), s.lo[1]
	var out [2][2]int
	var feet []int
	for _, l := range t.leaves() {
		if t.pos[l][1] < y0+0.25*H {
			feet = append(feet, l)
		}
	}
	if len(feet) < 4 {
		return out, errors.New("fewer than four end points near the ground")
	}
	sort.Slice(feet, func(a, b int) bool { return t.pos[feet[a]][1] < t.pos[feet[b]][1] })
	feet = feet[:4]
	sort.Slice(feet, func(a, b int) bool { return t.pos[feet[a]][2] > t.pos[feet[b]][2] })
	zf := (t.pos[feet[0]][2] + t.pos[feet[1]][2]) / 2
	zh := (t.pos[feet[2]][2] + t.pos[feet[3]][2]) / 2
	if zf-zh < 0.1*H {
		return out, errors.New("front and hind feet are not apart along the body")
	}
	out[0], out[1] = [2]int{feet[0], feet[1]}, [2]int{feet[2], feet[3]}
	return out, nil
}

// back returns the spine point at z: the middle of the body's top-most vertical run
// on the plane.
func (s *shape) back(z float64) vecmath.Vec3 {
	q := vecmath.Vec3{s.mid, s.hi[1], z}
	step := s.height() / 96
	for q[1] > s.lo[1] && !s.inside(q) {
		q[1] -= step
	}
	return s.centre(q, 1)
}

// tailRoute returns the route from the pelvis to the tail's end point, behind it.
func tailRoute(s *shape, t *tree, hips vecmath.Vec3, leaf int) []vecmath.Vec3 {
	route := []vecmath.Vec3{hips}
	for _, p := range t.points(t.path(t.nearest(hips), leaf)) {
		if p[2] < hips[2] {
			route = append(route, p)
		}
	}
	return extendToSurface(s, route)
}

// addChain adds joints base1, base2, ... along a route (its first point is the
// parent's position), one every spacing or so, at least two.
func addChain(b *build, parent, base string, route []vecmath.Vec3, spacing float64, centre bool) {
	n := max(2, min(8, int(arcLength(route)/spacing+0.5)))
	for k := 1; k <= n; k++ {
		name := numberedName(base, k)
		b.add(name, parent, atFraction(route, float64(k)/float64(n)), centre)
		parent = name
	}
}

// fitQuadLeg places a leg's three joints: the top under the spine beside the plane,
// the knee halfway down its route, the foot near the ground.
func fitQuadLeg(s *shape, b *build, side int, attach string, names [3]string, route []vecmath.Vec3, top vecmath.Vec3, c, y0 float64) {
	foot := route[0]
	upY := y0 + 0.75*(top[1]-y0)
	up, _, ok := crossing(route, 1, upY)
	if !ok || float64(side)*(up[0]-c) <= 0 {
		up = vecmath.Vec3{foot[0], upY, foot[2]}
	}
	knee, _, ok := crossing(route, 1, y0+0.4*(upY-y0))
	if !ok || float64(side)*(knee[0]-c) <= 0 {
		knee = up.Lerp(foot, 0.5)
	}
	ankle, _, ok := crossing(route, 1, y0+0.08*(upY-y0))
	if !ok {
		ankle = foot
	}
	b.add(Side(side, names[0]), attach, s.centre(up, 0, 2), false)
	b.add(Side(side, names[1]), Side(side, names[0]), s.centre(knee, 0, 2), false)
	b.add(Side(side, names[2]), Side(side, names[1]), s.centre(ankle, 0, 2), false)
}
