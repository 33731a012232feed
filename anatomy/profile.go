package anatomy

import (
	"errors"
	"math"
	"runtime"
	"sort"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
)

// profile is the body cut into horizontal slices of a voxel grid in the canonical
// frame: per slice and column across (x), how many cells front to back (z) are
// solid, and where they lie. Legs and hanging arms are found in it from the shape
// alone, where the proposed skeleton's topology cannot tell them apart (legs
// pressed together, arms against the hips, one fused surface).
type profile struct {
	g      *geom.VoxelGrid
	w      [][]int     // [y][x]: solid cells across z
	zsum   [][]float64 // [y][x]: sum of their canonical z
	planeX [2]int      // the columns either side of the symmetry plane
	cell   float64
	legs   *legsFound // findLegs' answer, found on first use
}

// legsFound is findLegs' answer for the profile's shape.
type legsFound struct {
	ls  legShape
	err error
}

// profileCells is the grid's resolution along the height; flatRatio caps how
// many times longer than high a body is taken to be when that sets the grid.
const (
	profileCells = 96
	flatRatio    = 16
)

// newProfile voxelizes the shape (surface and interior cells are solid, so parts
// touching within a cell merge, as they do in a fused mesh).
func newProfile(s *shape) *profile {
	m := &character.Mesh{Positions: s.pts, Triangles: s.tris}
	ext := s.hi.Sub(s.lo)
	longest := math.Max(ext[0], math.Max(ext[1], ext[2]))
	// profileCells along the height, but no finer than profileCells·flatRatio along
	// the longest extent: a body flat along the height has no slices worth more.
	res := int(math.Ceil(profileCells * longest / math.Max(ext[1], longest/flatRatio)))
	wind := func(p vecmath.Vec3) float64 { return s.wn.At(s.f.from(p)) }
	g, _ := geom.VoxelizeBoxWith(m, s.lo, s.hi, res, 600_000, runtime.GOMAXPROCS(0), wind)
	p := &profile{g: g, cell: g.Size, w: make([][]int, g.N[1]), zsum: make([][]float64, g.N[1])}
	for y := range p.w {
		p.w[y] = make([]int, g.N[0])
		p.zsum[y] = make([]float64, g.N[0])
	}
	for z := 0; z < g.N[2]; z++ {
		for y := 0; y < g.N[1]; y++ {
			for x := 0; x < g.N[0]; x++ {
				if i := g.Cell(x, y, z); g.Occ[i] {
					p.w[y][x]++
					p.zsum[y][x] += g.Center(i)[2]
				}
			}
		}
	}
	x0 := g.AxisCell(s.mid, 0)
	if g.Center(g.Cell(x0, 0, 0))[0] > s.mid {
		x0--
	}
	p.planeX = [2]int{max(x0, 0), min(x0+1, g.N[0]-1)}
	return p
}

// levelY is the canonical height of slice y's centre.
func (p *profile) levelY(y int) float64 { return p.g.Center(p.g.Cell(0, y, 0))[1] }

// levelOf is the slice holding height h.
func (p *profile) levelOf(h float64) int { return p.g.AxisCell(h, 1) }

// columnX is the canonical x of column x's centre.
func (p *profile) columnX(x int) float64 { return p.g.Center(p.g.Cell(x, 0, 0))[0] }

// hump is a run of solid columns on one side of the plane: its columns [a, b]
// (a nearer the plane) and its centre.
type hump struct {
	a, b   int
	centre vecmath.Vec3
	width  int // solid cells summed over the columns
}

// humps returns the runs of columns on side sd (+1 left, -1 right) of slice y,
// from the plane outward. A run ends at an empty column or at a valley: a column
// at most 3/4 of the run's peak followed by one at least 4/3 of it and 0.4 of the
// peak (an arm pressed against the torso, a hand against a thigh).
func (p *profile) humps(y, sd int) []hump {
	row := p.w[y]
	x := p.planeX[0]
	if sd > 0 {
		x = p.planeX[1]
	}
	var out []hump
	var cur *hump
	peak, valley := 0, -1
	flush := func(end int) {
		if cur != nil {
			cur.b = end
			out = append(out, p.finish(y, *cur, sd))
			cur, peak, valley = nil, 0, -1
		}
	}
	for ; x >= 0 && x < len(row); x += sd {
		n := row[x]
		switch {
		case n == 0:
			flush(x - sd)
		case cur == nil:
			cur, peak = &hump{a: x}, n
		case valley >= 0 && 3*n >= 4*row[valley] && 5*n >= 2*peak:
			v := valley
			flush(v)
			cur, peak = &hump{a: v + sd}, n
		case n > peak:
			peak, valley = n, -1
		case 4*n <= 3*peak && (valley < 0 || n < row[valley]):
			valley = x
		}
	}
	flush(x - sd)
	return out
}

