package animation

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// canonicalRest is the pose retargeting measures motion from (the pose the built-in
// clips are written against): humanoid arms hang down, slightly away from the body,
// whatever the bind pose. Directions are joint → child in the character's frame.
var canonicalRest = map[string]map[string]vecmath.Vec3{
	Humanoid: {
		"LeftArm": {0.17, -1, 0}, "LeftForeArm": {0.17, -1, 0.05},
		"RightArm": {-0.17, -1, 0}, "RightForeArm": {-0.17, -1, 0.05},
	},
	Quadruped: {},
}

// binding is what motion needs to know about a target skeleton: its canonical joint
// names, the character's frame, every joint's bind rotation in world and parent
// space, the hip height, and the rest corrections of the canonical pose.
type binding struct {
	sk        *character.Skeleton
	canon     []string       // canonical name per joint
	idx       map[string]int // canonical name → joint
	frame     frame
	bindRot   []quat // world rotation of each joint's bind transform
	localRot  []quat // bind rotation relative to the parent (world for a root)
	localT    []vecmath.Vec3
	hips      int // -1 when there is no Hips joint
	hipHeight float64
	// rest is each joint's world rotation from the bind pose to the canonical rest
	// pose (identity for joints that keep their bind direction).
	rest []quat
}

func newBinding(sk *character.Skeleton, rest map[string]vecmath.Vec3) (*binding, error) {
	if sk.NumJoints() == 0 {
		return nil, fmt.Errorf("no skeleton")
	}
	n := sk.NumJoints()
	canon := skeletonNames(sk)
	b := &binding{sk: sk, idx: indexOf(canon), canon: canon, bindRot: make([]quat, n),
		localRot: make([]quat, n), localT: make([]vecmath.Vec3, n), rest: make([]quat, n), hips: -1}
	for j := range sk.Names {
		_, b.bindRot[j], _ = vecmath.DecomposeTRS(sk.BindWorld[j])
		local := sk.BindWorld[j]
		if p := sk.Parents[j]; p >= 0 {
			if pi, ok := sk.BindWorld[p].Inverse(); ok {
				local = pi.Mul(local)
			}
		}
		b.localT[j], b.localRot[j], _ = vecmath.DecomposeTRS(local)
	}
	if h, ok := b.idx["Hips"]; ok {
		b.hips = h
	}
	b.frame = characterFrame(sk, b.idx)
	b.hipHeight = b.measureHipHeight()
	b.restCorrections(rest)
	return b, nil
}

// characterFrame finds the character's axes in the skeleton's frame: up points from
// the feet to the hips (restUp), left from the right limbs to the left ones,
// forward completes a right-handed frame. A skeleton that lies in its own frame
// (a Z-up source, an armature turned −90° about X) thus gets the axes it stands on.
func characterFrame(sk *character.Skeleton, idx map[string]int) frame {
	up := restUp(sk, idx)
	var left vecmath.Vec3
	for _, pair := range sidePairs {
		l, okl := idx[pair[0]]
		r, okr := idx[pair[1]]
		if okl && okr {
			left = left.Add(sk.Position(l).Sub(sk.Position(r)))
		}
	}
	left = left.Sub(up.Scale(left.Dot(up)))
	sided := left.Len() >= 1e-9
	if !sided {
		left = vecmath.Vec3{1, 0, 0}
		if math.Abs(up[0]) > 0.9 {
			left = vecmath.Vec3{0, 0, 1}
		}
		left = left.Sub(up.Scale(left.Dot(up)))
	}
	left = left.Normalize()
	return frame{left: left, up: up, fwd: left.Cross(up), sided: sided}
}

// sidePairs are the left and right joints whose offsets give a character's left
// direction (characterFrame).
var sidePairs = [][2]string{{"LeftUpLeg", "RightUpLeg"}, {"LeftArm", "RightArm"},
	{"LeftShoulder", "RightShoulder"}, {"LeftHindUpLeg", "RightHindUpLeg"}, {"LeftFrontUpLeg", "RightFrontUpLeg"}}

// restUp is the skeleton's up direction: against the way its legs hang at rest
// (from each named leg's top joint to its lowest named one, Foot or, where a rig
// ends its legs at the knees, Leg), or from the hips to the head without legs
// (not for a quadruped, whose head is ahead of its hips: one-bone legs give it
// +Y); snapped to the nearest axis when within 30° of it, since files stand on an axis.
// It is +Y when neither is known or the direction is near no axis (legs guessed
// among IK targets point anywhere).
func restUp(sk *character.Skeleton, idx map[string]int) vecmath.Vec3 {
	dir := legsUp(sk, idx)
	_, fourLegged := idx["LeftFrontUpLeg"]
	if dir.Len() < 1e-12 && !fourLegged { // a quadruped's head is ahead of its hips, not above: +Y
		h, okH := idx["Hips"]
		hd, okD := idx["Head"]
		if okH && okD {
			dir = sk.Position(hd).Sub(sk.Position(h))
		}
	}
	if !dir.IsFinite() || dir.Len() < 1e-12 {
		return vecmath.Vec3{0, 1, 0}
	}
	dir = dir.Normalize()
	for a := 0; a < 3; a++ {
		if math.Abs(dir[a]) > math.Cos(math.Pi/6) {
			var axis vecmath.Vec3
			axis[a] = math.Copysign(1, dir[a])
			return axis
		}
	}
	return vecmath.Vec3{0, 1, 0}
}

