package anatomy

import (
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// tree is the proposed skeleton as an undirected graph in the canonical frame: its
// paths run inside the mesh, so the templates take limb routes from it.
type tree struct {
	pos []vecmath.Vec3
	adj [][]int
}

func newTree(sk *character.Skeleton, f frame) *tree {
	t := &tree{pos: make([]vecmath.Vec3, sk.NumJoints()), adj: make([][]int, sk.NumJoints())}
	for j, p := range sk.Parents {
		t.pos[j] = f.to(sk.Position(j))
		if p >= 0 {
			t.adj[j] = append(t.adj[j], p)
			t.adj[p] = append(t.adj[p], j)
		}
	}
	return t
}

// leaves returns the nodes of degree 1 (a lone root counts too).
func (t *tree) leaves() []int {
	var out []int
	for j, a := range t.adj {
		if len(a) <= 1 {
			out = append(out, j)
		}
	}
	return out
}

// path returns the nodes from a to b (nil when they are not connected).
func (t *tree) path(a, b int) []int {
	prev := make([]int, len(t.pos))
	for i := range prev {
		prev[i] = -2
	}
	prev[a] = -1
	queue := []int{a}
	for q := 0; q < len(queue); q++ {
		for _, n := range t.adj[queue[q]] {
			if prev[n] == -2 {
				prev[n] = queue[q]
				queue = append(queue, n)
			}
		}
	}
	if prev[b] == -2 {
		return nil
	}
	var out []int
	for v := b; v != -1; v = prev[v] {
		out = append(out, v)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// points returns the positions of a node list.
func (t *tree) points(nodes []int) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(nodes))
	for i, n := range nodes {
		out[i] = t.pos[n]
	}
	return out
}

// nearest returns the node nearest to q.
func (t *tree) nearest(q vecmath.Vec3) int {
	best, bestD := 0, math.Inf(1)
	for j, p := range t.pos {
		if d := p.Dist(q); d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// farthest returns the node farthest along the tree from a, and the path length.
func (t *tree) farthest(a int) (int, float64) {
	dist := make([]float64, len(t.pos))
	for i := range dist {
		dist[i] = -1
	}
	dist[a] = 0
	queue := []int{a}
	best := a
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		if dist[v] > dist[best] {
			best = v
		}
		for _, n := range t.adj[v] {
			if dist[n] < 0 {
				dist[n] = dist[v] + t.pos[v].Dist(t.pos[n])
				queue = append(queue, n)
			}
		}
	}
	return best, dist[best]
}

// Polylines: arc length, the point at an arc-length fraction, and the first
// point (from the start) where the polyline crosses a value along an axis.

func arcLength(pl []vecmath.Vec3) float64 {
	l := 0.0
	for i := 1; i < len(pl); i++ {
		l += pl[i].Dist(pl[i-1])
	}
	return l
}

func atFraction(pl []vecmath.Vec3, f float64) vecmath.Vec3 {
	if len(pl) == 1 {
		return pl[0]
	}
	want := f * arcLength(pl)
	for i := 1; i < len(pl); i++ {
		d := pl[i].Dist(pl[i-1])
		if want <= d && d > 0 {
			return pl[i-1].Lerp(pl[i], want/d)
		}
		want -= d
	}
	return pl[len(pl)-1]
}

// crossing returns the first point of pl (walked from its start) where coordinate
// axis reaches v, and the index of the segment's end (ok false when it never does).
func crossing(pl []vecmath.Vec3, axis int, v float64) (vecmath.Vec3, int, bool) {
	for i := 1; i < len(pl); i++ {
		a, b := pl[i-1][axis], pl[i][axis]
		if (a-v)*(b-v) <= 0 && a != b {
			return pl[i-1].Lerp(pl[i], (v-a)/(b-a)), i, true
		}
	}
	return vecmath.Vec3{}, 0, false
}