// finish computes a hump's centre: the columns' x weighted by their solid cells,
// and the mean z of those cells.
func (p *profile) finish(y int, h hump, sd int) hump {
	sx, sz, n := 0.0, 0.0, 0
	for x := h.a; ; x += sd {
		sx += float64(p.w[y][x]) * p.columnX(x)
		sz += p.zsum[y][x]
		n += p.w[y][x]
		if x == h.b {
			break
		}
	}
	h.width = n
	if n > 0 {
		h.centre = vecmath.Vec3{sx / float64(n), p.levelY(y), sz / float64(n)}
	}
	return h
}

// splitRatio is the solid depth at the plane over the smaller of the deepest
// columns within reach on either side: 0 where the legs stand apart, small where
// they touch, about 1 through the pelvis. ok is false when a side is empty.
func (p *profile) splitRatio(y, reach int) (float64, bool) {
	row := p.w[y]
	c := min(row[p.planeX[0]], row[p.planeX[1]])
	var side [2]int
	for k := 1; k <= reach; k++ {
		if x := p.planeX[1] + k; x < len(row) {
			side[0] = max(side[0], row[x])
		}
		if x := p.planeX[0] - k; x >= 0 {
			side[1] = max(side[1], row[x])
		}
	}
	if side[0] == 0 || side[1] == 0 {
		return 0, false
	}
	return float64(c) / float64(min(side[0], side[1])), true
}

// legShape is what the profile says of a pair of legs: the crotch height and each
// leg's axis, from the bottom up to the crotch ([0] left, [1] right).
type legShape struct {
	crotch float64
	routes [2][]vecmath.Vec3
	// covered: only the feet show, below a garment's hem (a robe, a long coat),
	// so the crotch is placed by proportion and each leg runs straight up to it.
	covered bool
	// walled: the legs are separate parts side by side, told apart by the inner
	// walls between them (walledCrotch), not by the voxels.
	walled bool
}

// findLegs finds the crotch, going up from the bottom: the first slice, after legs
// split at the plane for at least 8% of the height, where the depth at the plane
// is back to most of the legs' (the pelvis). Split means the plane's depth is under
// half the legs' (apart, or touching along a narrow line). Each leg's axis is the
// centre of the hump next to the plane on its side, slice by slice. Feet that
// show for less than that, apart, below a body that closes over them at once (a
// robe's hem) are legs under a garment (coveredLegs).
//
// The kind's detection, the fit and its checks all ask; the legs are found once
// and each caller gets its own copy of the routes.
func (p *profile) findLegs(s *shape) (legShape, error) {
	if p.legs == nil {
		ls, err := p.measureLegs(s)
		p.legs = &legsFound{ls, err}
	}
	ls := p.legs.ls
	for i, r := range ls.routes {
		ls.routes[i] = append([]vecmath.Vec3(nil), r...)
	}
	return ls, p.legs.err
}

// measureLegs is findLegs' search.
func (p *profile) measureLegs(s *shape) (legShape, error) {
	H := s.height()
	top, covered, walled := p.crotchSlice(s)
	if top < 0 {
		return legShape{}, errors.New("no two legs: the body does not split at the symmetry plane low down")
	}
	ls := legShape{crotch: p.levelY(top) - p.cell/2, walled: walled}
	var cut [2]int
	for i, sd := range sides {
		ls.routes[i], cut[i] = p.legRoute(top, sd, maxLegStep*H)
	}
	// A jump on one side only is a part hanging beside that foot; on both, the
	// feet themselves stand apart from the legs above (a mech's).
	if cut[0] == 0 || cut[1] == 0 {
		for i := range ls.routes {
			ls.routes[i] = ls.routes[i][cut[i]:]
		}
	}
	for i := range ls.routes {
		if len(ls.routes[i]) < 2 {
			return legShape{}, errors.New("no two legs: a side has no leg below the crotch")
		}
	}
	// Legs modelled on inside a garment (a skirt, a robe) show where they join;
	// legs hidden altogether get the crotch by proportion.
	z := (ls.routes[0][len(ls.routes[0])-1][2] + ls.routes[1][len(ls.routes[1])-1][2]) / 2
	if inner := s.innerCrotch(ls.crotch, z); inner > ls.crotch {
		ls.crotch = inner
	} else if covered {
		ls.crotch, ls.covered = math.Max(s.lo[1]+coveredCrotch*H, ls.crotch+0.1*H), true
	}
	for i := range ls.routes {
		ls.routes[i] = p.upTo(ls.routes[i], ls.crotch)
	}
	return ls, nil
}

