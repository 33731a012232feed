package animation

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Posture limits: a posed character's extent along its rest up axis stays within
// [MinUpright, MaxUpright] × its rest height, and no extent exceeds MaxGrowth × the
// largest rest extent. A clip that lays the character down, folds it up or flings
// vertices away breaks them; walking, running, waving and crouching do not.
const (
	MinUpright = 0.6
	MaxUpright = 1.4
	MaxGrowth  = 2.0
)

// PostureSamples is how many evenly spaced times of a clip CheckPosture looks at.
const PostureSamples = 5

// CheckKind says whether a skeleton's shape fits a clip kind, measured along its
// rest up axis (restUp): a humanoid's lowest joints spread less than half its
// height, and its head is above its hips. named says the skeleton's names are
// its own (a naming scheme its author or `rig auto` chose), not guessed from its
// shape: a humanoid so named is held only to a spread front to back (when its
// left and right joints tell front from side), since a squat mech or a chibi
// stands with its feet wide apart and only front and hind feet a body apart
// contradict its names; a shape guess (a frog's splayed legs read as a biped's)
// keeps the spread in any direction. A quadruped's front and hind feet are at least 0.4 hip heights apart (without
// named legs, its lowest joints spread at least half its height).
// It guards against motion of one kind applied to a rig whose joint names say
// another (a wolf whose joints were named as a biped's).
func CheckKind(sk *character.Skeleton, kind string, named bool) error {
	if sk == nil || sk.NumJoints() < 3 {
		return fmt.Errorf("the rig has too few joints for a %s clip", kind)
	}
	idx := jointIndex(sk)
	f := characterFrame(sk, idx)
	pos := sk.Positions()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pos {
		h := p.Dot(f.up)
		lo, hi = math.Min(lo, h), math.Max(hi, h)
	}
	height := hi - lo
	if !(height > 0) {
		return fmt.Errorf("the rig is flat along its up axis %v", f.up)
	}
	spread := lowSpread(pos, f.up, lo, height, vecmath.Vec3{}) / height
	switch kind {
	case Humanoid:
		along, way := spread, ""
		if named && f.sided {
			along, way = lowSpread(pos, f.up, lo, height, f.fwd)/height, " front to back"
		}
		if along >= 0.5 {
			return fmt.Errorf("the rig is not shaped as a humanoid: its lowest joints spread %.2f× its height%s (a biped's feet, under 0.5×)", along, way)
		}
		h, okH := idx["Hips"]
		hd, okD := idx["Head"]
		if okH && okD && pos[hd].Sub(pos[h]).Dot(f.up) < 0.15*height {
			return fmt.Errorf("the rig is not shaped as a humanoid: its Head is not above its Hips along its up axis %v", f.up)
		}
	case Quadruped:
		if r, ok := footSpan(idx, pos, f.up, lo); ok {
			if r < 0.4 {
				return fmt.Errorf("the rig is not shaped as a quadruped: its front and hind feet are %.2f× its hip height apart (at least 0.4×)", r)
			}
		} else if spread < 0.5 {
			return fmt.Errorf("the rig is not shaped as a quadruped: its lowest joints spread %.2f× its height (front and hind feet, at least 0.5×)", spread)
		}
	default:
		return fmt.Errorf("unknown clip kind %q", kind)
	}
	return nil
}

// footSpan is the horizontal distance between the mean front foot and the mean
// hind foot (the lowest named joint of each leg) over the hips' height above lo:
// a quadruped stands on feet a body length apart, however tall its neck.
func footSpan(idx map[string]int, pos []vecmath.Vec3, up vecmath.Vec3, lo float64) (float64, bool) {
	h, ok := idx["Hips"]
	if !ok {
		return 0, false
	}
	mean := func(part string) (vecmath.Vec3, bool) {
		var sum vecmath.Vec3
		n := 0
		for _, side := range []string{"Left", "Right"} {
			for _, seg := range []string{"Foot", "Leg", "UpLeg"} {
				if j, ok := idx[side+part+seg]; ok {
					sum, n = sum.Add(pos[j]), n+1
					break
				}
			}
		}
		return sum.Scale(1 / math.Max(1, float64(n))), n > 0
	}
	front, okF := mean("Front")
	hind, okH := mean("Hind")
	hip := pos[h].Dot(up) - lo
	if !okF || !okH || !(hip > 0) {
		return 0, false
	}
	d := front.Sub(hind)
	d = d.Sub(up.Scale(d.Dot(up)))
	return d.Len() / hip, true
}

// lowSpread is the largest horizontal distance between two joints in the lowest
// 15% of the height, or along dir when it is not zero (a unit direction
// across up).
func lowSpread(pos []vecmath.Vec3, up vecmath.Vec3, lo, height float64, dir vecmath.Vec3) float64 {
	var low []vecmath.Vec3
	for _, p := range pos {
		if h := p.Dot(up); h < lo+0.15*height {
			low = append(low, p.Sub(up.Scale(h)))
		}
	}
	best := 0.0
	for i := range low {
		for k := i + 1; k < len(low); k++ {
			d := low[i].Sub(low[k])
			if dir != (vecmath.Vec3{}) {
				best = math.Max(best, math.Abs(d.Dot(dir)))
			} else {
				best = math.Max(best, d.Len())
			}
		}
	}
	return best
}

