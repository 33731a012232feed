package animation

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

func generate(t testing.TB, kind string, seed int64) *character.Character {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 1500})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reorient gives every joint a random bind rotation while keeping its position,
// and optionally a "mixamorig:" prefix: the same rig as a tool with oriented
// joints would write it.
func reorient(c *character.Character, seed int64, prefix string) *character.Character {
	o := c.Clone()
	rng := rand.New(rand.NewSource(seed))
	for j := range o.Skeleton.Names {
		p := o.Skeleton.Position(j)
		q := character.RandomPose(rng, 1, math.Pi)[0]
		o.Skeleton.BindWorld[j] = vecmath.TRS(p, q, vecmath.Vec3{1, 1, 1})
		o.Skeleton.Names[j] = prefix + o.Skeleton.Names[j]
	}
	return o
}

func positionsAt(c *character.Character, a character.Animation, t float64) []vecmath.Vec3 {
	w := AnimatedWorld(c.Skeleton, a, t)
	out := make([]vecmath.Vec3, len(w))
	for j := range w {
		out[j] = w[j].Translation()
	}
	return out
}

func joint(t testing.TB, c *character.Character, canon string) int {
	t.Helper()
	j, ok := jointIndex(c.Skeleton)[canon]
	if !ok {
		t.Fatalf("%s has no joint %s", c.Name, canon)
	}
	return j
}