// innerCrotch follows legs that go on inside a garment above the slices' crotch
// (a skirt's hem, which the voxels cannot tell from a crotch, the garment being
// solid to them): going up from the crotch, a ray from the symmetry plane (at
// depth z) across each side meets a surface within 5% of the height, a leg's
// inner side, with more surface beyond it; the legs join where that stops on
// either side for two slices of 1% of the height. A pelvis puts its sides
// farther out, so a crotch that is one stays where it is; the crotch moves only
// when the legs go on for at least 8% of the height (a mech's thighs run a little
// way up inside its hip armour: mech George, 6%).
func (s *shape) innerCrotch(crotch, z float64) float64 {
	H := s.height()
	top, misses := crotch, 0
	for y := crotch + 0.01*H; y < s.lo[1]+maxHips*H && misses < 2; y += 0.01 * H {
		if s.legsInside(y, z) {
			top, misses = y, 0
		} else {
			misses++
		}
	}
	if top-crotch < 0.08*H {
		return crotch
	}
	return top
}

// legsInside reports whether rays from the plane at height y and depth z meet a
// leg's inner side on both sides (innerCrotch).
func (s *shape) legsInside(y, z float64) bool {
	H, bvh := s.height(), s.wn.BVH()
	o := s.f.from(vecmath.Vec3{s.mid, y, z})
	for _, sd := range sides {
		d := s.f.from(vecmath.Vec3{s.mid + float64(sd), y, z}).Sub(o)
		near, ok := bvh.Ray(o, d, 0, 0.05*H)
		if !ok {
			return false
		}
		if _, ok := bvh.Ray(o, d, near.T+1e-4*H, 0.5*H); !ok {
			return false
		}
	}
	return true
}

// crotchSlice is findLegs' search: the slice where the legs join (split in the
// voxels, pressed with a valley between them, or flush parts: walledCrotch), or
// failing that the hem of a garment over feet (coveredLegs, true), or -1. Legs pressed
// together above feet set apart also close over the feet: they part again
// higher up, so a hem counts only when no crotch is found.
func (p *profile) crotchSlice(s *shape) (top int, covered, walled bool) {
	H := s.height()
	reach := int(math.Ceil(0.2 * H / p.cell))
	y0, y1 := p.levelOf(s.lo[1]+0.02*H), p.levelOf(s.lo[1]+0.75*H)
	split, feet, hem := 0, 0, -1
	hold := max(int(math.Ceil(0.04*H/p.cell)), 2)
	for y := p.levelOf(s.lo[1]); y <= y1; y++ {
		r, ok := p.splitRatio(y, reach)
		switch {
		case ok && r < 0.5 && y < y0:
			feet++ // feet showing under a hem within 2% of the floor
		case ok && r < 0.5:
			split++
		case split+feet > 0 && (!ok || r >= 0.75):
			if float64(split)*p.cell >= 0.08*H && p.holds(y+1, hold, reach, 0.75) {
				return y, false, false
			}
			if hem < 0 && p.coveredLegs(s, y, reach) {
				hem = y
			}
		}
	}
	if top := p.pressedCrotch(s, reach); top >= 0 {
		return top, false, false
	}
	if top := p.walledCrotch(s); top >= 0 {
		return top, false, true
	}
	return hem, hem >= 0, false
}

