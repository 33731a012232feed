package anatomy

import (
	"errors"
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// nameTolerance is the farthest a skeleton joint may be from a fitted template joint,
// as a share of the mesh's height, to take its name. The template's joints are
// themselves within 0.1 of the artist's on 91.5% of the held-out humanoids' names;
// at 0.075 the model's named joints keep that accuracy (docs/anatomy.md), where 0.1
// names 18% more joints but only 84% of them within 0.1 of the artist's.
const nameTolerance = 0.075

// Naming says how a free-form skeleton (the model's) was named from the fitted
// template of the same mesh (NameFromTemplate).
type Naming struct {
	// Named of Of joints took a template name; the template has Template joints.
	Named    int `json:"named"`
	Of       int `json:"of"`
	Template int `json:"template"`
	// Dropped counts matches given up because their chain runs against the
	// template's (a LeftForeArm above the LeftArm).
	Dropped int `json:"dropped,omitempty"`
	// Reparented counts named joints moved under the joint named after their
	// template ancestor (a wrist hanging from the chest, a leg from the other
	// thigh).
	Reparented int `json:"reparented,omitempty"`
	// Rerooted: the skeleton's tree now hangs from a joint that was not its root:
	// the joint matched to the template's root (Hips), or the one nearest it.
	Rerooted bool `json:"rerooted,omitempty"`
	// Inserted: no joint lies within the tolerance of the template's root, so one
	// was added there as the root, with the template root's name and no weights;
	// the skeleton's joint nearest it hangs from it. The output then has Of+1
	// joints.
	Inserted bool `json:"inserted,omitempty"`
	// Joined counts extra roots attached to the tree at their nearest joint.
	Joined int    `json:"joined,omitempty"`
	Root   string `json:"root"`
}

// Named is a skeleton named from a template: the renamed, re-rooted and oriented
// skeleton, and Order, where Order[i] is the index in the input skeleton of joint i
// (-1 for an inserted root).
type Named struct {
	Skeleton *character.Skeleton
	Order    []int
	Naming   Naming
}

// Skin renumbers a skin made for the input skeleton to the named skeleton's joints.
// Positions do not move, so the weights need no other change.
func (n *Named) Skin(skin *character.Skin) *character.Skin {
	if skin == nil {
		return nil
	}
	inv := fill(len(n.Order), -1)
	for i, j := range n.Order {
		if j >= 0 {
			inv[j] = i
		}
	}
	out := skin.Clone()
	for _, infl := range out.Weights {
		for i := range infl {
			if j := infl[i].Joint; j >= 0 && j < len(inv) && inv[j] >= 0 {
				infl[i].Joint = inv[j]
			}
		}
	}
	return out
}

// NameFromTemplate names a free-form skeleton sk (a model's) after the skeleton
// Fit made for the same mesh, whose up axis is up ("z", else Y). The phases:
//
//   - match: template and skeleton joints are paired one to one by least summed
//     distance (the Hungarian method), an unmatched template joint costing
//     nameTolerance of the height, so that no pair is farther apart than that;
//   - root: the skeleton is re-rooted at the joint matched to the template's root
//     (its parent chain reversed; positions do not move); when none is, a joint is
//     added at the template's root, weightless, and the skeleton, re-rooted at its
//     joint nearest it, hangs from it; every other tree of a forest hangs from the
//     first tree's joint nearest it;
//   - hierarchy: a named joint whose template ancestor's joint is not its ancestor
//     moves under that joint (its match is dropped when the chain runs the other
//     way), and one whose nearest named ancestor belongs to another limb moves
//     onto its template ancestor's joint, so no limb hangs from a limb;
//   - names: unmatched joints are called after their nearest named ancestor,
//     "<ancestor>_extra_<k>", never joint_NNN;
//   - order and orientation: parents come first (the input order is kept when it
//     still has them), and the bones point at their children (Orient).
func NameFromTemplate(sk, fitted *character.Skeleton, m *character.Mesh, opt Options) (*Named, error) {
	if err := sk.Validate(); err != nil {
		return nil, fmt.Errorf("anatomy: name skeleton: %w", err)
	}
	if err := fitted.Validate(); err != nil {
		return nil, fmt.Errorf("anatomy: name skeleton: template: %w", err)
	}
	if m == nil {
		return nil, errors.New("anatomy: name skeleton: no mesh")
	}
	h := heightAlong(m, axesFrame(opt.Up, opt.World).up)
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, errors.New("anatomy: name skeleton: the mesh has no height")
	}
	n := &naming{sk: sk, tpl: fitted, pos: sk.Positions(), tol: nameTolerance * h}
	n.match()
	n.reroot()
	n.keepHierarchy()
	n.offLimbs()
	names := n.names()
	return n.finish(names, opt)
}

