package animation

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// DefaultFPS is the sampling rate of the baked glTF channels.
const DefaultFPS = 30

// Options control how motion is baked onto a rig.
type Options struct {
	FPS  float64 // key samples per second; 0 means DefaultFPS
	Name string  // animation name; "" keeps the clip's (or the source animation's) name
	// InPlace keeps the hips over their bind position: root motion keeps only its
	// up-down part (the bob of a walk), for games that move the character
	// themselves.
	InPlace bool
	// Force retargets between skeletons whose names say different kinds.
	Force bool
}

// Report says how a motion fit a rig.
type Report struct {
	Animation string   `json:"animation"`
	Kind      string   `json:"kind"`
	Duration  float64  `json:"duration"`
	Matched   []string `json:"matched"` // the motion's joints found on the rig
	Missing   []string `json:"missing"` // the motion's joints the rig lacks (skipped)
	// Unmatched are the rig's joints whose names the kind's scheme does not know
	// (docs/naming.md); they follow their parents.
	Unmatched []string `json:"unmatched"`
	// RootMotion says the Hips joint got a translation channel.
	RootMotion bool    `json:"root_motion"`
	HipHeight  float64 `json:"hip_height"` // of the rig, in its units
	Channels   int     `json:"channels"`
}

// Apply bakes a clip onto a rigged character's skeleton. Joints are matched by
// CanonicalName; the clip's joints the rig lacks are skipped and listed in the
// report. It fails when the skeleton matches none of the clip's joints.
func Apply(c *character.Character, clip *Clip, o Options) (character.Animation, Report, error) {
	if c == nil || c.Skeleton.NumJoints() == 0 {
		return character.Animation{}, Report{}, fmt.Errorf("apply %q: the character has no skeleton", clip.Name)
	}
	b, err := newBinding(c.Skeleton, clip.Rest)
	if err != nil {
		return character.Animation{}, Report{}, fmt.Errorf("apply %q: %w", clip.Name, err)
	}
	rep := Report{Animation: clip.Name, Kind: clip.Kind, Duration: clip.Duration, HipHeight: b.hipHeight}
	var names []string
	for name := range clip.Joints {
		names = append(names, name)
	}
	if len(clip.Root) > 0 {
		names = append(names, "Hips")
	}
	rep.Matched, rep.Missing = match(b, names)
	rep.Unmatched = unmatched(b, clip.Kind)
	if len(rep.Matched) == 0 {
		return character.Animation{}, rep, fmt.Errorf("apply %q: the skeleton has none of the clip's joints (%s); its names are %s",
			clip.Name, strings.Join(rep.Missing, ", "), sample(c.Skeleton.Names, 8))
	}
	at := func(t float64) pose {
		p := pose{abs: clip.absolute(t)}
		if len(clip.Root) > 0 {
			p.root, p.hasRoot = vecmath.Vec3(clip.sample(clip.Root, t)), true
		}
		return p
	}
	name := o.Name
	if name == "" {
		name = clip.Name
	}
	anim := bake(b, name, clip.Duration, o, at)
	rep.RootMotion = len(clip.Root) > 0 && b.hips >= 0
	rep.Channels = len(anim.Channels)
	return anim, rep, nil
}

// match splits motion joint names into those the rig has and those it lacks.
func match(b *binding, names []string) (found, missing []string) {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if _, ok := b.idx[n]; ok {
			found = append(found, n)
		} else {
			missing = append(missing, n)
		}
	}
	sort.Strings(found)
	sort.Strings(missing)
	return found, missing
}

// unmatched lists the rig's joints whose canonical names kind's hierarchy lacks.
func unmatched(b *binding, kind string) []string {
	var out []string
	for j, c := range b.canon {
		if _, ok := canonParent[kind][c]; !ok || b.idx[c] != j {
			out = append(out, b.sk.Names[j])
		}
	}
	return out
}