// pressedCrotch finds legs pressed together so closely that their contact is
// nearly as deep as a leg (trousers, knee pads): over at least a quarter of the
// height above the bottom the plane's depth is under 0.9 of the legs' (a shallow
// valley between them), and the crotch is the first slice above where it is back
// to 0.95 and stays at 0.9 or more for 4% of the height (the pelvis), or -1.
func (p *profile) pressedCrotch(s *shape, reach int) int {
	H := s.height()
	y0, y1 := p.levelOf(s.lo[1]+0.02*H), p.levelOf(s.lo[1]+maxHips*H)
	need, hold := int(0.25*H/p.cell), max(int(math.Ceil(0.04*H/p.cell)), 2)
	valley := 0
	for y := y0; y <= y1; y++ {
		r, ok := p.splitRatio(y, reach)
		switch {
		case ok && r < 0.9:
			valley++
		case ok && r >= 0.95 && valley >= need && p.holds(y+1, hold, reach, 0.9):
			return y
		}
	}
	return -1
}

// holds reports whether the n slices from y up keep the plane's depth at least
// min of the legs' (a side left empty counts as kept): a pelvis, not a knee
// pad's bulge between legs pressed together.
func (p *profile) holds(y, n, reach int, min float64) bool {
	for k := y; k < y+n; k++ {
		if k >= len(p.w) {
			return false
		}
		if r, ok := p.splitRatio(k, reach); ok && r < min {
			return false
		}
	}
	return true
}

// coveredLegs reports whether the body closing over the plane at slice top is a
// garment's hem above feet: the slices below it split down to the bottom, for at
// least 2% of the height, and the feet stand at least 2% of the height apart
// right up to it (legs that join narrow their gap to nothing first).
func (p *profile) coveredLegs(s *shape, top, reach int) bool {
	H := s.height()
	n := 0
	for y := top - 1; y >= 0; y-- {
		if r, ok := p.splitRatio(y, reach); !ok || r >= 0.5 {
			break
		}
		n++
	}
	if float64(n)*p.cell < 0.02*H || p.levelY(top-n) > s.lo[1]+0.02*H {
		return false
	}
	return p.apart(s, top-1)
}

// apart reports whether the parts either side of the plane in slice y stand at
// least 2% of the height apart.
func (p *profile) apart(s *shape, y int) bool {
	g := p.gap(y)
	return g >= 0 && float64(g)*p.cell >= 0.02*s.height()
}

// coveredCrotch is where the crotch of legs under a garment is taken to be, as a
// share of the height: a standing human's.
const coveredCrotch = 0.45

// gap is the number of empty columns between the parts next to the symmetry
// plane on either side of slice y, or -1 when a side is empty.
func (p *profile) gap(y int) int {
	if y < 0 {
		return -1
	}
	l, r := p.humps(y, 1), p.humps(y, -1)
	if len(l) == 0 || len(r) == 0 {
		return -1
	}
	return l[0].a - r[0].a - 1
}

// upTo continues a leg's route straight up from its highest point to height h,
// a point per slice: the leg inside a garment.
func (p *profile) upTo(route []vecmath.Vec3, h float64) []vecmath.Vec3 {
	last := route[len(route)-1]
	for y := last[1] + p.cell; y <= h; y += p.cell {
		route = append(route, vecmath.Vec3{last[0], y, last[2]})
	}
	return route
}

// maxLegStep is the farthest, as a share of the height, a leg's axis moves
// across from one slice to the next in its lower two thirds.
const maxLegStep = 0.1

// legRoute is the leg on side sd below the crotch slice top: the centres of the
// hump next to the plane, slice by slice, from the lowest slice of the leg up,
// and the index where the leg ends going down from the crotch: where that hump
// jumps across by more than maxStep in the lower two thirds (the crotch's own
// slices jump as the legs part), or 0. Below it hangs another part (a rifle's
// muzzle, a tail), or a foot set apart.
func (p *profile) legRoute(top, sd int, maxStep float64) ([]vecmath.Vec3, int) {
	var route []vecmath.Vec3
	for y := 0; y < top; y++ {
		if hs := p.humps(y, sd); len(hs) > 0 && hs[0].width > 0 {
			route = append(route, hs[0].centre)
		}
	}
	if len(route) < 2 {
		return route, 0
	}
	knee := route[0][1] + (2.0/3)*(route[len(route)-1][1]-route[0][1])
	for k := len(route) - 1; k > 0; k-- {
		if route[k][1] < knee && math.Abs(route[k][0]-route[k-1][0]) > maxStep {
			return route, k
		}
	}
	return route, 0
}

