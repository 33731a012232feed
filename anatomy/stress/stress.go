// Package stress makes the hard cases of anatomical fitting out of rigged
// characters: legs pressed together, arms lowered to an A-pose or against the
// hips, and the whole body remeshed into one fused watertight surface, each with the
// artist's skeleton carried along so that the fit can still be measured against it.
//
// Poses are skinned deformations of the artist's own rig (linear blend skinning), so
// the skeleton moves exactly with the mesh. Frames: the input is Y-up (glTF), its
// mirror plane halfway between the artist's hip joints (a biped's, found by name)
// or between each pair of a quadruped's leg tops (found by shape, quadlegs.go); all
// lengths are world units.
package stress

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
)

// Variant names one stress case. Combined cases join their parts with "+",
// applied in order: poses first, then the remesh.
type Variant string

// The single deformations a variant combines.
const (
	Legs     = "legs"     // each leg turned toward the mirror plane until they touch
	APose    = "apose"    // upper arms lowered to 45° below horizontal
	ArmsDown = "armsdown" // upper arms lowered until the arm touches the body
	Fused    = "fused"    // remeshed into one watertight surface, weights transferred
	Skirt    = "skirt"    // a closed skirt from the waist to the knees
	Robe     = "robe"     // a closed robe from the waist to the ankles
)

// Variants are the stress cases the anatomy report measures on humanoids.
var Variants = []Variant{"legs", "apose", "armsdown", "legs+apose", "legs+armsdown", "fused", "fused+legs+apose", "fused+legs+armsdown", "skirt", "robe", "fused+skirt", "fused+robe"}

// QuadVariants are the stress cases the anatomy report measures on quadrupeds
// (no arms to lower).
var QuadVariants = []Variant{"legs", "fused", "fused+legs"}

// ParseVariant checks that every part of v is a known deformation.
func ParseVariant(v string) (Variant, error) {
	for _, p := range strings.Split(v, "+") {
		switch p {
		case Legs, APose, ArmsDown, Fused, Skirt, Robe:
		default:
			return "", fmt.Errorf("stress variant %q: unknown part %q (want legs, apose, armsdown, skirt, robe, fused joined by +)", v, p)
		}
	}
	return Variant(v), nil
}

// Apply returns a copy of the rigged character c deformed as the variant says, with
// its skeleton and skin moved along. It fails when c lacks the joints a part needs
// (named upper legs or four legs standing on the floor for legs, upper arms for
// the arm poses).
func Apply(c *character.Character, v Variant) (*character.Character, error) {
	if !c.Rigged() {
		return nil, fmt.Errorf("stress %s: %s has no skeleton and skin", v, c.Name)
	}
	out := c.Clone()
	var fuse bool
	for _, p := range strings.Split(string(v), "+") {
		var err error
		switch p {
		case Legs:
			err = pressLegs(out)
		case APose:
			err = lowerArms(out, false)
		case ArmsDown:
			err = lowerArms(out, true)
		case Skirt, Robe:
			err = addGarment(out, p == Robe)
		case Fused:
			fuse = true
		default:
			err = fmt.Errorf("unknown part %q", p)
		}
		if err != nil {
			return nil, fmt.Errorf("stress %s: %s: %w", v, c.Name, err)
		}
	}
	if fuse {
		f, err := Fuse(out, DefaultFuseOptions())
		if err != nil {
			return nil, fmt.Errorf("stress %s: %s: %w", v, c.Name, err)
		}
		out = f
	}
	out.Source = nil
	out.Name = c.Name + "_" + strings.ReplaceAll(string(v), "+", "_")
	return out, nil
}

// body is a rigged character's frame and the artist joints a pose needs, found by
// their Mixamo names (anatomy.MixamoName).
type body struct {
	c            *character.Character
	joint        map[string]int // Mixamo name → joint
	up, side     vecmath.Vec3   // world up; the character's left, across the mirror plane
	fwd          vecmath.Vec3   // side × up
	mid          float64        // the mirror plane: side·p = mid
	floor, top   float64        // lowest and highest vertex along up
	dominant     []int          // each vertex's heaviest joint
	children     [][]int
	subtreeCache map[int][]bool
}

