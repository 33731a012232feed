package anatomy

import (
	"errors"
	"math"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// footprint is one connected piece of a horizontal slice of the body's voxels:
// its cells and their centre in the canonical frame.
type footprint struct {
	cells  int
	centre vecmath.Vec3
	xs     []float64 // canonical x of each cell, to split a piece at the plane
	zs     []float64
}

// footprints returns the connected pieces (4-neighbour) of slice y of the profile's
// grid, largest first.
func (p *profile) footprints(y int) []footprint {
	g := p.g
	nx, nz := g.N[0], g.N[2]
	seen := make([]bool, nx*nz)
	var out []footprint
	for z0 := 0; z0 < nz; z0++ {
		for x0 := 0; x0 < nx; x0++ {
			if seen[x0+nx*z0] || !g.Occ[g.Cell(x0, y, z0)] {
				continue
			}
			out = append(out, p.floodSlice(y, x0, z0, seen))
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].cells > out[b].cells })
	return out
}

// floodSlice collects the piece of slice y holding cell (x0, z0).
func (p *profile) floodSlice(y, x0, z0 int, seen []bool) footprint {
	g := p.g
	nx, nz := g.N[0], g.N[2]
	var f footprint
	stack := [][2]int{{x0, z0}}
	seen[x0+nx*z0] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		q := g.Center(g.Cell(c[0], y, c[1]))
		f.cells++
		f.centre = f.centre.Add(q)
		f.xs, f.zs = append(f.xs, q[0]), append(f.zs, q[2])
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			x, z := c[0]+d[0], c[1]+d[1]
			if x < 0 || z < 0 || x >= nx || z >= nz || seen[x+nx*z] || !g.Occ[g.Cell(x, y, z)] {
				continue
			}
			seen[x+nx*z] = true
			stack = append(stack, [2]int{x, z})
		}
	}
	f.centre = f.centre.Scale(1 / float64(f.cells))
	return f
}

// half returns the centre of the footprint's cells on side sd (+1 left) of the
// plane at x = mid, and whether it has any.
func (f footprint) half(mid float64, sd int) (vecmath.Vec3, bool) {
	var sum vecmath.Vec3
	n := 0
	for i, x := range f.xs {
		if float64(sd)*(x-mid) > 0 {
			sum = sum.Add(vecmath.Vec3{x, f.centre[1], f.zs[i]})
			n++
		}
	}
	if n == 0 {
		return vecmath.Vec3{}, false
	}
	return sum.Scale(1 / float64(n)), true
}

// quadFeet are four feet found in the body's slices: [front, hind][left, right].
type quadFeet [2][2]vecmath.Vec3

// findQuadFeet finds a standing four-legged body's feet where the proposed
// skeleton's topology does not show four (legs pressed together, a fused
// surface): a slice at footLevel of the height cut into pieces, the front-most
// and hind-most pieces apart by at least a quarter of the body's length (of
// twice its height when longer: a sauropod's neck and tail are most of it; a
// pair's pieces lie within 0.15 of it), each
// split at the symmetry plane into a left and a right foot (one piece per foot,
// or one per pair when the legs touch).
func (p *profile) findQuadFeet(s *shape) (quadFeet, error) {
	var feet quadFeet
	H, L := s.height(), s.hi[2]-s.lo[2]
	pieces := p.footprints(p.levelOf(s.lo[1] + footLevel*H))
	var big []footprint
	for _, f := range pieces {
		if f.cells >= 2 {
			big = append(big, f)
		}
	}
	if len(big) < 2 {
		return feet, errors.New("the body does not stand on separate front and hind legs")
	}
	sort.Slice(big, func(a, b int) bool { return big[a].centre[2] > big[b].centre[2] })
	span := math.Min(L, 2*H)
	front, hind := pairAt(big, big[0].centre[2], 0.15*span), pairAt(big, big[len(big)-1].centre[2], 0.15*span)
	if front[0].centre[2]-hind[0].centre[2] < 0.25*span {
		return feet, errors.New("front and hind legs are not apart along the body")
	}
	for i, pair := range [2][]footprint{front, hind} {
		for k, sd := range sides {
			q, ok := sideOf(pair, s.mid, sd)
			if !ok {
				return feet, errors.New("a leg pair has no foot on one side of the plane")
			}
			q[1] = s.lo[1]
			feet[i][k] = q
		}
	}
	return feet, nil
}

// footLevel is the slice of the feet, as a share of the height: above a hoof's
// rim, below every belly.
const footLevel = 0.06

// pairAt returns the pieces whose centre lies within tol of z along the body: the
// feet of one end of it.
func pairAt(pieces []footprint, z, tol float64) []footprint {
	var out []footprint
	for _, f := range pieces {
		if d := f.centre[2] - z; d <= tol && d >= -tol {
			out = append(out, f)
		}
	}
	return out
}

// sideOf returns the foot on side sd of the plane among a pair's pieces: the piece
// whose centre lies on that side, else that side's half of a piece across the
// plane (two legs pressed together).
func sideOf(pair []footprint, mid float64, sd int) (vecmath.Vec3, bool) {
	for _, f := range pair {
		if float64(sd)*(f.centre[0]-mid) > 0 && f.cells > 0 && !spans(f, mid) {
			return f.centre, true
		}
	}
	for _, f := range pair {
		if spans(f, mid) {
			return f.half(mid, sd)
		}
	}
	return vecmath.Vec3{}, false
}

// spans reports whether a piece has cells on both sides of the plane.
func spans(f footprint, mid float64) bool {
	l, r := false, false
	for _, x := range f.xs {
		l, r = l || x > mid, r || x < mid
	}
	return l && r
}
