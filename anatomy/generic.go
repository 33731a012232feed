package anatomy

import (
	"fmt"
	"math"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// fitChain builds the skeleton of a body that is one long chain with appendages
// (fish, snakes, birds, anything else): the spine is the proposed skeleton's
// longest route, its forward end the head, the root the spine joint nearest the
// centre of mass; each branch off the spine becomes one limb chain hung from the
// spine joint it leaves, its side branches dropped so that no limb hangs from
// another. Names follow the kind (docs/naming.md).
func fitChain(s *shape, t *tree, kind Kind) (*build, error) {
	a, _ := t.farthest(0)
	z, _ := t.farthest(a)
	spine := t.path(a, z)
	if t.pos[spine[0]][2] > t.pos[spine[len(spine)-1]][2] {
		for i, j := 0, len(spine)-1; i < j; i, j = i+1, j-1 {
			spine[i], spine[j] = spine[j], spine[i]
		}
	}
	// spine runs tail end first, head end last.
	var com vecmath.Vec3
	for _, p := range s.pts {
		com = com.Add(p)
	}
	com = com.Scale(1 / float64(len(s.pts)))
	r := 0
	for i, n := range spine {
		if t.pos[n].Dist(com) < t.pos[spine[r]].Dist(com) {
			r = i
		}
	}
	b := newBuild()
	centre := kind != Other
	names := spineNames(kind, len(spine)-1-r, r)
	nameOf := map[int]string{spine[r]: names.root}
	b.add(names.root, "", t.pos[spine[r]], centre)
	parent := names.root
	for k, n := range spine[r+1:] {
		nameOf[n] = names.front[k]
		b.add(names.front[k], parent, t.pos[n], centre)
		parent = names.front[k]
	}
	parent = names.root
	for k := r - 1; k >= 0; k-- {
		n := spine[k]
		nameOf[n] = names.back[r-1-k]
		b.add(names.back[r-1-k], parent, t.pos[n], centre)
		parent = names.back[r-1-k]
	}
	addLimbs(s, t, b, kind, spine, nameOf)
	return b, nil
}

// chainNames are the spine's names: the root, then forward from it, then backward.
type chainNames struct {
	root        string
	front, back []string
}

// spineNames names nf joints forward of the root and nb behind it.
func spineNames(kind Kind, nf, nb int) chainNames {
	var c chainNames
	switch kind {
	case Other:
		c.root = "root"
		for k := 1; k <= nf; k++ {
			c.front = append(c.front, genericSpine(k))
		}
		if nf > 0 {
			c.front[nf-1] = "head"
		}
		for k := 1; k <= nb; k++ {
			c.back = append(c.back, genericTail(k))
		}
		return c
	}
	c.root = Hips
	for k := 1; k <= nf; k++ {
		c.front = append(c.front, numberedName("Spine", k))
	}
	if kind == Bird {
		// Hips → Spine → Spine1 → Neck → Neck1 … → Head.
		for k := range c.front {
			switch {
			case k == 0:
				c.front[k] = Spine
			case k == 1:
				c.front[k] = Spine1
			case k == 2:
				c.front[k] = Neck
			default:
				c.front[k] = numberedName(Neck, k-2)
			}
		}
	}
	if nf > 0 {
		c.front[nf-1] = Head
	}
	if nf > 2 && kind == Snake {
		c.front[nf-2] = Neck
	}
	for k := 1; k <= nb; k++ {
		c.back = append(c.back, numberedName("Tail", k))
	}
	if nb > 0 && kind == Fish {
		c.back[nb-1] = tailFin
	}
	return c
}

// branch is one appendage: the spine node it leaves and its route to its farthest
// end point.
type branch struct {
	from  int
	route []int
}

// branches returns the appendages off the spine, longest first.
func branches(t *tree, spine []int) []branch {
	on := map[int]bool{}
	for _, n := range spine {
		on[n] = true
	}
	var out []branch
	for _, sn := range spine {
		for _, c := range t.adj[sn] {
			if on[c] {
				continue
			}
			// The farthest node of the subtree through c.
			seen := map[int]bool{sn: true}
			best, far := c, 0.0
			stack := []int{c}
			dist := map[int]float64{c: t.pos[c].Dist(t.pos[sn])}
			seen[c] = true
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if dist[v] > far {
					best, far = v, dist[v]
				}
				for _, n := range t.adj[v] {
					if !seen[n] {
						seen[n] = true
						dist[n] = dist[v] + t.pos[v].Dist(t.pos[n])
						stack = append(stack, n)
					}
				}
			}
			out = append(out, branch{from: sn, route: t.path(c, best)})
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		return arcLength(t.points(out[a].route)) > arcLength(t.points(out[b].route))
	})
	return out
}