// findHangingArms finds arms that hang or slant down beside the body: on each
// side, the slices where a second hump lies outside the torso's (or the leg's),
// from the highest such slice (the armpit), above the hips, down while they
// continue, at most maxArmDrop. Each route runs from the shoulder (5% of the height
// above the armpit, at the arm's x) to the arm's lowest slice, the fingertips.
func (p *profile) findHangingArms(s *shape, crotch, minTip float64) ([2][]vecmath.Vec3, error) {
	H := s.height()
	var arms [2][]vecmath.Vec3
	lo, hi := p.levelOf(crotch-0.3*H), p.levelOf(s.lo[1]+0.9*H)
	for i, sd := range sides {
		route := p.armRun(lo, hi, sd, int(0.06*H/p.cell), 0.15*H)
		// An armpit at or below the hips (5% of the height above the crotch) is
		// no arm's (a pillar under a lintel), nor a run longer than maxArmDrop or
		// reaching down to minTip of the height (a post, a gate's jamb).
		if len(route) < 2 || route[0][1] <= crotch+0.05*H || route[0][1]-route[len(route)-1][1] > maxArmDrop*H ||
			route[len(route)-1][1] < s.lo[1]+minTip*H {
			continue
		}
		if p.underHeldArm(s, route, sd) || p.farFromBody(s, route, sd) {
			continue
		}
		route = medianAcross(route, 3)
		y := math.Max(route[0][1]+0.05*H, math.Min(p.shoulderTop(s, route, sd), route[0][1]+maxShoulderRise*H))
		arms[i] = append([]vecmath.Vec3{shoulderAbove(route, math.Min(y, s.hi[1]), s.mid)}, route...)
	}
	// On a mirror-symmetric mesh an arm found on one side stands for both (the
	// other pressed into the body over its whole length).
	for i := range sides {
		if arms[i] == nil && arms[1-i] != nil && s.symmetric {
			for _, q := range arms[1-i] {
				arms[i] = append(arms[i], s.mirror(q))
			}
		}
	}
	if arms[0] == nil || arms[1] == nil {
		return arms, errors.New("no arm hangs beside the body")
	}
	return arms, nil
}

// underHeldArm reports whether a hanging arm's run (from its top slice down, on
// side sd) lies in or under an arm held out: the outline within heldArmRise of
// the height above or below its top slice reaches more than heldArmReach of the
// height beyond the run's top. A T-posed arm's bumps (a pauldron's top, an
// elbow pad, a cuff), fused to it, show as a second hump in the slices through
// and below it, with the arm reaching 0.27-0.35 of the height beyond (the fused
// Quaternius astronaut); beside an A-posed arm's top the outline, over its
// pauldron or down its slant, reaches 0.16 at most.
func (p *profile) underHeldArm(s *shape, route []vecmath.Vec3, sd int) bool {
	H := s.height()
	top := float64(sd) * (route[0][0] - s.mid)
	for y := p.levelOf(route[0][1] - heldArmRise*H); y < len(p.w) && p.levelY(y) <= route[0][1]+heldArmRise*H; y++ {
		if o, ok := p.outline(s, y, sd); ok && o > top+heldArmReach*H {
			return true
		}
	}
	return false
}

// farFromBody reports whether a hanging arm's run (from its top slice down, on
// side sd) stands far out from the body: in its top slice more than
// maxArmpitGap of the height of empty columns lies between it and the part
// inward of it. A T-posed arm's big hand or claws, hanging from its end, show
// as such a run (the Fable monsters); a hanging arm's armpit is a narrow gap.
func (p *profile) farFromBody(s *shape, route []vecmath.Vec3, sd int) bool {
	hs := p.humps(p.levelOf(route[0][1]), sd)
	if len(hs) < 2 {
		return false
	}
	gap := math.Abs(p.columnX(hs[len(hs)-1].a) - p.columnX(hs[len(hs)-2].b))
	return gap > maxArmpitGap*s.height()
}

// maxArmpitGap is the widest gap, as a share of the height, between a hanging
// arm's top slice and the body beside it.
const maxArmpitGap = 0.2

// heldArmRise and heldArmReach bound underHeldArm's look around a hanging arm's
// top slice, as shares of the height.
const (
	heldArmRise  = 0.05
	heldArmReach = 0.25
)

