package viewer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// animationDuration returns the time of an animation's last key in seconds.
func animationDuration(a character.Animation) float64 {
	d := 0.0
	for _, ch := range a.Channels {
		if n := len(ch.Times); n > 0 {
			d = math.Max(d, ch.Times[n-1])
		}
	}
	return d
}

// findAnimation returns the index of c's animation called name, or numbered name
// (from 0) when no animation has that name.
func findAnimation(c *character.Character, name string) (int, error) {
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

// quatMul returns the Hamilton product a·b (b applied first).
func quatMul(a, b vecmath.Quat) vecmath.Quat {
	return vecmath.Quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// rotateJoint returns pose with joint j turned by angle radians about the world
// axis through the joint (the rotation is stored in the joint's local frame, as
// character.Pose expects).
func rotateJoint(sk *character.Skeleton, pose character.Pose, j int, worldAxis vecmath.Vec3, angle float64) character.Pose {
	if j < 0 || j >= sk.NumJoints() || angle == 0 {
		return pose
	}
	out := append(character.Pose(nil), pose...)
	for len(out) < sk.NumJoints() {
		out = append(out, vecmath.Quat{0, 0, 0, 1})
	}
	w := sk.PosedWorld(out)[j]
	// Local axis = inverse(rotation part of w) · worldAxis; columns of w may be scaled.
	var cols [3]vecmath.Vec3
	for c := 0; c < 3; c++ {
		cols[c] = vecmath.Vec3{w[4*c], w[4*c+1], w[4*c+2]}.Normalize()
	}
	local := vecmath.Vec3{cols[0].Dot(worldAxis), cols[1].Dot(worldAxis), cols[2].Dot(worldAxis)}
	if w.Det() < 0 {
		angle = -angle
	}
	out[j] = quatMul(out[j], vecmath.QuatAxisAngle(local, angle))
	return out
}
