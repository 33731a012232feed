package anatomy

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// Inner walls: surfaces inside the solid, where a mesh built from separate
// closed parts (a blocky, Minecraft-style body: a box per limb, often with a
// second, inflated box over it for clothing) has parts touching or overlapping.
// Voxels merge such parts into one solid, so legs standing box against box show
// no split at the symmetry plane; only the surfaces inside the union do. A
// welded body has none there: its surfaces bound it.

// innerWalls returns the canonical x of the surfaces that a ray across the body
// along x, at height y and depth z, meets inside the solid (the winding number
// over 0.5 on both sides), in increasing order.
func (s *shape) innerWalls(y, z float64) []float64 {
	H, bvh := s.height(), s.wn.BVH()
	from := vecmath.Vec3{s.lo[0] - 0.01*H, y, z}
	o := s.f.from(from)
	d := s.f.from(vecmath.Vec3{from[0] + 1, y, z}).Sub(o)
	eps := 0.005 * H
	inside := func(x float64) bool { return s.wn.At(s.f.from(vecmath.Vec3{x, y, z})) > 0.5 }
	var walls []float64
	for t, n := 0.0, 0; n < maxWallCrossings; n++ {
		hit, ok := bvh.Ray(o, d, t, s.hi[0]-from[0]+0.01*H)
		if !ok {
			break
		}
		if x := from[0] + hit.T; inside(x-eps) && inside(x+eps) {
			walls = append(walls, x)
		}
		t = hit.T + 1e-6*H
	}
	return walls
}

// wallTol is how far from the symmetry plane, as a share of the height, an inner
// wall may lie and part the legs: a clothing box over each leg box overlaps the
// other leg by its thickness (the mineclone2 zombie's 2%).
const wallTol = 0.025

// maxWallCrossings bounds the surfaces one ray of innerWalls looks at.
const maxWallCrossings = 64

// wallNear reports whether an inner wall crosses the ray at height y and depth
// z within tol of x.
func (s *shape) wallNear(x, y, z, tol float64) bool {
	for _, w := range s.innerWalls(y, z) {
		if math.Abs(w-x) <= tol {
			return true
		}
	}
	return false
}

// walledCrotch finds legs standing side by side as separate parts, when the
// voxels show no split: going up from 2% of the height, an inner wall at the
// symmetry plane (within wallTol), at the depth of the body's middle there,
// for at least 8% of the height; the crotch is the last such slice before two
// slices without one. It returns the crotch slice, or -1.
func (p *profile) walledCrotch(s *shape) int {
	H := s.height()
	y0, y1 := p.levelOf(s.lo[1]+0.02*H), p.levelOf(s.lo[1]+maxHips*H)
	run, last, misses := 0, -1, 0
	for y := y0; y <= y1; y++ {
		if p.planeWall(s, y) {
			run, last, misses = run+1, y, 0
			continue
		}
		if run > 0 {
			if misses++; misses >= 2 {
				if float64(run)*p.cell >= 0.08*H {
					return last
				}
				run, misses = 0, 0
			}
		}
	}
	return -1
}

// planeWall reports whether slice y has an inner wall at the symmetry plane
// (within wallTol of the height, at least a voxel), at the mean depth of its
// solid cells there.
func (p *profile) planeWall(s *shape, y int) bool {
	n, zs := 0, 0.0
	for _, x := range p.planeX {
		n += p.w[y][x]
		zs += p.zsum[y][x]
	}
	if n == 0 {
		return false
	}
	return s.wallNear(s.mid, p.levelY(y), zs/float64(n), math.Max(p.cell, wallTol*s.height()))
}

// walledArms finds arms hanging flush against the torso as separate parts, for
// a body whose legs are such parts too (walledCrotch): on each side, the highest
// run of slices above the hips where an inner wall at least torsoHalfWall of the
// height out from the plane has 4 to 20% of the height of body beyond it (the
// arm) within armOutline of the plane (hanging, not held out), for at least 15%
// of the height. Each route runs from the torso's edge at the top of the run,
// the shoulder, down the middle of the part beyond the wall to the run's lowest
// slice, the fingertips.
func (p *profile) walledArms(s *shape, crotch float64) ([2][]vecmath.Vec3, bool) {
	H := s.height()
	var arms [2][]vecmath.Vec3
	lo, hi := p.levelOf(crotch+0.05*H), p.levelOf(s.lo[1]+0.9*H)
	for i, sd := range sides {
		var run []vecmath.Vec3
		var edge float64
		for y := hi; y >= lo; y-- {
			c, wall, ok := p.walledArmAt(s, y, sd)
			if !ok {
				if float64(len(run))*p.cell >= minWalledArm*H {
					break
				}
				run = run[:0]
				continue
			}
			if len(run) == 0 {
				edge = wall
			}
			run = append(run, c)
		}
		if float64(len(run))*p.cell < minWalledArm*H {
			return arms, false
		}
		top := run[0]
		arms[i] = append([]vecmath.Vec3{{edge, top[1], top[2]}}, medianAcross(run, 3)...)
	}
	return arms, true
}

// Bounds of walledArms, as shares of the height.
const (
	torsoHalfWall = 0.05
	minArmPart    = 0.04
	maxArmPart    = 0.2
	armOutline    = 0.4
	minWalledArm  = 0.15
)

// walledArmAt returns, for slice y on side sd, the middle of the part beyond the
// innermost inner wall at least torsoHalfWall out (at the depth of the body's
// middle there) and that wall's x, when that part is an arm's width and the
// outline lies within armOutline of the plane.
func (p *profile) walledArmAt(s *shape, y, sd int) (vecmath.Vec3, float64, bool) {
	H := s.height()
	o, ok := p.outline(s, y, sd)
	if !ok || o > armOutline*H {
		return vecmath.Vec3{}, 0, false
	}
	x := p.g.AxisCell(s.mid+float64(sd)*o/2, 0)
	z := p.depthAt(y, x)
	var wall float64
	found := false
	for _, w := range s.innerWalls(p.levelY(y), z) {
		d := float64(sd) * (w - s.mid)
		if d >= torsoHalfWall*H && (!found || d < float64(sd)*(wall-s.mid)) {
			wall, found = w, true
		}
	}
	width := o - float64(sd)*(wall-s.mid)
	if !found || width < minArmPart*H || width > maxArmPart*H {
		return vecmath.Vec3{}, 0, false
	}
	cx := wall + float64(sd)*width/2
	return vecmath.Vec3{cx, p.levelY(y), p.depthAt(y, p.g.AxisCell(cx, 0))}, wall, true
}