func TestBuiltinClips(t *testing.T) {
	want := map[string]bool{"humanoid/walk": true, "humanoid/run": true, "humanoid/idle": true,
		"humanoid/crouch": true, "humanoid/arms_up": true,
		"humanoid/wave": true, "quadruped/walk": true}
	for _, c := range Clips() {
		delete(want, c.Kind+"/"+c.Name)
		if !c.Loop {
			continue
		}
		for name, keys := range c.Joints {
			a, b := c.sample(keys, 0), c.sample(keys, c.Duration)
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-9 {
					t.Errorf("%s/%s: %s at 0 is %v, at the end %v: the loop does not close", c.Kind, c.Name, name, a, b)
				}
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("missing built-in clips: %v", want)
	}
}

func TestSamplePassesThroughKeys(t *testing.T) {
	for _, c := range Clips() {
		for name, keys := range c.Joints {
			for _, k := range keys {
				got := c.sample(keys, k[0])
				for a := 0; a < 3; a++ {
					if math.Abs(got[a]-k[a+1]) > 1e-9 {
						t.Fatalf("%s/%s %s at %v: %v, key says %v", c.Kind, c.Name, name, k[0], got, k[1:])
					}
				}
			}
		}
	}
}

func TestParseClipErrors(t *testing.T) {
	cases := []struct{ name, json, want string }{
		{"not json", `{`, "clip:"},
		{"unknown field", `{"name":"a","kind":"humanoid","duration":1,"joints":{"Hips":[[0,0,0,0]]},"speed":2}`, "unknown field"},
		{"no name", `{"kind":"humanoid","duration":1,"joints":{"Hips":[[0,0,0,0]]}}`, "no name"},
		{"bad kind", `{"name":"a","kind":"fish","duration":1,"joints":{"Hips":[[0,0,0,0]]}}`, "kind"},
		{"zero duration", `{"name":"a","kind":"humanoid","duration":0,"joints":{"Hips":[[0,0,0,0]]}}`, "duration"},
		{"no tracks", `{"name":"a","kind":"humanoid","duration":1}`, "no tracks"},
		{"empty track", `{"name":"a","kind":"humanoid","duration":1,"joints":{"Hips":[]}}`, "no keys"},
		{"time order", `{"name":"a","kind":"humanoid","duration":1,"joints":{"Hips":[[0.5,0,0,0],[0.2,0,0,0]]}}`, "not increasing"},
		{"time past end", `{"name":"a","kind":"humanoid","duration":1,"root":[[2,0,0,0]]}`, "outside"},
		{"zero rest", `{"name":"a","kind":"humanoid","duration":1,"rest":{"LeftArm":[0,0,0]},"joints":{"Hips":[[0,0,0,0]]}}`, "rest direction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseClip([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestCanonicalName(t *testing.T) {
	cases := map[string]string{
		"mixamorig:LeftUpLeg": "LeftUpLeg", "Armature|Hips": "Hips", "Head": "Head",
		"hips": "Hips", "chest": "Spine2", "arm_l_upper": "LeftArm", "arm_r_lower": "RightForeArm",
		"clavicle_l": "LeftShoulder", "hand_r": "RightHand", "leg_r_upper": "RightUpLeg", "foot_l": "LeftFoot",
		"toe_r": "RightToeBase", "leg_fl_upper": "LeftFrontUpLeg", "leg_br_foot": "RightHindFoot",
		"tail_03": "Tail3", "joint_07": "joint_07",
	}
	for in, want := range cases {
		if got := CanonicalName(in); got != want {
			t.Errorf("CanonicalName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWalkSwingsLegs checks the sign conventions on a real rig: at the walk's start
// the left foot is ahead of its bind position and the right one behind, half a
// cycle later the other way round, and the arms hang below the shoulders.
func TestWalkSwingsLegs(t *testing.T) {
	c := generate(t, "biped", 3)
	clip, err := Lookup("walk", Humanoid)
	if err != nil {
		t.Fatal(err)
	}
	a, rep, err := Apply(c, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.RootMotion || len(rep.Matched) < 10 {
		t.Fatalf("report %+v: want root motion and most joints matched", rep)
	}
	lf, rf := joint(t, c, "LeftFoot"), joint(t, c, "RightFoot")
	bind := c.Skeleton.Positions()
	h := rep.HipHeight
	for _, tc := range []struct {
		t    float64
		lead int // the foot ahead (+Z)
		back int
	}{{0, lf, rf}, {0.5, rf, lf}} {
		p := positionsAt(c, a, tc.t)
		if dz := p[tc.lead][2] - bind[tc.lead][2]; dz < 0.1*h {
			t.Errorf("t=%v: leading foot %s moved %.3f forward, want > %.3f", tc.t, c.Skeleton.Names[tc.lead], dz, 0.1*h)
		}
		if dz := p[tc.back][2] - bind[tc.back][2]; dz > -0.05*h {
			t.Errorf("t=%v: trailing foot %s moved %.3f forward, want < %.3f", tc.t, c.Skeleton.Names[tc.back], dz, -0.05*h)
		}
	}
	// Arms swing against the legs: with the left foot ahead, the right hand leads.
	for _, tc := range []struct {
		t           float64
		lead, trail string
	}{{0, "RightHand", "LeftHand"}, {0.5, "LeftHand", "RightHand"}} {
		p := positionsAt(c, a, tc.t)
		if dz := p[joint(t, c, tc.lead)][2] - p[joint(t, c, tc.trail)][2]; dz < 0.05*h {
			t.Errorf("t=%v: %s only %.3f ahead of %s", tc.t, tc.lead, dz, tc.trail)
		}
	}
	p := positionsAt(c, a, 0.25)
	for _, side := range []string{"Left", "Right"} {
		arm, hand := joint(t, c, side+"Arm"), joint(t, c, side+"Hand")
		if drop := p[arm][1] - p[hand][1]; drop < 0.8*p[arm].Dist(p[hand]) {
			t.Errorf("%s hand %.3f below the shoulder over a %.3f arm: the arm does not hang", side, drop, p[arm].Dist(p[hand]))
		}
	}
}

// TestOrientationIndependent: the same clip moves the joints of a rig with
// unoriented joints and of the same rig with random joint orientations and
// prefixed names to the same places.
func TestOrientationIndependent(t *testing.T) {
	for _, tc := range []struct{ kind, clip string }{{"biped", "walk"}, {"biped", "wave"}, {"biped", "run"}, {"quadruped", "walk"}} {
		c := generate(t, tc.kind, 5)
		o := reorient(c, 9, "mixamorig:")
		kind, err := DetectKind(c.Skeleton)
		if err != nil {
			t.Fatal(err)
		}
		clip, err := Lookup(tc.clip, kind)
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := Apply(c, clip, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := Apply(o, clip, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := c.Mesh.Bounds()
		size := hi.Sub(lo).Len()
		moved := 0.0
		for _, tm := range []float64{0.1, 0.33, 0.6} {
			pa, pb := positionsAt(c, a, tm), positionsAt(o, b, tm)
			for j := range pa {
				if d := pa[j].Dist(pb[j]); d > 1e-6*size {
					t.Fatalf("%s/%s t=%v: joint %s at %v unoriented, %v oriented", tc.kind, tc.clip, tm, c.Skeleton.Names[j], pa[j], pb[j])
				}
				moved = math.Max(moved, pa[j].Dist(c.Skeleton.Position(j)))
			}
		}
		if moved < 0.02*size {
			t.Errorf("%s/%s: joints move at most %.4f of a %.3f character", tc.kind, tc.clip, moved, size)
		}
	}
}

func TestQuadrupedWalkMovesEveryLeg(t *testing.T) {
	c := generate(t, "quadruped", 2)
	clip, _ := Lookup("walk", Quadruped)
	a, rep, err := Apply(c, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) > 0 {
		t.Logf("missing: %v", rep.Missing)
	}
	for _, leg := range []string{"LeftFrontFoot", "RightFrontFoot", "LeftHindFoot", "RightHindFoot"} {
		j := joint(t, c, leg)
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k < 12; k++ {
			z := positionsAt(c, a, clip.Duration*float64(k)/12)[j][2]
			lo, hi = math.Min(lo, z), math.Max(hi, z)
		}
		if hi-lo < 0.1*rep.HipHeight {
			t.Errorf("%s swings %.3f forward and back, want > %.3f", leg, hi-lo, 0.1*rep.HipHeight)
		}
	}
}

func TestApplyErrors(t *testing.T) {
	c := generate(t, "biped", 1)
	for j := range c.Skeleton.Names {
		c.Skeleton.Names[j] = "joint_" + string(rune('a'+j%26)) + strings.Repeat("x", j/26)
	}
	clip, _ := Lookup("walk", Humanoid)
	_, _, err := Apply(c, clip, Options{})
	if err == nil || !strings.Contains(err.Error(), "LeftUpLeg") {
		t.Fatalf("unnamed skeleton: error %v, want one naming the joints it needs", err)
	}
	if _, err := DetectKind(c.Skeleton); err == nil || !strings.Contains(err.Error(), "LeftFrontUpLeg") {
		t.Fatalf("DetectKind: %v", err)
	}
	if _, err := Lookup("walk", "fish"); err == nil {
		t.Fatal("Lookup(walk, fish) succeeded")
	}
	if _, err := Lookup("wave", Quadruped); err == nil || !strings.Contains(err.Error(), "humanoid") {
		t.Fatalf("Lookup(wave, quadruped): %v", err)
	}
}

// TestMissingJointsReported: a rig without hands and with no Spine1 still walks;
// the report names what was skipped.
func TestMissingJointsReported(t *testing.T) {
	c := generate(t, "biped", 4)
	clip, _ := Lookup("wave", Humanoid)
	j := joint(t, c, "RightHand")
	c.Skeleton.Names[j] = "prop_socket"
	_, rep, err := Apply(c, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(rep.Missing, "RightHand") || contains(rep.Matched, "RightHand") {
		t.Fatalf("report %+v: want RightHand missing", rep)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