// legsUp sums, over the named legs, the unit direction from the lowest named joint
// of the leg up to its top.
func legsUp(sk *character.Skeleton, idx map[string]int) vecmath.Vec3 {
	var sum vecmath.Vec3
	for _, leg := range []string{"Left", "Right", "LeftHind", "RightHind", "LeftFront", "RightFront"} {
		top, ok := idx[leg+"UpLeg"]
		if !ok {
			continue
		}
		for _, seg := range []string{"Foot", "Leg"} {
			if j, ok := idx[leg+seg]; ok {
				if d := sk.Position(top).Sub(sk.Position(j)); d.Len() > 1e-12 {
					sum = sum.Add(d.Normalize())
				}
				break
			}
		}
	}
	return sum
}

// measureHipHeight is the Hips joint's height above the lowest joint (the feet),
// the unit of root motion; without Hips, the skeleton's height.
func (b *binding) measureHipHeight() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range b.sk.Names {
		y := b.sk.Position(j).Dot(b.frame.up)
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	top := hi
	if b.hips >= 0 {
		top = b.sk.Position(b.hips).Dot(b.frame.up)
	}
	if h := top - lo; h > 1e-9 {
		return h
	}
	return math.Max(hi-lo, 1)
}

// primaryChild is the child on the longest chain (the bone's direction).
func primaryChild(sk *character.Skeleton, children [][]int, j int) int {
	size := func(c int) int {
		n, stack := 0, []int{c}
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n++
			stack = append(stack, children[k]...)
		}
		return n
	}
	best, bestN := -1, 0
	for _, c := range children[j] {
		if n := size(c); n > bestN {
			best, bestN = c, n
		}
	}
	return best
}

// restCorrections turns each listed bone (joint → primary child) onto its rest
// direction, after its parents' turns.
func (b *binding) restCorrections(rest map[string]vecmath.Vec3) {
	children := b.sk.Children()
	for j := range b.sk.Names {
		r := identity
		if p := b.sk.Parents[j]; p >= 0 {
			r = b.rest[p]
		}
		if dir, ok := rest[b.canon[j]]; ok && b.idx[b.canon[j]] == j {
			if c := primaryChild(b.sk, children, j); c >= 0 {
				bone := b.sk.Position(c).Sub(b.sk.Position(j))
				if bone.Len() > 1e-12 {
					r = mul(arc(rotate(r, bone), b.frame.vecToWorld(dir)), r)
				}
			}
		}
		b.rest[j] = norm(r)
	}
}

// pose is a motion at one instant, in the character's frame: abs holds each named
// joint's rotation from the canonical rest pose; root is the Hips offset in hip
// heights.
type pose struct {
	abs     map[string]quat
	root    vecmath.Vec3
	hasRoot bool
}

// local returns every joint's animated local rotation and the Hips translation for
// a pose: G (rotation from the canonical rest pose) is the pose's for named joints
// and the parent's for the others,
// A = G·rest is the rotation from the bind pose, and a joint's local rotation is its
// bind local rotation followed by its own share of A in its bind frame.
func (b *binding) local(p pose) ([]quat, vecmath.Vec3) {
	n := b.sk.NumJoints()
	g := make([]quat, n)
	a := make([]quat, n)
	out := make([]quat, n)
	for j := 0; j < n; j++ {
		par := b.sk.Parents[j]
		gp := identity
		if par >= 0 {
			gp = g[par]
		}
		own := b.idx[b.canon[j]] == j
		if q, ok := p.abs[b.canon[j]]; ok && own {
			g[j] = b.frame.toWorld(q)
		} else {
			g[j] = gp
		}
		a[j] = norm(mul(g[j], b.rest[j]))
		if par < 0 {
			out[j] = norm(mul(a[j], b.bindRot[j]))
			continue
		}
		delta := mul(inv(a[par]), a[j])
		out[j] = norm(mul(b.localRot[j], mul(inv(b.bindRot[j]), mul(delta, b.bindRot[j]))))
	}
	var t vecmath.Vec3
	if b.hips >= 0 {
		t = b.localT[b.hips]
		if p.hasRoot {
			off := b.frame.vecToWorld(p.root.Scale(b.hipHeight))
			if par := b.sk.Parents[b.hips]; par >= 0 {
				if pi, ok := b.sk.BindWorld[par].Inverse(); ok {
					off = pi.Dir(rotate(inv(a[par]), off))
				}
			}
			t = t.Add(off)
		}
	}
	return out, t
}
