package viewer

import (
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// silhouette rasterizes triangles on the CPU into a w×h coverage mask (row-major,
// top row first) with the same projection as the GPU path: a pixel is covered when
// its center lies inside a projected triangle. Triangles with a vertex behind the
// camera are skipped. It checks GPU skinning against assets.LinearBlendSkin.
func silhouette(viewProj vecmath.Mat4, pos []vecmath.Vec3, tris [][3]int, w, h int) []bool {
	mask := make([]bool, w*h)
	for _, t := range tris {
		var xs, ys [3]float64
		ok := true
		for i, v := range t {
			if v < 0 || v >= len(pos) {
				ok = false
				break
			}
			var vis bool
			xs[i], ys[i], _, vis = project(viewProj, pos[v], w, h)
			ok = ok && vis
		}
		if !ok {
			continue
		}
		area := (xs[1]-xs[0])*(ys[2]-ys[0]) - (xs[2]-xs[0])*(ys[1]-ys[0])
		if area == 0 {
			continue
		}
		x0 := max(0, int(math.Floor(min(xs[0], xs[1], xs[2]))))
		x1 := min(w-1, int(math.Ceil(max(xs[0], xs[1], xs[2]))))
		y0 := max(0, int(math.Floor(min(ys[0], ys[1], ys[2]))))
		y1 := min(h-1, int(math.Ceil(max(ys[0], ys[1], ys[2]))))
		for y := y0; y <= y1; y++ {
			py := float64(y) + 0.5
			for x := x0; x <= x1; x++ {
				px := float64(x) + 0.5
				e0 := (xs[1]-xs[0])*(py-ys[0]) - (ys[1]-ys[0])*(px-xs[0])
				e1 := (xs[2]-xs[1])*(py-ys[1]) - (ys[2]-ys[1])*(px-xs[1])
				e2 := (xs[0]-xs[2])*(py-ys[2]) - (ys[0]-ys[2])*(px-xs[2])
				if (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0) {
					mask[y*w+x] = true
				}
			}
		}
	}
	return mask
}

// iou returns the intersection over union of two masks of equal length (1 when
// both are empty).
func iou(a, b []bool) float64 {
	inter, union := 0, 0
	for i := range a {
		if a[i] && b[i] {
			inter++
		}
		if a[i] || b[i] {
			union++
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}
