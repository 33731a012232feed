package synth

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// builder accumulates a skeleton and the body parts around it while a kind's
// grammar runs. Every random draw goes through rng in a fixed order, so a grammar
// rerun with the same seed and a larger minR yields the same creature with thin
// parts thickened (minR only ever enters max() and arithmetic, never a branch).
type builder struct {
	rng     *rand.Rand
	minR    float64 // thinnest radius the grid resolves
	blend   float64 // joint blend half-width as a fraction of the local radius
	names   []string
	parents []int
	pos     []vecmath.Vec3
	prims   []prim
}

func newBuilder(seed int64, minR float64) *builder {
	return &builder{rng: rand.New(rand.NewSource(seed)), minR: minR, blend: 0.9}
}

// u returns a uniform number in [lo, hi).
func (b *builder) u(lo, hi float64) float64 { return lo + (hi-lo)*b.rng.Float64() }

// in returns a uniform integer in [lo, hi].
func (b *builder) in(lo, hi int) int { return lo + b.rng.Intn(hi-lo+1) }

// chance reports true with probability p.
func (b *builder) chance(p float64) bool { return b.rng.Float64() < p }

// r clamps a radius to the thinnest one the grid resolves.
func (b *builder) r(x float64) float64 { return math.Max(x, b.minR) }

// joint adds a joint without a body part to its parent.
func (b *builder) joint(name string, parent int, p vecmath.Vec3) int {
	b.names = append(b.names, name)
	b.parents = append(b.parents, parent)
	b.pos = append(b.pos, p)
	return len(b.names) - 1
}

// bone adds joint name at p and the body part from its parent to it (moved by the
// parent), with radius ra at the parent and rb at p.
func (b *builder) bone(name string, parent int, p vecmath.Vec3, ra, rb float64) int {
	return b.flatBone(name, parent, p, ra, rb, vecmath.Vec3{}, 1)
}

// flatBone is bone with the cross-section squashed to scale f along axis flat.
func (b *builder) flatBone(name string, parent int, p vecmath.Vec3, ra, rb float64, flat vecmath.Vec3, f float64) int {
	j := b.joint(name, parent, p)
	b.addPrim(prim{a: b.pos[parent], b: p, ra: ra, rb: rb, flat: flat, flatScale: f, owner: parent, end: j, startBlend: true})
	return j
}

// blob adds a rigid body part owned by joint owner.
func (b *builder) blob(owner int, p, q vecmath.Vec3, ra, rb float64, flat vecmath.Vec3, f float64) {
	b.addPrim(prim{a: p, b: q, ra: ra, rb: rb, flat: flat, flatScale: f, owner: owner, end: -1})
}

func (b *builder) addPrim(p prim) {
	p.ra, p.rb = b.r(p.ra), b.r(p.rb)
	if p.flat == (vecmath.Vec3{}) || p.flatScale <= 0 || p.flatScale >= 1 {
		p.flat, p.flatScale = vecmath.Vec3{}, 1
	} else {
		p.flat = p.flat.Normalize()
		p.flatScale = math.Min(1, math.Max(p.flatScale, b.minR/math.Min(p.ra, p.rb)))
	}
	b.prims = append(b.prims, p)
}

// chain adds bones through pts (pts[0] is the first new joint) named by name(i),
// with radii tapering from r0 at the parent to r1 at the last point.
func (b *builder) chain(parent int, pts []vecmath.Vec3, r0, r1 float64, name func(i int) string) []int {
	ids := make([]int, len(pts))
	n := float64(len(pts))
	for i, p := range pts {
		ra := r0 + (r1-r0)*float64(i)/n
		rb := r0 + (r1-r0)*float64(i+1)/n
		parent = b.bone(name(i), parent, p, ra, rb)
		ids[i] = parent
	}
	return ids
}

