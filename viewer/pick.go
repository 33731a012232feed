package viewer

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// pickJoint returns the joint nearest to the pixel (mx, my) in a w×h viewport, given
// the joints' world positions and parents: a joint whose point lies within radius
// pixels wins; otherwise the nearest bone segment within radius selects its parent
// joint (the joint that rotates it). It returns -1 when nothing is near.
func pickJoint(viewProj vecmath.Mat4, joints []vecmath.Vec3, parents []int, w, h int, mx, my, radius float64) int {
	type pt struct {
		x, y float64
		ok   bool
	}
	scr := make([]pt, len(joints))
	for j, p := range joints {
		x, y, _, ok := project(viewProj, p, w, h)
		scr[j] = pt{x, y, ok}
	}
	best, bestD := -1, radius
	for j, s := range scr {
		if !s.ok {
			continue
		}
		if d := math.Hypot(s.x-mx, s.y-my); d <= bestD {
			best, bestD = j, d
		}
	}
	if best >= 0 {
		return best
	}
	bestD = radius
	for j, p := range parents {
		if p < 0 || p >= len(scr) || !scr[j].ok || !scr[p].ok {
			continue
		}
		if d := segDist(mx, my, scr[p].x, scr[p].y, scr[j].x, scr[j].y); d <= bestD {
			best, bestD = p, d
		}
	}
	return best
}

// segDist is the distance from (px, py) to the segment (ax, ay)-(bx, by). It is the
// screen-space (2D) counterpart of assets.SegmentDist, for picking bones under the
// cursor.
func segDist(px, py, ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((px-ax)*dx+(py-ay)*dy)/l2))
	}
	return math.Hypot(px-(ax+t*dx), py-(ay+t*dy))
}
