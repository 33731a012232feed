package viewer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/assets"
)

// Duration returns the time of an animation's last key in seconds.
func Duration(a assets.Animation) float64 {
	d := 0.0
	for _, ch := range a.Channels {
		if n := len(ch.Times); n > 0 {
			d = math.Max(d, ch.Times[n-1])
		}
	}
	return d
}

// FindAnimation returns the index of c's animation called name, or numbered name
// (from 0) when no animation has that name.
func FindAnimation(c *assets.Character, name string) (int, error) {
	for i, a := range c.Animations {
		if a.Name == name {
			return i, nil
		}
	}
	if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(c.Animations) {
		return i, nil
	}
	names := make([]string, len(c.Animations))
	for i, a := range c.Animations {
		names[i] = a.Name
	}
	return -1, fmt.Errorf("%s has no animation %q (%d animations: %s)", c.Name, name, len(c.Animations), strings.Join(names, ", "))
}

// AnimatedWorld returns the joint world transforms of animation a at time t
// (clamped to its keys): each joint's bind-pose local transform with the animated
// translation, rotation and scale substituted, composed down the hierarchy. Root
// channels are in the skeleton's world frame, as assets.Load stores them.
func AnimatedWorld(sk *assets.Skeleton, a assets.Animation, t float64) []assets.Mat4 {
	n := sk.NumJoints()
	type trs struct {
		t assets.Vec3
		r assets.Quat
		s assets.Vec3
	}
	local := make([]trs, n)
	for j := 0; j < n; j++ {
		l := sk.BindWorld[j]
		if p := sk.Parents[j]; p >= 0 {
			if inv, ok := sk.BindWorld[p].Inverse(); ok {
				l = inv.Mul(l)
			}
		}
		local[j].t, local[j].r, local[j].s = assets.DecomposeTRS(l)
	}
	for _, ch := range a.Channels {
		if ch.Joint < 0 || ch.Joint >= n {
			continue
		}
		switch ch.Path {
		case "translation":
			if v, ok := sampleVec(ch, t, 3); ok {
				local[ch.Joint].t = assets.Vec3{v[0], v[1], v[2]}
			}
		case "scale":
			if v, ok := sampleVec(ch, t, 3); ok {
				local[ch.Joint].s = assets.Vec3{v[0], v[1], v[2]}
			}
		case "rotation":
			if v, ok := sampleVec(ch, t, 4); ok {
				local[ch.Joint].r = assets.Quat{v[0], v[1], v[2], v[3]}
			}
		}
	}
	world := make([]assets.Mat4, n)
	for j := 0; j < n; j++ {
		m := assets.TRS(local[j].t, local[j].r, local[j].s)
		if p := sk.Parents[j]; p >= 0 {
			m = world[p].Mul(m)
		}
		world[j] = m
	}
	return world
}

// sampleVec interpolates a channel's n-vector at time t, linearly (rotations take
// the shorter way and are renormalized).
func sampleVec(ch assets.AnimationChannel, t float64, n int) ([]float64, bool) {
	k := len(ch.Times)
	if k == 0 || len(ch.Values) < n*k {
		return nil, false
	}
	at := func(i int) []float64 { return ch.Values[n*i : n*i+n] }
	if t <= ch.Times[0] {
		return at(0), true
	}
	if t >= ch.Times[k-1] {
		return at(k - 1), true
	}
	i := 0
	for i+1 < k && ch.Times[i+1] < t {
		i++
	}
	u := (t - ch.Times[i]) / (ch.Times[i+1] - ch.Times[i])
	a, b := at(i), at(i+1)
	sign := 1.0
	if n == 4 {
		dot := 0.0
		for c := 0; c < 4; c++ {
			dot += a[c] * b[c]
		}
		if dot < 0 {
			sign = -1
		}
	}
	out := make([]float64, n)
	for c := range out {
		out[c] = a[c]*(1-u) + sign*b[c]*u
	}
	if n == 4 {
		l := math.Sqrt(out[0]*out[0] + out[1]*out[1] + out[2]*out[2] + out[3]*out[3])
		if l > 0 {
			for c := range out {
				out[c] /= l
			}
		}
	}
	return out, true
}

// quatMul returns the Hamilton product a·b (b applied first).
func quatMul(a, b assets.Quat) assets.Quat {
	return assets.Quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// RotateJoint returns pose with joint j turned by angle radians about the world
// axis through the joint (the rotation is stored in the joint's local frame, as
// assets.Pose expects).
func RotateJoint(sk *assets.Skeleton, pose assets.Pose, j int, worldAxis assets.Vec3, angle float64) assets.Pose {
	if j < 0 || j >= sk.NumJoints() || angle == 0 {
		return pose
	}
	out := append(assets.Pose(nil), pose...)
	for len(out) < sk.NumJoints() {
		out = append(out, assets.Quat{0, 0, 0, 1})
	}
	w := sk.PosedWorld(out)[j]
	// Local axis = inverse(rotation part of w) · worldAxis; columns of w may be scaled.
	var cols [3]assets.Vec3
	for c := 0; c < 3; c++ {
		cols[c] = assets.Vec3{w[4*c], w[4*c+1], w[4*c+2]}.Normalize()
	}
	local := assets.Vec3{cols[0].Dot(worldAxis), cols[1].Dot(worldAxis), cols[2].Dot(worldAxis)}
	if w.Det() < 0 {
		angle = -angle
	}
	out[j] = quatMul(out[j], assets.QuatAxisAngle(local, angle))
	return out
}
