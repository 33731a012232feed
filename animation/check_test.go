package animation_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/fixtures"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// rootChannel is an animation of the root joint holding one value from 0 to 1 s.
func rootChannel(name, path string, root int, v []float64) character.Animation {
	return character.Animation{Name: name, Channels: []character.AnimationChannel{{
		Joint: root, Path: path, Times: []float64{0, 1}, Values: append(append([]float64(nil), v...), v...)}}}
}

// TestCheckPosture poses a humanoid with a walk, with its root laid down, folded,
// blown up and sent flying, and checks which poses pass and that a failure names
// the animation and the time.
func TestCheckPosture(t *testing.T) {
	c, err := fixtures.SynthBiped(3, 1200)
	if err != nil {
		t.Fatal(err)
	}
	walk, err := animation.Lookup("walk", animation.Humanoid)
	if err != nil {
		t.Fatal(err)
	}
	walked, _, err := animation.Apply(c, walk, animation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := 0
	bind := c.Skeleton.BindWorld[root].Translation()
	s := math.Sqrt(0.5)
	cases := []struct {
		name string
		anim character.Animation
		want string // "" passes
	}{
		{"walk", walked, ""},
		{"laid down", rootChannel("lie", "rotation", root, []float64{s, 0, 0, s}), `animation "lie" at 0.000 s: the character's height along its rest up axis`},
		{"upside down", rootChannel("flip", "rotation", root, []float64{1, 0, 0, 0}), `animation "flip" at 0.000 s: the character stands on its head`},
		{"blown up", rootChannel("grow", "scale", root, []float64{3, 3, 3}), `animation "grow" at 0.000 s`},
		{"shrunk", rootChannel("shrink", "scale", root, []float64{0.5, 0.5, 0.5}), "no longer stands upright"},
		{"moved away", rootChannel("away", "translation", root, []float64{bind[0] + 50, bind[1], bind[2]}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := animation.CheckPosture(c, tc.anim, animation.PostureTimes(1, animation.PostureSamples))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want a pass, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestCheckKind checks the shape test on a biped and a quadruped, each against
// both kinds.
func TestCheckKind(t *testing.T) {
	biped, err := fixtures.SynthBiped(4, 800)
	if err != nil {
		t.Fatal(err)
	}
	quad, err := synth.Generate("quadruped", 4, synth.Options{TargetVertices: 800})
	if err != nil {
		t.Fatal(err)
	}
	// A biped whose arms and legs carry a quadruped's leg names.
	asQuad := biped.Skeleton.Clone()
	rename := map[string]string{"arm_%s_upper": "%sFrontUpLeg", "arm_%s_lower": "%sFrontLeg", "hand_%s": "%sFrontFoot",
		"leg_%s_upper": "%sHindUpLeg", "leg_%s_lower": "%sHindLeg", "foot_%s": "%sHindFoot"}
	for j, n := range asQuad.Names {
		for from, to := range rename {
			for s, side := range map[string]string{"l": "Left", "r": "Right"} {
				if n == fmt.Sprintf(from, s) {
					asQuad.Names[j] = fmt.Sprintf(to, side)
				}
			}
		}
	}
	if kind, err := animation.DetectKind(asQuad); err != nil || kind != animation.Quadruped {
		t.Fatalf("the renamed biped is detected as %q, %v", kind, err)
	}
	// A quadruped whose legs end at the knees (no joint named as a foot).
	kneeless := quad.Skeleton.Clone()
	for j, n := range kneeless.Names {
		if strings.HasSuffix(n, "_foot") || strings.HasSuffix(n, "_toe") {
			kneeless.Names[j] = "paw_" + n
		}
	}
	cases := []struct {
		name    string
		sk      *character.Skeleton
		kind    string
		want    string
		guessed bool // names guessed from the shape
	}{
		{"wide-stance biped as humanoid", wideStance(biped.Skeleton, 0.45), animation.Humanoid, "", false},
		{"wide-stance biped, names guessed", wideStance(biped.Skeleton, 0.45), animation.Humanoid, "not shaped as a humanoid", true},
		{"quadruped named as a biped", quadAsBiped(quad.Skeleton), animation.Humanoid, "front to back", false},
		{"quadruped without feet", kneeless, animation.Quadruped, "", false},
		{"biped named as a quadruped", asQuad, animation.Quadruped, "front and hind feet are", false},
		{"biped as humanoid", biped.Skeleton, animation.Humanoid, "", false},
		{"biped as quadruped", biped.Skeleton, animation.Quadruped, "not shaped as a quadruped", false},
		{"quadruped as quadruped", quad.Skeleton, animation.Quadruped, "", false},
		{"quadruped as humanoid", quad.Skeleton, animation.Humanoid, "not shaped as a humanoid", false},
		{"unknown kind", biped.Skeleton, "fish", "unknown clip kind", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := animation.CheckKind(tc.sk, tc.kind, !tc.guessed)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// wideStance returns sk with every joint below the hips moved sideways (along X)
// so that the feet stand half apart by half (times the height) from the middle:
// a squat mech's or a chibi's stance.
func wideStance(sk *character.Skeleton, half float64) *character.Skeleton {
	out := sk.Clone()
	pos := out.Positions()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pos {
		lo, hi = math.Min(lo, p[1]), math.Max(hi, p[1])
	}
	hips := pos[0][1]
	maxX := 0.0
	for _, p := range pos {
		if p[1] < hips {
			maxX = math.Max(maxX, math.Abs(p[0]))
		}
	}
	for j, p := range pos {
		if p[1] < hips && maxX > 0 {
			p[0] *= half * (hi - lo) / maxX
			out.BindWorld[j][12] = p[0]
		}
	}
	return out
}

// quadAsBiped returns a quadruped skeleton whose hind legs carry a biped's leg
// names and whose front legs its arm names: a wolf named as a biped.
func quadAsBiped(sk *character.Skeleton) *character.Skeleton {
	out := sk.Clone()
	rename := map[string]string{"leg_bl_upper": "LeftUpLeg", "leg_bl_lower": "LeftLeg", "leg_bl_foot": "LeftFoot",
		"leg_br_upper": "RightUpLeg", "leg_br_lower": "RightLeg", "leg_br_foot": "RightFoot",
		"leg_fl_upper": "LeftArm", "leg_fl_lower": "LeftForeArm", "leg_fl_foot": "LeftHand",
		"leg_fr_upper": "RightArm", "leg_fr_lower": "RightForeArm", "leg_fr_foot": "RightHand"}
	for j, n := range out.Names {
		if to, ok := rename[n]; ok {
			out.Names[j] = to
		}
	}
	return out
}

// TestIKFeetFollowLegs: a biped whose feet hang from a root on the floor, as rigs
// made for inverse kinematics hang them, walks with its feet where the same biped
// with its feet below its legs puts them (footChannels); without their translation
// channels the feet would stay where they stand.
func TestIKFeetFollowLegs(t *testing.T) {
	fk, err := fixtures.FloorRootBiped()
	if err != nil {
		t.Fatal(err)
	}
	ik := fk.Clone()
	for j, n := range ik.Skeleton.Names {
		if n == "foot_l" || n == "foot_r" {
			ik.Skeleton.Parents[j] = 0 // the floor root
		}
	}
	if err := ik.Skeleton.Validate(); err != nil {
		t.Fatal(err)
	}
	clip, err := animation.Lookup("walk", animation.Humanoid)
	if err != nil {
		t.Fatal(err)
	}
	worlds := map[string]func(float64) []vecmath.Mat4{}
	for name, c := range map[string]*character.Character{"fk": fk, "ik": ik} {
		anim, _, err := animation.Apply(c, clip, animation.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sk := c.Skeleton
		worlds[name] = func(tm float64) []vecmath.Mat4 { return animation.AnimatedWorld(sk, anim, tm) }
	}
	lo, hi := fk.Mesh.Bounds()
	height := hi[1] - lo[1]
	worst := 0.0
	// At the keys; between them the IK feet's translations interpolate linearly, up
	// to 0.1% of the height off the FK feet's arcs at 30 keys a second.
	for k := 0; float64(k) <= clip.Duration*animation.DefaultFPS; k++ {
		tm := float64(k) / animation.DefaultFPS
		a, b := worlds["fk"](tm), worlds["ik"](tm)
		for j, n := range fk.Skeleton.Names {
			if n == "foot_l" || n == "foot_r" {
				worst = max(worst, a[j].Translation().Dist(b[j].Translation())/height)
			}
		}
	}
	if worst > 1e-6 {
		t.Errorf("the IK rig's feet stand up to %.4f of the height from the FK rig's", worst)
	}
}