// newBody reads the frame from the hip joints (the mirror plane halfway between
// them, +Y up).
func newBody(c *character.Character) (*body, error) {
	b := baseBody(c)
	for j, n := range c.Skeleton.Names {
		if m := anatomy.MixamoName(n); m != "" {
			if _, dup := b.joint[m]; !dup {
				b.joint[m] = j
			}
		}
	}
	l, okL := b.joint[anatomy.Side(1, anatomy.UpLeg)]
	r, okR := b.joint[anatomy.Side(-1, anatomy.UpLeg)]
	if !okL || !okR {
		return nil, fmt.Errorf("no artist joints named as the left and right upper legs")
	}
	pl, pr := c.Skeleton.Position(l), c.Skeleton.Position(r)
	d := pl.Sub(pr)
	d = d.Sub(b.up.Scale(d.Dot(b.up)))
	if d.Len() == 0 {
		return nil, fmt.Errorf("the hip joints are not apart")
	}
	b.setSide(d)
	b.mid = pl.Add(pr).Scale(0.5).Dot(b.side)
	return b, nil
}

// baseBody reads what every pose needs before the mirror plane is known: +Y up,
// the floor and top along it, each vertex's heaviest joint.
func baseBody(c *character.Character) *body {
	b := &body{c: c, joint: map[string]int{}, up: vecmath.Vec3{0, 1, 0}, children: c.Skeleton.Children(), subtreeCache: map[int][]bool{}}
	b.floor, b.top = math.Inf(1), math.Inf(-1)
	for _, p := range c.Mesh.Positions {
		b.floor, b.top = math.Min(b.floor, p.Dot(b.up)), math.Max(b.top, p.Dot(b.up))
	}
	b.dominant = make([]int, len(c.Mesh.Positions))
	for v, ws := range c.Skin.Weights {
		b.dominant[v] = -1
		best := 0.0
		for _, w := range ws {
			if w.Weight > best {
				b.dominant[v], best = w.Joint, w.Weight
			}
		}
	}
	return b
}

// setSide makes the horizontal direction d the character's left (across the
// mirror plane) and forward the direction along the body, level.
func (b *body) setSide(d vecmath.Vec3) {
	b.side = d.Sub(b.up.Scale(d.Dot(b.up))).Normalize()
	b.fwd = b.side.Cross(b.up)
}

func (b *body) height() float64 { return b.top - b.floor }

// subtree marks the joints at or below j.
func (b *body) subtree(j int) []bool {
	if s, ok := b.subtreeCache[j]; ok {
		return s
	}
	in := make([]bool, len(b.c.Skeleton.Names))
	stack := []int{j}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		in[k] = true
		stack = append(stack, b.children[k]...)
	}
	b.subtreeCache[j] = in
	return in
}

// vertices returns the vertices whose heaviest joint lies in j's subtree.
func (b *body) vertices(j int) []int {
	in := b.subtree(j)
	var out []int
	for v, d := range b.dominant {
		if d >= 0 && in[d] {
			out = append(out, v)
		}
	}
	return out
}

// turn returns the world transform that rotates by angle about the forward axis
// through pivot.
func (b *body) turn(pivot vecmath.Vec3, angle float64) vecmath.Mat4 {
	r := vecmath.QuatAxisAngle(b.fwd, angle).Mat4()
	return vecmath.Translate4(pivot).Mul(r).Mul(vecmath.Translate4(pivot.Scale(-1)))
}

// pose moves the skeleton and the mesh by one world transform per chain: every
// joint of the subtree of each key turns with its transform (linear blend
// skinning with the artist's weights), the rest stays.
func (b *body) pose(turns map[int]vecmath.Mat4) {
	sk := b.c.Skeleton
	m := make([]vecmath.Mat4, len(sk.Names))
	for j := range m {
		m[j] = vecmath.Identity4()
	}
	for root, t := range turns {
		for j, in := range b.subtree(root) {
			if in {
				m[j] = t.Mul(m[j])
			}
		}
	}
	b.c.Mesh.Positions = character.LinearBlendSkin(b.c.Mesh.Positions, b.c.Skin, m)
	for j := range sk.BindWorld {
		sk.BindWorld[j] = m[j].Mul(sk.BindWorld[j])
	}
	b.c.Mesh.Normals = nil
}

// sideOf is +1 for a point on the character's left of the plane, -1 on its right.
func (b *body) sideOf(p vecmath.Vec3) float64 {
	return math.Copysign(1, p.Dot(b.side)-b.mid)
}

// towardPlane returns the sign of the rotation about forward that moves point p
// (turning about pivot) toward the mirror plane.
func (b *body) towardPlane(pivot, p vecmath.Vec3) float64 {
	moved := b.turn(pivot, 0.01).Point(p)
	if math.Abs(moved.Dot(b.side)-b.mid) < math.Abs(p.Dot(b.side)-b.mid) {
		return 1
	}
	return -1
}