// bake samples a motion at fps over [0, duration] and keeps, per joint, a rotation
// channel when the joint moves, a translation channel for Hips under root motion,
// and one for each foot that does not hang below its leg (footChannels).
func bake(b *binding, name string, duration float64, o Options, at func(t float64) pose) character.Animation {
	fps := o.FPS
	if !(fps > 0) {
		fps = DefaultFPS
	}
	n := max(2, int(math.Ceil(duration*fps-1e-9))+1)
	nj := b.sk.NumJoints()
	times := make([]float64, n)
	rots := make([][]float64, nj)
	var trans []float64
	moved := make([]bool, nj)
	rootMoves := false
	for k := 0; k < n; k++ {
		t := duration * float64(k) / float64(n-1)
		times[k] = t
		p := at(t)
		if o.InPlace {
			p.root[0], p.root[2] = 0, 0
		}
		local, hipT := b.local(p)
		for j, q := range local {
			if k > 0 {
				prev := rots[j][4*(k-1):]
				if q[0]*prev[0]+q[1]*prev[1]+q[2]*prev[2]+q[3]*prev[3] < 0 {
					q = quat{-q[0], -q[1], -q[2], -q[3]}
				}
			}
			if angle(mul(inv(b.localRot[j]), q)) > 1e-6 {
				moved[j] = true
			}
			rots[j] = append(rots[j], q[0], q[1], q[2], q[3])
		}
		if b.hips >= 0 && p.hasRoot {
			trans = append(trans, hipT[0], hipT[1], hipT[2])
			if hipT.Dist(b.localT[b.hips]) > 1e-9 {
				rootMoves = true
			}
		}
	}
	anim := character.Animation{Name: name}
	for j := 0; j < nj; j++ {
		if moved[j] {
			anim.Channels = append(anim.Channels, character.AnimationChannel{Joint: j, Path: "rotation",
				Times: append([]float64(nil), times...), Values: rots[j]})
		}
	}
	if rootMoves {
		anim.Channels = append(anim.Channels, character.AnimationChannel{Joint: b.hips, Path: "translation",
			Times: append([]float64(nil), times...), Values: trans})
	}
	anim.Channels = append(anim.Channels, b.footChannels(anim, times)...)
	return anim
}

// ikFeet lists the rig's feet that do not hang below their legs, each with its
// leg: rigs made for inverse kinematics (the Quaternius scheme's feet hang from
// the root) leave the feet where they stand when the legs turn, so the motion
// must carry them (footChannels).
func (b *binding) ikFeet() [][2]int {
	var out [][2]int
	for _, side := range []string{"Left", "Right"} {
		f, okF := b.idx[side+"Foot"]
		l, okL := b.idx[side+"Leg"]
		if !okF || !okL {
			continue
		}
		below := false
		for j := b.sk.Parents[f]; j >= 0 && !below; j = b.sk.Parents[j] {
			below = j == l
		}
		if !below {
			out = append(out, [2]int{f, l})
		}
	}
	return out
}

// footChannels returns a translation channel per foot of ikFeet that keeps the
// foot where its leg carries it: at every key, the foot's bind offset from its
// leg, posed with the leg by anim, expressed in the foot's posed parent.
func (b *binding) footChannels(anim character.Animation, times []float64) []character.AnimationChannel {
	feet := b.ikFeet()
	if len(feet) == 0 {
		return nil
	}
	bind := bindLocals(b.sk)
	offsets := make([]vecmath.Vec3, len(feet))
	for i, fl := range feet {
		if inv, ok := b.sk.BindWorld[fl[1]].Inverse(); ok {
			offsets[i] = inv.Point(b.sk.Position(fl[0]))
		}
	}
	values := make([][]float64, len(feet))
	for _, t := range times {
		world := animatedWorldFrom(b.sk, bind, anim, t)
		for i, fl := range feet {
			at := world[fl[1]].Point(offsets[i])
			if par := b.sk.Parents[fl[0]]; par >= 0 {
				if inv, ok := world[par].Inverse(); ok {
					at = inv.Point(at)
				}
			}
			values[i] = append(values[i], at[0], at[1], at[2])
		}
	}
	out := make([]character.AnimationChannel, len(feet))
	for i, fl := range feet {
		out[i] = character.AnimationChannel{Joint: fl[0], Path: "translation", Times: append([]float64(nil), times...), Values: values[i]}
	}
	return out
}

// absolute composes the clip's turns at time t down the hierarchy of its kind: each
// named joint's rotation from the canonical rest pose, in the character's frame.
func (c *Clip) absolute(t float64) map[string]quat {
	parents := canonParent[c.Kind]
	abs := make(map[string]quat, len(parents)+len(c.Joints))
	var get func(name string, depth int) quat
	get = func(name string, depth int) quat {
		if q, ok := abs[name]; ok {
			return q
		}
		q := identity
		if keys, ok := c.Joints[name]; ok {
			q = euler(c.sample(keys, t))
		}
		if p, ok := parents[name]; ok && p != "" && depth < len(parents) {
			q = mul(get(p, depth+1), q)
		}
		abs[name] = q
		return q
	}
	for name := range parents {
		get(name, 0)
	}
	for name := range c.Joints {
		get(name, 0)
	}
	return abs
}