// pressedArmsPossible reports whether a body whose slices show two legs but no
// arm apart from the torso may hold its arms pressed along its sides over their
// whole length (a fused, arms-down character): it mirrors (but for a held prop)
// and stands at least twice as tall as it is wide and deep, as a human with
// lowered arms does (about 3.5) and a gate, a table or an animal does not.
func pressedArmsPossible(s *shape) bool {
	ext := s.hi.Sub(s.lo)
	return s.nearlySymmetric && ext[1] >= pressedArmsAspect*math.Max(ext[0], ext[2])
}

// pressedArmsAspect is the least height over width of pressedArmsPossible.
const pressedArmsAspect = 2.0

// outlineArm is the route of an arm pressed along the body's side sd, from the
// shoulder down to the fingertips, placed from the body's outline at human
// proportions over the crotch: the shoulder at 65% of the way from the crotch to
// the top, or 5% of the height under the neck (the narrowest section above the
// chest) when that is lower (a big head), the fingertips a fifth of the crotch's
// height below the crotch; at each slice, an arm's half-width in from the
// outline, at the depth of the outermost column.
func (p *profile) outlineArm(s *shape, crotch float64, sd int) []vecmath.Vec3 {
	H := s.height()
	r := pressedArmHalfWidth * H
	neck := s.narrowest(s.mid, crotch+0.45*(s.hi[1]-crotch), s.hi[1])
	top := math.Min(crotch+0.65*(s.hi[1]-crotch), neck-0.05*H)
	tip := crotch - 0.2*(crotch-s.lo[1])
	var route []vecmath.Vec3
	for y := p.levelOf(top); y >= 0 && p.levelY(y) >= tip; y-- {
		o, ok := p.outline(s, y, sd)
		if !ok {
			continue
		}
		x := s.mid + float64(sd)*math.Max(o-r, 0)
		route = append(route, vecmath.Vec3{x, p.levelY(y), p.depthAt(y, p.g.AxisCell(x, 0))})
	}
	if len(route) < 2 {
		x := s.mid + float64(sd)*0.15*H
		route = []vecmath.Vec3{{x, top, (s.lo[2] + s.hi[2]) / 2}, {x, tip, (s.lo[2] + s.hi[2]) / 2}}
	}
	return route
}

// pressedArmHalfWidth is a pressed arm's half-width as a share of the height.
const pressedArmHalfWidth = 0.025

// depthAt is the mean canonical z of slice y's solid cells in column x (the
// middle of the box when it has none).
func (p *profile) depthAt(y, x int) float64 {
	x = min(max(x, 0), len(p.w[y])-1)
	if p.w[y][x] == 0 {
		return (p.g.Center(p.g.Cell(0, 0, 0))[2] + p.g.Center(p.g.Cell(0, 0, p.g.N[2]-1))[2]) / 2
	}
	return p.zsum[y][x] / float64(p.w[y][x])
}

// maxShoulderRise is the most, as a share of the height, a hanging arm's shoulder
// joint is placed above its armpit.
const maxShoulderRise = 0.15

// shoulderTop returns the height of the shoulder joint of a hanging arm (route,
// from the armpit down, on side sd) from the body's outline above the armpit:
// the outline follows the arm's outer edge up over the shoulder (a deltoid, a
// pauldron, a sleeve) and turns in toward the neck at its top, by an arm's width
// from its widest (chosen on the training split's humanoids with lowered arms:
// names 0.750 at half that, 0.771 at the whole); the joint lies an arm's
// half-width below that. It returns -Inf when the outline never turns in.
func (p *profile) shoulderTop(s *shape, route []vecmath.Vec3, sd int) float64 {
	r := p.armHalfWidth(s, route, sd)
	if r <= 0 {
		return math.Inf(-1)
	}
	widest := 0.0
	for y := p.levelOf(route[0][1]); y < len(p.w); y++ {
		o, ok := p.outline(s, y, sd)
		if !ok {
			break
		}
		widest = math.Max(widest, o)
		if o < widest-2*r { // r is the half-width
			return p.levelY(y) - r
		}
	}
	return math.Inf(-1)
}

// armHalfWidth is the median, over the upper half of a hanging arm's route, of
// the distance from its centre out to the body's outline.
func (p *profile) armHalfWidth(s *shape, route []vecmath.Vec3, sd int) float64 {
	var ds []float64
	for _, q := range route[:max(1, len(route)/2)] {
		if o, ok := p.outline(s, p.levelOf(q[1]), sd); ok {
			ds = append(ds, o-float64(sd)*(q[0]-s.mid))
		}
	}
	if len(ds) == 0 {
		return 0
	}
	sort.Float64s(ds)
	return ds[len(ds)/2]
}