// addLimbs hangs every appendage from its spine joint, named by kind: a bird's two
// most lateral ones are wings and its two lowest legs, a fish's are fins, the rest
// limb_<n>_<k> with limb_<n>_end at the tip.
func addLimbs(s *shape, t *tree, b *build, kind Kind, spine []int, nameOf map[int]string) {
	bs := branches(t, spine)
	named := map[int]bool{}
	if kind == Bird {
		tip := func(br branch) vecmath.Vec3 { return t.pos[br.route[len(br.route)-1]] }
		pickPair(s, t, bs, named, func(br branch) float64 { return math.Abs(tip(br)[0] - s.mid) }, func(i, side int) {
			route := append([]vecmath.Vec3{t.pos[bs[i].from]}, t.points(bs[i].route)...)
			addTriple(b, nameOf[bs[i].from], side, [3]string{wingArm, wingForeArm, wingHand}, route)
		})
		pickPair(s, t, bs, named, func(br branch) float64 { return -tip(br)[1] }, func(i, side int) {
			route := append([]vecmath.Vec3{t.pos[bs[i].from]}, t.points(bs[i].route)...)
			addTriple(b, nameOf[bs[i].from], side, [3]string{UpLeg, Leg, Foot}, route)
		})
	}
	n := 0
	for i, br := range bs {
		if named[i] {
			continue
		}
		route := t.points(br.route)
		if kind == Fish {
			end := route[len(route)-1]
			name := fmt.Sprintf("Fin%d", i+1)
			switch {
			case math.Abs(end[0]-s.mid) > math.Abs(end[1]-t.pos[br.from][1]):
				name = Side(int(math.Copysign(1, end[0]-s.mid)), fin)
			case end[1] > t.pos[br.from][1]:
				name = dorsalFin
			}
			if _, dup := b.index[name]; dup {
				name = fmt.Sprintf("Fin%d", i+1)
			}
			b.add(name, nameOf[br.from], route[len(route)/2], false)
			continue
		}
		n++
		parent := nameOf[br.from]
		for k, p := range route {
			name := genericLimb(n, k+1)
			if k == len(route)-1 {
				name = genericLimbEnd(n)
			}
			b.add(name, parent, p, false)
			parent = name
		}
	}
}

// pickPair finds the best-scoring appendage on each side of the plane and calls
// add for both (left first) when both exist.
func pickPair(s *shape, t *tree, bs []branch, named map[int]bool, score func(branch) float64, add func(i, side int)) {
	pick := [2]int{-1, -1}
	for k, sd := range sides {
		for i, br := range bs {
			tip := t.pos[br.route[len(br.route)-1]]
			if named[i] || float64(sd)*(tip[0]-s.mid) <= 0 {
				continue
			}
			if pick[k] < 0 || score(br) > score(bs[pick[k]]) {
				pick[k] = i
			}
		}
	}
	if pick[0] < 0 || pick[1] < 0 {
		return
	}
	for k, sd := range sides {
		named[pick[k]] = true
		add(pick[k], sd)
	}
}

// addTriple adds a three-joint limb along a route from its spine joint: near its
// root, at its middle and near its end.
func addTriple(b *build, parent string, side int, names [3]string, route []vecmath.Vec3) {
	for k, n := range names {
		name := Side(side, n)
		b.add(name, parent, atFraction(route, [3]float64{0.15, 0.5, 0.9}[k]), false)
		parent = name
	}
}