// PostureTimes returns n evenly spaced times over [0, duration], ends included.
func PostureTimes(duration float64, n int) []float64 {
	if n < 2 {
		return []float64{0}
	}
	out := make([]float64, n)
	for k := range out {
		out[k] = duration * float64(k) / float64(n-1)
	}
	return out
}

// CheckPosture poses the character's skinned vertices with animation a at times
// (linear blend skinning over AnimatedWorld) and fails, naming the animation and
// the time, where the pose is no longer upright and sized: its extent along the
// rest up axis leaves [MinUpright, MaxUpright] × the rest height, an extent along
// the character's axes exceeds MaxGrowth × the largest rest extent, or (for a
// skeleton with named hips and feet) the feet-to-hips direction turns more than
// 60° from the rest up axis. It is the
// check that a retargeted clip plays as a viewer would show it.
func CheckPosture(c *character.Character, a character.Animation, times []float64) error {
	if c == nil || c.Skin == nil || c.Skeleton.NumJoints() == 0 || len(c.Mesh.Positions) == 0 {
		return fmt.Errorf("posture of %q: the character has no skinned mesh", a.Name)
	}
	f := characterFrame(c.Skeleton, jointIndex(c.Skeleton))
	axes := [3]vecmath.Vec3{f.left, f.up, f.fwd}
	rest := extents(c.Mesh.Positions, axes)
	largest := math.Max(rest[0], math.Max(rest[1], rest[2]))
	if !(rest[1] > 0) {
		return fmt.Errorf("posture of %q: the mesh is flat along its up axis %v", a.Name, f.up)
	}
	legs := legJoints(c.Skeleton)
	inv := make([]vecmath.Mat4, c.Skeleton.NumJoints())
	for j, m := range c.Skeleton.BindWorld {
		inv[j], _ = m.Inverse()
	}
	for _, t := range times {
		world := AnimatedWorld(c.Skeleton, a, t)
		posed := skinned(c, world, inv)
		e := extents(posed, axes)
		if r := e[1] / rest[1]; !(r >= MinUpright && r <= MaxUpright) {
			return fmt.Errorf("animation %q at %.3f s: the character's height along its rest up axis is %.2f× its rest height (want %.1f–%.1f×): it no longer stands upright",
				a.Name, t, r, MinUpright, MaxUpright)
		}
		if legs != nil && standing(world, legs).Dot(f.up) < 0.5 {
			return fmt.Errorf("animation %q at %.3f s: the character stands on its head or lies down: its feet-to-hips direction is more than 60° from its rest up axis",
				a.Name, t)
		}
		for k, name := range []string{"left-right", "up", "front-back"} {
			if !(e[k] <= MaxGrowth*largest) {
				return fmt.Errorf("animation %q at %.3f s: the character's %s extent is %.2f× its largest rest extent (at most %.1f×)",
					a.Name, t, name, e[k]/largest, MaxGrowth)
			}
		}
	}
	return nil
}

// legJoints returns the Hips joint followed by the feet (hind feet of a
// quadruped), or nil when the skeleton lacks them.
func legJoints(sk *character.Skeleton) []int {
	idx := jointIndex(sk)
	h, ok := idx["Hips"]
	if !ok {
		return nil
	}
	out := []int{h}
	for _, f := range []string{"LeftFoot", "RightFoot", "LeftHindFoot", "RightHindFoot"} {
		if j, ok := idx[f]; ok {
			out = append(out, j)
		}
	}
	if len(out) == 1 {
		return nil
	}
	return out
}

// standing is the unit direction from the mean of the posed feet to the posed
// hips (legs[0]).
func standing(world []vecmath.Mat4, legs []int) vecmath.Vec3 {
	var feet vecmath.Vec3
	for _, j := range legs[1:] {
		feet = feet.Add(world[j].Translation())
	}
	d := world[legs[0]].Translation().Sub(feet.Scale(1 / float64(len(legs)-1)))
	if d.Len() < 1e-12 {
		return vecmath.Vec3{}
	}
	return d.Normalize()
}

// skinned returns the vertices posed by linear blend skinning.
func skinned(c *character.Character, world, invBind []vecmath.Mat4) []vecmath.Vec3 {
	mats := make([]vecmath.Mat4, len(world))
	for j := range world {
		mats[j] = world[j].Mul(invBind[j])
	}
	out := make([]vecmath.Vec3, len(c.Mesh.Positions))
	for v, p := range c.Mesh.Positions {
		if v >= len(c.Skin.Weights) || len(c.Skin.Weights[v]) == 0 {
			out[v] = p
			continue
		}
		for _, in := range c.Skin.Weights[v] {
			if in.Joint >= 0 && in.Joint < len(mats) {
				out[v] = out[v].Add(mats[in.Joint].Point(p).Scale(in.Weight))
			}
		}
	}
	return out
}

// extents returns the extent of the points along each axis.
func extents(ps []vecmath.Vec3, axes [3]vecmath.Vec3) [3]float64 {
	var out [3]float64
	for k, ax := range axes {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range ps {
			d := p.Dot(ax)
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
		out[k] = hi - lo
	}
	return out
}