// finish computes each part's blend windows and checks names are unique. A joint's
// window is a fraction of its radius, kept inside its incoming and outgoing bones
// so that no two windows on one bone overlap.
func (b *builder) finish() error {
	seen := make(map[string]bool, len(b.names))
	for _, n := range b.names {
		if seen[n] {
			return fmt.Errorf("duplicate joint name %q", n)
		}
		seen[n] = true
	}
	nj := len(b.names)
	ownsBlended := make([]bool, nj)
	radius := make([]float64, nj)
	outLen := make([]float64, nj)
	inLen := make([]float64, nj)
	inStart := make([]bool, nj) // the incoming part blends at its start too
	for j := range outLen {
		outLen[j], inLen[j] = math.Inf(1), math.Inf(1)
	}
	for i := range b.prims {
		p := &b.prims[i]
		l := p.b.Dist(p.a)
		if p.startBlend {
			ownsBlended[p.owner] = true
			outLen[p.owner] = math.Min(outLen[p.owner], l)
			radius[p.owner] = math.Max(radius[p.owner], p.ra*p.flatScale)
		}
	}
	for i := range b.prims {
		p := &b.prims[i]
		if p.end >= 0 && !ownsBlended[p.end] {
			p.end = -1 // a leaf: nothing to blend into
		}
		if p.end >= 0 {
			inLen[p.end] = math.Min(inLen[p.end], p.b.Dist(p.a))
			inStart[p.end] = p.startBlend && b.parents[p.owner] >= 0
		}
		if p.startBlend && b.parents[p.owner] < 0 {
			p.startBlend = false // the root has no parent to blend into
		}
	}
	window := make([]float64, nj)
	for j := 0; j < nj; j++ {
		if !ownsBlended[j] || b.parents[j] < 0 {
			continue
		}
		w := math.Min(b.blend*radius[j], 0.6*outLen[j])
		room := inLen[j]
		if inStart[j] {
			room -= window[b.parents[j]]
		}
		window[j] = math.Max(0, math.Min(w, room*0.95))
	}
	for i := range b.prims {
		p := &b.prims[i]
		p.wa = window[p.owner]
		if p.end >= 0 {
			p.wb = window[p.end]
		}
	}
	return nil
}

// skeleton returns the bind skeleton: identity rotations at the joint positions.
func (b *builder) skeleton() *character.Skeleton {
	s := &character.Skeleton{
		Names:     append([]string(nil), b.names...),
		Parents:   append([]int(nil), b.parents...),
		BindWorld: make([]vecmath.Mat4, len(b.names)),
	}
	for j, p := range b.pos {
		s.BindWorld[j] = vecmath.Translate4(p)
	}
	return s
}

// surfaceArea estimates the area of the union of parts (side walls plus end caps).
func surfaceArea(prims []prim) float64 {
	a := 0.0
	for i := range prims {
		p := &prims[i]
		f := (1 + p.flatScale) / 2
		a += math.Pi * (p.ra + p.rb) * p.b.Dist(p.a) * f
		if p.end < 0 {
			a += 2 * math.Pi * p.rb * p.rb * f
		}
	}
	return a
}

func v3(x, y, z float64) vecmath.Vec3 { return vecmath.Vec3{x, y, z} }

// rotY rotates v about the up axis by angle a (radians).
func rotY(v vecmath.Vec3, a float64) vecmath.Vec3 {
	c, s := math.Cos(a), math.Sin(a)
	return vecmath.Vec3{c*v[0] + s*v[2], v[1], -s*v[0] + c*v[2]}
}

// rotAxis rotates v about unit axis k by angle a (Rodrigues).
func rotAxis(v, k vecmath.Vec3, a float64) vecmath.Vec3 {
	c, s := math.Cos(a), math.Sin(a)
	return v.Scale(c).Add(k.Cross(v).Scale(s)).Add(k.Scale(k.Dot(v) * (1 - c)))
}

func deg(d float64) float64 { return d * math.Pi / 180 }
