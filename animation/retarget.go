package animation

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Retarget bakes a glTF animation of a source character onto a target rig whose
// joints follow the same names (after CanonicalName: Mixamo's "mixamorig:" names
// match rigkit's). Each matched joint gets the source joint's rotation away from the
// canonical rest pose, expressed in the target character's own frame, so the two
// bind poses may differ (T against A pose) and joints may carry any orientation;
// joints the source lacks follow their parent. The Hips offset from its bind
// position is scaled by the ratio of the two hip heights.
func Retarget(target, source *character.Character, anim int, o Options) (character.Animation, Report, error) {
	if target == nil || target.Skeleton.NumJoints() == 0 {
		return character.Animation{}, Report{}, fmt.Errorf("retarget: the target has no skeleton")
	}
	if source == nil || source.Skeleton.NumJoints() == 0 {
		return character.Animation{}, Report{}, fmt.Errorf("retarget: the source has no skeleton")
	}
	if anim < 0 || anim >= len(source.Animations) {
		return character.Animation{}, Report{}, fmt.Errorf("retarget: the source has %d animations, no animation %d", len(source.Animations), anim)
	}
	src := source.Animations[anim]
	kind, err := DetectKind(target.Skeleton)
	if err != nil {
		return character.Animation{}, Report{}, fmt.Errorf("retarget onto %s: %w", target.Name, err)
	}
	if sk, err := DetectKind(source.Skeleton); err != nil {
		return character.Animation{}, Report{}, fmt.Errorf("retarget from %s: %w", source.Name, err)
	} else if sk != kind && !o.Force {
		return character.Animation{}, Report{}, fmt.Errorf("retarget: %s is a %s, %s a %s (force it to retarget anyway)", source.Name, sk, target.Name, kind)
	}
	tb, err := newBinding(target.Skeleton, canonicalRest[kind])
	if err != nil {
		return character.Animation{}, Report{}, err
	}
	sb, err := newBinding(source.Skeleton, canonicalRest[kind])
	if err != nil {
		return character.Animation{}, Report{}, err
	}
	duration := 0.0
	for _, ch := range src.Channels {
		if n := len(ch.Times); n > 0 {
			duration = math.Max(duration, ch.Times[n-1])
		}
	}
	if !(duration > 0) {
		return character.Animation{}, Report{}, fmt.Errorf("retarget: source animation %q has no duration", src.Name)
	}
	rep := Report{Animation: src.Name, Kind: kind, Duration: duration, HipHeight: tb.hipHeight}
	var names []string
	for j, name := range sb.canon {
		if sb.idx[name] == j && jointAnimated(src, j) {
			names = append(names, name)
		}
	}
	rep.Matched, rep.Missing = match(tb, names)
	rep.Unmatched = unmatched(tb, kind)
	if len(rep.Matched) == 0 {
		return character.Animation{}, rep, fmt.Errorf("retarget %q: no animated source joint (%s) has a namesake on the target (%s)",
			src.Name, sample(names, 8), sample(target.Skeleton.Names, 8))
	}
	scale := 0.0
	if sb.hips >= 0 && sb.hipHeight > 0 {
		scale = 1 / sb.hipHeight
	}
	bind := bindLocals(source.Skeleton)
	at := func(t float64) pose {
		world := animatedWorldFrom(source.Skeleton, bind, src, t)
		p := pose{abs: make(map[string]quat, len(names))}
		for _, name := range rep.Matched {
			j := sb.idx[name]
			_, w, _ := vecmath.DecomposeTRS(world[j])
			a := mul(w, inv(sb.bindRot[j]))
			p.abs[name] = sb.frame.toChar(norm(mul(a, inv(sb.rest[j]))))
		}
		if sb.hips >= 0 && tb.hips >= 0 && scale > 0 {
			off := world[sb.hips].Translation().Sub(source.Skeleton.Position(sb.hips))
			p.root, p.hasRoot = sb.frame.vecToChar(off).Scale(scale), true
		}
		return p
	}
	name := o.Name
	if name == "" {
		name = src.Name
	}
	out := bake(tb, name, duration, o, at)
	rep.RootMotion = sb.hips >= 0 && tb.hips >= 0
	rep.Channels = len(out.Channels)
	return out, rep, nil
}

// FindAnimation returns the index of the animation called name ("" = the first).
func FindAnimation(c *character.Character, name string) (int, error) {
	if len(c.Animations) == 0 {
		return -1, fmt.Errorf("%s has no animation on its joints", c.Name)
	}
	if name == "" {
		return 0, nil
	}
	var have []string
	for i, a := range c.Animations {
		if a.Name == name {
			return i, nil
		}
		have = append(have, a.Name)
	}
	return -1, fmt.Errorf("%s has no animation %q (have: %s)", c.Name, name, strings.Join(have, ", "))
}

func jointAnimated(a character.Animation, j int) bool {
	for _, ch := range a.Channels {
		if ch.Joint == j {
			return true
		}
	}
	return false
}

// trs is a joint's local transform in parts.
type trs struct {
	t, s vecmath.Vec3
	r    quat
}

// bindLocals returns every joint's bind transform relative to its parent (to the
// world for a root).
func bindLocals(sk *character.Skeleton) []trs {
	local := make([]trs, sk.NumJoints())
	for j := range local {
		l := sk.BindWorld[j]
		if p := sk.Parents[j]; p >= 0 {
			if pi, ok := sk.BindWorld[p].Inverse(); ok {
				l = pi.Mul(l)
			}
		}
		local[j].t, local[j].r, local[j].s = vecmath.DecomposeTRS(l)
	}
	return local
}

// AnimatedWorld returns the joint world transforms of animation a at time t
// (clamped to its keys): each joint's bind local transform with the animated
// translation, rotation and scale substituted, composed down the hierarchy (roots in
// the skeleton's world frame, as assets.Load stores their channels). It is the one
// posing path of animations: retargeting, the viewer and the checks use it.
func AnimatedWorld(sk *character.Skeleton, a character.Animation, t float64) []vecmath.Mat4 {
	return animatedWorldFrom(sk, bindLocals(sk), a, t)
}

// animatedWorldFrom is AnimatedWorld with the bind locals computed once.
func animatedWorldFrom(sk *character.Skeleton, bind []trs, a character.Animation, t float64) []vecmath.Mat4 {
	n := sk.NumJoints()
	local := append([]trs(nil), bind...)
	for _, ch := range a.Channels {
		if ch.Joint < 0 || ch.Joint >= n {
			continue
		}
		switch ch.Path {
		case "translation":
			if v, ok := ch.Sample(t, 3); ok {
				local[ch.Joint].t = vecmath.Vec3{v[0], v[1], v[2]}
			}
		case "scale":
			if v, ok := ch.Sample(t, 3); ok {
				local[ch.Joint].s = vecmath.Vec3{v[0], v[1], v[2]}
			}
		case "rotation":
			if v, ok := ch.Sample(t, 4); ok {
				local[ch.Joint].r = norm(quat{v[0], v[1], v[2], v[3]})
			}
		}
	}
	world := make([]vecmath.Mat4, n)
	for j := 0; j < n; j++ {
		m := vecmath.TRS(local[j].t, local[j].r, local[j].s)
		if p := sk.Parents[j]; p >= 0 {
			m = world[p].Mul(m)
		}
		world[j] = m
	}
	return world
}