// naming is one NameFromTemplate call: the skeleton's positions and adjacency, the
// matches both ways, and the new parents.
type naming struct {
	sk, tpl *character.Skeleton
	pos     []vecmath.Vec3
	tol     float64
	tplOf   []int // tplOf[j]: the template joint matched to skeleton joint j, or -1
	jointOf []int // jointOf[t]: the skeleton joint matched to template joint t, or -1
	root    int
	parents []int
	rep     Naming
}

// match pairs template and skeleton joints (assign on distances capped at tol).
func (n *naming) match() {
	cost := make([][]float64, n.tpl.NumJoints())
	for t := range cost {
		p := n.tpl.Position(t)
		cost[t] = make([]float64, len(n.pos))
		for j, q := range n.pos {
			cost[t][j] = math.Min(p.Dist(q), n.tol)
		}
	}
	n.tplOf = fill(len(n.pos), -1)
	n.jointOf = fill(n.tpl.NumJoints(), -1)
	for t, j := range assign(cost) {
		if j >= 0 && n.tpl.Position(t).Dist(n.pos[j]) < n.tol {
			n.tplOf[j], n.jointOf[t] = t, j
		}
	}
}

// reroot makes the joint matched to the template's root the root, or adds one at
// the template's root when none is matched and hangs the skeleton from it at its
// nearest joint; every other tree of a forest hangs from its joint nearest the
// first tree, at a joint of the first tree itself: a tree joined to another joined
// tree would chain dozens of the model's one-joint trees into one long limb.
func (n *naming) reroot() {
	const tplRoot = 0 // a valid skeleton's first joint is a root
	top := n.jointOf[tplRoot]
	if top < 0 {
		top = nearestPoint(n.pos, n.tpl.Position(tplRoot))
	}
	n.rep.Rerooted = n.sk.Parents[top] >= 0
	adj := make([][]int, len(n.pos), len(n.pos)+1)
	for j, p := range n.sk.Parents {
		if p >= 0 {
			adj[j] = append(adj[j], p)
			adj[p] = append(adj[p], j)
		}
	}
	n.parents = fill(len(n.pos), -2)
	n.root = top
	if n.jointOf[tplRoot] < 0 {
		n.root = len(n.pos)
		n.pos = append(n.pos, n.tpl.Position(tplRoot))
		n.tplOf = append(n.tplOf, tplRoot)
		n.jointOf[tplRoot] = n.root
		adj = append(adj, []int{top})
		adj[top] = append(adj[top], n.root)
		n.parents = append(n.parents, -2)
		n.rep.Inserted = true
	}
	n.parents[n.root] = -1
	first := hang(adj, n.parents, n.root)
	for {
		a, b := nearestPair(n.pos, n.parents, first)
		if a < 0 {
			break
		}
		n.parents[a] = b
		hang(adj, n.parents, a)
		n.rep.Joined++
	}
}

// hang walks the tree of start (whose parent is set) breadth first, parenting each
// joint to the one it is reached from, and returns the joints reached.
func hang(adj [][]int, parents []int, start int) []int {
	queue := []int{start}
	for q := 0; q < len(queue); q++ {
		for _, k := range adj[queue[q]] {
			if parents[k] == -2 {
				parents[k] = queue[q]
				queue = append(queue, k)
			}
		}
	}
	return queue
}

// nearestPair returns the closest pair of a joint not yet in a tree (parents -2)
// and one of in, or -1 when every joint is in one.
func nearestPair(pos []vecmath.Vec3, parents, in []int) (int, int) {
	a, b, best := -1, -1, math.Inf(1)
	for j, p := range parents {
		if p != -2 {
			continue
		}
		for _, k := range in {
			if d := pos[j].Dist(pos[k]); d < best {
				a, b, best = j, k, d
			}
		}
	}
	return a, b
}

// keepHierarchy makes the matches follow the template's hierarchy, walking the
// template parents first: a joint whose nearest kept template ancestor's joint is
// not its ancestor moves under that joint (a wrist hanging from the chest moves to
// the forearm), unless that joint lies below it (the chain runs the other way):
// then the match is dropped.
func (n *naming) keepHierarchy() {
	for t, j := range n.jointOf {
		if j < 0 {
			continue
		}
		a := n.keptAncestor(t)
		if a < 0 || n.descends(j, n.jointOf[a]) {
			continue
		}
		if !n.descends(n.jointOf[a], j) {
			n.parents[j] = n.jointOf[a]
			n.rep.Reparented++
			continue
		}
		n.jointOf[t], n.tplOf[j] = -1, -1
		n.rep.Dropped++
	}
}

