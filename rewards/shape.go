package rewards

import (
	"container/heap"
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// meshShape is what the semantic rewards know of the mesh alone, found once per
// mesh (Prepare): its mirror plane, if any, and its limb tips.
type meshShape struct {
	// symErr[k] is the mean distance (cube units) from the surface samples
	// mirrored across the plane through the cube's centre normal to symAxes[k] to
	// the surface.
	symErr [2]float64
	tips   []limbTip
}

// limbTip is the end of a protrusion long enough to bend: a geodesic extremity
// whose last limbWalk of surface toward the body stays thin.
type limbTip struct {
	p         vecmath.Vec3 // cube units
	vert      int          // the tip's vertex
	thickness float64      // mean thickness along the walk back toward the body
}

// symAxes are the normals of the candidate mirror planes: x (left-right) and z
// (front-back, which a capsule or a fish may also have); y is up.
var symAxes = [2]int{0, 2}

const (
	// symPlaneTol and symPlaneFade (cube units): a mesh whose mirrored samples lie
	// within symPlaneTol of its surface is symmetric; the symmetry reward fades out
	// as the error grows to symPlaneTol+symPlaneFade (a posed or lopsided mesh).
	symPlaneTol  = 0.004
	symPlaneFade = 0.006
	// tipSeparation (cube units, geodesic): a tip lies at least this far from the
	// body centre and from every other tip (a hand, not each finger).
	tipSeparation = 0.3
	maxTipSearch  = 10 // farthest-point steps, tips or not
	// limbWalk (cube units) and limbMaxThickness: a tip is a limb's end when the
	// surface over its last limbWalk toward the body is on average at most
	// limbMaxThickness thick (an arm, a leg, a tail, a head on a neck), not a
	// corner of a blob or a wide body.
	limbWalk         = 0.25
	limbMaxThickness = 0.12
)

// findShape finds the mirror plane and the limb tips of the prepared mesh.
func (p *Prepared) findShape() meshShape {
	var s meshShape
	for k, ax := range symAxes {
		sum := 0.0
		for _, q := range p.surf {
			m := q.p
			m[ax] = -m[ax]
			if h, ok := p.bvh.Closest(m); ok {
				sum += math.Min(h.Dist, 0.2)
			}
		}
		s.symErr[k] = sum / float64(len(p.surf))
	}
	s.tips = p.findTips()
	return s
}

// findTips runs farthest-point sampling by geodesic distance over the surface
// graph from the vertex nearest the centroid, keeping the extremities whose
// protrusion is thin (limbWalk, limbMaxThickness).
func (p *Prepared) findTips() []limbTip {
	nv := len(p.pos)
	if nv == 0 {
		return nil
	}
	var c vecmath.Vec3
	for _, q := range p.pos {
		c = c.Add(q)
	}
	c = c.Scale(1 / float64(nv))
	start, best := 0, math.Inf(1)
	for v, q := range p.pos {
		if d := q.Dist(c); d < best {
			start, best = v, d
		}
	}
	dist, prev := p.geodesic(start)
	normals := vertexNormals(p.pos, p.tris)
	var tips []limbTip
	for step := 0; step < maxTipSearch; step++ {
		far, fd := -1, tipSeparation
		for v, d := range dist {
			if d > fd && !math.IsInf(d, 1) {
				far, fd = v, d
			}
		}
		if far < 0 {
			break
		}
		if th, ok := p.thinWalk(far, prev, normals); ok {
			tips = append(tips, limbTip{p: p.pos[far], vert: far, thickness: th})
		}
		p.relax(far, dist, nil)
	}
	return tips
}

// thinWalk follows the geodesic tree from v toward the source for limbWalk and
// returns the mean thickness there (inward rays, capped at maxThickness); ok when
// the walk completes and the mean is at most limbMaxThickness and at least
// detailThickness (thinner is a strand or a flap artists may leave unboned).
func (p *Prepared) thinWalk(v int, prev []int32, normals []vecmath.Vec3) (float64, bool) {
	walked, sum, n := 0.0, 0.0, 0
	for walked < limbWalk {
		u := int(prev[v])
		if u < 0 {
			return 0, false
		}
		th := maxThickness
		if t, ok := p.bvh.RayCapped(p.pos[v], normals[v].Scale(-1), 1e-4, maxThickness, thicknessRayMax); ok {
			th = math.Min(t, maxThickness)
		}
		sum += th
		n++
		walked += p.pos[v].Dist(p.pos[u])
		v = u
	}
	mean := sum / float64(max(n, 1))
	return mean, mean <= limbMaxThickness && mean >= detailThickness
}

// geodesic returns Dijkstra distances over the surface graph (edge lengths in cube
// units) from src, +Inf where unreached, and each vertex's predecessor (-1 at src
// and unreached vertices).
func (p *Prepared) geodesic(src int) ([]float64, []int32) {
	dist := make([]float64, len(p.pos))
	prev := make([]int32, len(p.pos))
	for i := range dist {
		dist[i], prev[i] = math.Inf(1), -1
	}
	p.relax(src, dist, prev)
	return dist, prev
}

// relax lowers dist to the geodesic distance from src wherever that is shorter
// (Dijkstra from src that explores only where it improves dist, so adding a source
// to farthest-point sampling costs only its own region), recording predecessors in
// prev when it is not nil.
func (p *Prepared) relax(src int, dist []float64, prev []int32) {
	dist[src] = 0
	h := &vertexHeap{{v: int32(src)}}
	for h.Len() > 0 {
		it := heap.Pop(h).(heapItem)
		if it.d > dist[it.v] {
			continue
		}
		for _, u := range p.graph.neighbors(int(it.v)) {
			if nd := it.d + p.pos[it.v].Dist(p.pos[u]); nd < dist[u] {
				dist[u] = nd
				if prev != nil {
					prev[u] = it.v
				}
				heap.Push(h, heapItem{v: u, d: nd})
			}
		}
	}
}

type heapItem struct {
	v int32
	d float64
}

// vertexHeap is a min-heap of vertices by tentative distance.
type vertexHeap []heapItem

func (h vertexHeap) Len() int           { return len(h) }
func (h vertexHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h vertexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *vertexHeap) Push(x any)        { *h = append(*h, x.(heapItem)) }
func (h *vertexHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// vertexNormals returns area-weighted vertex normals, unit length (zero where a
// vertex has no area).
func vertexNormals(pos []vecmath.Vec3, tris [][3]int) []vecmath.Vec3 {
	n := make([]vecmath.Vec3, len(pos))
	for _, t := range tris {
		f := pos[t[1]].Sub(pos[t[0]]).Cross(pos[t[2]].Sub(pos[t[0]]))
		for _, v := range t {
			n[v] = n[v].Add(f)
		}
	}
	for i, v := range n {
		if l := v.Len(); l > 0 {
			n[i] = v.Scale(1 / l)
		}
	}
	return n
}