// outline is how far out from the symmetry plane slice y's outermost solid
// column on side sd lies (ok false for an empty side).
func (p *profile) outline(s *shape, y, sd int) (float64, bool) {
	row := p.w[y]
	x, end := 0, p.planeX[0]
	if sd > 0 {
		x, end = len(row)-1, p.planeX[1]
	}
	for ; x != end-sd; x -= sd {
		if row[x] > 0 {
			return float64(sd) * (p.columnX(x) - s.mid), true
		}
	}
	return 0, false
}

// minFingertip is the lowest a hanging arm's run may reach, as a share of the
// height, when the slices show no two legs: a gate's jambs beside its posts reach
// the ground, a human's fingertips hang at about 0.38. Beside legs found in the
// slices nothing is asked: stout bodies' arms, A-posed or pressed to the thighs,
// run down their outline to the floor.
const minFingertip = 0.2

// maxArmDrop is the longest drop, as a share of the height, of a hanging arm from
// armpit to fingertips (a human's is about 0.35).
const maxArmDrop = 0.6

// armRun returns the highest run of slices, from hi down to lo, with a second
// hump on side sd (the outermost one is the arm) that reaches down minLen or more
// (gaps of up to maxGap slices bridged, where the arm presses into the torso): the
// humps' centres from the top down. A shorter run higher up (an ear, a horn) is
// passed over.
func (p *profile) armRun(lo, hi, sd, maxGap int, minLen float64) []vecmath.Vec3 {
	var cur []vecmath.Vec3
	gapped := 0
	long := func() bool { return len(cur) > 1 && cur[0][1]-cur[len(cur)-1][1] >= minLen }
	for y := hi; y >= lo; y-- {
		hs := p.humps(y, sd)
		// A hump far across from the last slice's is another part (a thigh
		// beside the hand's end), not the arm going on.
		if len(hs) >= 2 && len(cur) > 0 && math.Abs(hs[len(hs)-1].centre[0]-cur[len(cur)-1][0]) > 0.5*minLen {
			hs = nil
		}
		if len(hs) < 2 {
			if gapped++; len(cur) > 0 && gapped > maxGap {
				if long() {
					return cur
				}
				cur = nil
			}
			continue
		}
		gapped = 0
		cur = append(cur, hs[len(hs)-1].centre)
	}
	if long() {
		return cur
	}
	return nil
}

// shoulderAbove extends an arm route (from the armpit down) up to height y along
// the arm's line across the front, read from an eighth to half of the way down: a
// slanting arm's shoulder joint lies inward of its highest slice, and the slices
// nearest the armpit, where the arm presses into or is fused with the body, show
// only its outer part. The joint lies no nearer the plane x = mid than half the
// top slice's distance (an A-posed arm's shoulder joint lies about halfway
// between the centre of its top slice and the plane), and above the top slice
// where the line leans out as it rises (a forearm turned in toward the body); its
// depth is the arm's there.
func shoulderAbove(route []vecmath.Vec3, y, mid float64) vecmath.Vec3 {
	a, b := route[len(route)/8], route[max(len(route)/8+1, len(route)/2)]
	top := route[0][0] - mid
	x := route[0][0]
	if b[1] < a[1] {
		x = a[0] + (a[0]-b[0])*(y-a[1])/(a[1]-b[1])
	}
	switch d := (x - mid) / top; {
	case d > 1:
		x = route[0][0]
	case d < 0.5:
		x = mid + top/2
	}
	return vecmath.Vec3{x, y, a[2]}
}

// medianAcross replaces each point's x and z by their medians over the points
// within k of it: a prop held out from the hand widens a few slices only.
func medianAcross(route []vecmath.Vec3, k int) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(route))
	for i := range route {
		var xs, zs []float64
		for j := max(0, i-k); j <= min(len(route)-1, i+k); j++ {
			xs, zs = append(xs, route[j][0]), append(zs, route[j][2])
		}
		sort.Float64s(xs)
		sort.Float64s(zs)
		out[i] = vecmath.Vec3{xs[len(xs)/2], route[i][1], zs[len(zs)/2]}
	}
	return out
}