// keptAncestor returns the nearest template ancestor of t that has a match, or -1.
func (n *naming) keptAncestor(t int) int {
	for a := n.tpl.Parents[t]; a >= 0; a = n.tpl.Parents[a] {
		if n.jointOf[a] >= 0 {
			return a
		}
	}
	return -1
}

// descends reports whether skeleton joint j lies below joint a (new parents).
func (n *naming) descends(j, a int) bool {
	for p := n.parents[j]; p >= 0; p = n.parents[p] {
		if p == a {
			return true
		}
	}
	return false
}

// offLimbs moves each named joint whose nearest named ancestor belongs to another
// limb onto the joint of its nearest matched template ancestor, which keepHierarchy
// made one of its ancestors, so no cycle forms.
func (n *naming) offLimbs() {
	for t, j := range n.jointOf {
		if j < 0 {
			continue
		}
		q := n.namedAncestor(j)
		if q < 0 {
			continue
		}
		own, above := limbOf(n.tpl.Names[t]), limbOf(n.tpl.Names[n.tplOf[q]])
		if above == "" || above == own {
			continue
		}
		if a := n.keptAncestor(t); a >= 0 && !n.descends(n.jointOf[a], j) {
			n.parents[j] = n.jointOf[a]
			n.rep.Reparented++
		}
	}
}

// namedAncestor returns the nearest ancestor of skeleton joint j with a match, or -1.
func (n *naming) namedAncestor(j int) int {
	for p := n.parents[j]; p >= 0; p = n.parents[p] {
		if n.tplOf[p] >= 0 {
			return p
		}
	}
	return -1
}

// names returns each joint's name: its template joint's, or "<nearest named
// ancestor>_extra_<k>" numbered from 1 per ancestor in depth-first order (the root
// always has a template name).
func (n *naming) names() []string {
	names := make([]string, len(n.pos))
	extra := map[string]int{}
	for _, j := range n.preorder() {
		switch {
		case n.tplOf[j] >= 0:
			names[j] = n.tpl.Names[n.tplOf[j]]
			n.rep.Named += b2i(j < n.sk.NumJoints())
		default:
			base := names[n.namedAncestor(j)]
			extra[base]++
			names[j] = fmt.Sprintf("%s_extra_%d", base, extra[base])
		}
	}
	return names
}

// preorder returns the joints depth first from the root, children in input order.
func (n *naming) preorder() []int {
	kids := make([][]int, len(n.pos))
	for j, p := range n.parents {
		if p >= 0 {
			kids[p] = append(kids[p], j)
		}
	}
	out := make([]int, 0, len(n.pos))
	stack := []int{n.root}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, j)
		for k := len(kids[j]) - 1; k >= 0; k-- {
			stack = append(stack, kids[j][k])
		}
	}
	return out
}

// finish orders the joints parents first, orients them and fills the report.
func (n *naming) finish(names []string, opt Options) (*Named, error) {
	order := make([]int, len(n.pos))
	valid := true
	for j, p := range n.parents {
		order[j] = j
		valid = valid && p < j
	}
	if !valid {
		order = n.preorder()
	}
	inv := make([]int, len(order))
	for i, j := range order {
		inv[j] = i
	}
	out := &character.Skeleton{Names: make([]string, len(order)), Parents: make([]int, len(order))}
	pos := make([]vecmath.Vec3, len(order))
	for i, j := range order {
		out.Names[i], pos[i], out.Parents[i] = names[j], n.pos[j], -1
		if p := n.parents[j]; p >= 0 {
			out.Parents[i] = inv[p]
		}
	}
	f := axesFrame(opt.Up, opt.World)
	out.BindWorld = orient(pos, out.Parents, f.up, f.fwd)
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("anatomy: name skeleton: %w", err)
	}
	n.rep.Of, n.rep.Template, n.rep.Root = n.sk.NumJoints(), n.tpl.NumJoints(), out.Names[0]
	for i, j := range order {
		if j >= n.sk.NumJoints() {
			order[i] = -1 // the inserted root
		}
	}
	return &Named{Skeleton: out, Order: order, Naming: n.rep}, nil
}

// heightAlong returns the mesh's extent along the unit direction up.
func heightAlong(m *character.Mesh, up vecmath.Vec3) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range m.Positions {
		h := p.Dot(up)
		lo, hi = math.Min(lo, h), math.Max(hi, h)
	}
	return hi - lo
}

func nearestPoint(pts []vecmath.Vec3, q vecmath.Vec3) int {
	best, bestD := 0, math.Inf(1)
	for j, p := range pts {
		if d := p.Dist(q); d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

func fill(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}
