package anatomy

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// boxBody is a blocky biped 2 units tall, legs apart below 0.9, plus extra parts.
func boxBody(extra ...[2]vecmath.Vec3) *shape {
	parts := append([][2]vecmath.Vec3{
		{{-0.25, 0, -0.1}, {-0.06, 0.9, 0.1}},  // right leg
		{{0.06, 0, -0.1}, {0.25, 0.9, 0.1}},    // left leg
		{{-0.3, 0.9, -0.12}, {0.3, 1.6, 0.12}}, // torso
		{{-0.06, 1.6, -0.05}, {0.06, 1.7, 0.05}},
		{{-0.12, 1.7, -0.1}, {0.12, 2, 0.1}}, // head
	}, extra...)
	m := synth.Boxes(parts...)
	s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
	s.mid = 0
	return s
}

// TestLegRouteEndsAtTheFoot: a rod held beside one foot and reaching below it
// (a rifle's muzzle) ends that leg's route; two feet set apart from their legs
// keep both routes whole.
func TestLegRouteEndsAtTheFoot(t *testing.T) {
	rod := [2]vecmath.Vec3{{0.4, -0.3, -0.03}, {0.46, 1.0, 0.03}}
	for _, tc := range []struct {
		name   string
		extra  [][2]vecmath.Vec3
		lowest [2]float64 // the lowest route point's height, left and right
	}{
		{"plain", nil, [2]float64{0, 0}},
		{"rod beside the left foot", [][2]vecmath.Vec3{rod}, [2]float64{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := boxBody(tc.extra...)
			ls, err := s.profile().findLegs(s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ls.routes {
				low := ls.routes[i][0]
				if low[1] < tc.lowest[i]-0.05 || low[1] > tc.lowest[i]+0.05 || low[0]*float64(sides[i]) < 0.05 || low[0]*float64(sides[i]) > 0.25 {
					t.Errorf("leg %d starts at %v, want on the leg near height %g", i, low, tc.lowest[i])
				}
			}
		})
	}
}

// TestFindLegs: the crotch of legs standing apart, pressed together along a
// contact nearly as deep as a leg, bridged for a moment by a knee pad between
// them, going on inside a skirt above its hem (where they join, not the hem),
// under a body set on them (where they end), and hidden under a robe whose hem
// shows only the feet (covered, the crotch placed by proportion).
func TestFindLegs(t *testing.T) {
	torso := [][2]vecmath.Vec3{
		{{-0.3, 0.9, -0.12}, {0.3, 1.6, 0.12}},
		{{-0.06, 1.6, -0.05}, {0.06, 1.7, 0.05}},
		{{-0.12, 1.7, -0.1}, {0.12, 2, 0.1}},
	}
	body := func(parts ...[2]vecmath.Vec3) *shape {
		m := synth.Boxes(append(parts, torso...)...)
		s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
		s.mid = 0
		return s
	}
	apart := [][2]vecmath.Vec3{{{-0.25, 0, -0.1}, {-0.06, 0.9, 0.1}}, {{0.06, 0, -0.1}, {0.25, 0.9, 0.1}}}
	for _, tc := range []struct {
		name    string
		parts   [][2]vecmath.Vec3
		crotch  float64
		covered bool
	}{
		{"apart", apart, 0.9, false},
		{"pressed, the contact 0.7 of a leg's depth", [][2]vecmath.Vec3{
			{{-0.25, 0, -0.1}, {-0.03, 0.9, 0.1}}, {{0.03, 0, -0.1}, {0.25, 0.9, 0.1}},
			{{-0.031, 0, -0.07}, {0.031, 0.9, 0.07}}}, 0.9, false},
		{"a knee pad between them", append([][2]vecmath.Vec3{{{-0.07, 0.4, -0.1}, {0.07, 0.42, 0.1}}}, apart...), 0.9, false},
		{"a skirt over legs that go on inside it", append([][2]vecmath.Vec3{{{-0.32, 0.4, -0.15}, {0.32, 1.0, 0.15}}}, apart...), 0.9, false},
		{"a body set on short legs", [][2]vecmath.Vec3{
			{{-0.25, 0, -0.1}, {-0.06, 0.4, 0.1}}, {{0.06, 0, -0.1}, {0.25, 0.4, 0.1}},
			{{-0.3, 0.4, -0.12}, {0.3, 0.9, 0.12}}}, 0.4, false},
		{"a robe over the feet", [][2]vecmath.Vec3{
			{{-0.25, 0, -0.1}, {-0.06, 0.1, 0.1}}, {{0.06, 0, -0.1}, {0.25, 0.1, 0.1}},
			{{-0.3, 0.06, -0.12}, {0.3, 0.9, 0.12}}}, coveredCrotch * 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := body(tc.parts...)
			ls, err := s.profile().findLegs(s)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(ls.crotch-tc.crotch) > 0.05 || ls.covered != tc.covered {
				t.Errorf("crotch %.3f covered %v, want %.3f, %v", ls.crotch, ls.covered, tc.crotch, tc.covered)
			}
			for i, r := range ls.routes {
				if top := r[len(r)-1][1]; top < ls.crotch-0.06 {
					t.Errorf("leg %d ends at %.3f, below the crotch %.3f", i, top, ls.crotch)
				}
			}
		})
	}
}

// TestOutlineArm: an arm pressed flush against the torso (no gap in any slice)
// is placed inside it, from near the shoulder down past the crotch.
func TestOutlineArm(t *testing.T) {
	arms := [][2]vecmath.Vec3{{{0.3, 0.7, -0.06}, {0.4, 1.55, 0.06}}, {{-0.4, 0.7, -0.06}, {-0.3, 1.55, 0.06}}}
	s := boxBody(arms...)
	s.nearlySymmetric = true
	if !pressedArmsPossible(s) {
		t.Fatal("a tall mirrored body: pressed arms should be possible")
	}
	for _, sd := range sides {
		route := s.profile().outlineArm(s, 0.9, sd)
		top, end := route[0], route[len(route)-1]
		if top[1] < 1.3 || top[1] > 1.6 || end[1] > 0.9 || end[1] < 0.6 {
			t.Errorf("side %d: arm from height %.2f to %.2f, want from the shoulder (1.3-1.6) past the crotch (0.6-0.9)", sd, top[1], end[1])
		}
		for _, q := range route {
			if x := float64(sd) * q[0]; q[1] > 0.75 && (x < 0.25 || x > 0.42) {
				t.Errorf("side %d: arm point %v outside the arm", sd, q)
				break
			}
		}
	}
	wide := boxBody(append(arms, [2]vecmath.Vec3{{-1.2, 1.2, -0.05}, {1.2, 1.3, 0.05}})...)
	wide.nearlySymmetric = true
	if pressedArmsPossible(wide) {
		t.Error("a body as wide as it is tall: pressed arms should not be possible")
	}
}

// TestHangingArmsNotUnderHeldArms: arms hanging beside the torso are found in
// the slices; pads hanging under arms held straight out (a T-posed, fused
// astronaut's elbow pads) are not hanging arms, nor is a bump on top of such an
// arm, nor big hands hanging from their ends far out from the body (a cartoon
// monster's).
func TestHangingArmsNotUnderHeldArms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts [][2]vecmath.Vec3
		found bool
	}{
		{"hanging", [][2]vecmath.Vec3{box(0.35, 0.9, -0.06, 0.45, 1.5, 0.06), box(-0.45, 0.9, -0.06, -0.35, 1.5, 0.06)}, true},
		{"pads under held arms", [][2]vecmath.Vec3{
			box(0.3, 1.45, -0.06, 1.5, 1.55, 0.06), box(-1.5, 1.45, -0.06, -0.3, 1.55, 0.06),
			box(0.8, 1.0, -0.06, 0.9, 1.45, 0.06), box(-0.9, 1.0, -0.06, -0.8, 1.45, 0.06)}, false},
		{"big hands hanging from held arms' ends", [][2]vecmath.Vec3{
			box(0.3, 1.45, -0.06, 1.2, 1.55, 0.06), box(-1.2, 1.45, -0.06, -0.3, 1.55, 0.06),
			box(1.05, 1.05, -0.06, 1.2, 1.45, 0.06), box(-1.2, 1.05, -0.06, -1.05, 1.45, 0.06)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := boxBody(tc.parts...)
			arms, err := s.profile().findHangingArms(s, 0.9, math.Inf(-1))
			if (err == nil) != tc.found {
				t.Fatalf("found %v (%v), want %v; a left arm of %d slices", err == nil, err, tc.found, len(arms[0]))
			}
		})
	}
}

// TestFromShoulder: a proposal's arm route that leaves the torso low on the chest
// and rises to the shoulder before it runs down the arm starts at the slices'
// shoulder instead, keeping the route beyond it; a shoulder nearest the route's
// end leaves the route as it is.
func TestFromShoulder(t *testing.T) {
	route := []vecmath.Vec3{{0.2, 1.2, 0}, {0.3, 1.35, 0}, {0.4, 1.3, 0}, {0.55, 1.1, 0}, {0.7, 0.9, 0}}
	for _, tc := range []struct {
		name     string
		shoulder vecmath.Vec3
		want     []vecmath.Vec3
	}{
		{"A-pose", vecmath.Vec3{0.28, 1.4, 0}, append([]vecmath.Vec3{{0.28, 1.4, 0}}, route[2:]...)},
		{"at the hand", vecmath.Vec3{0.75, 0.85, 0}, route},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fromShoulder(route, tc.shoulder)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestShoulderAbove: an A-posed arm's shoulder joint lies on the arm's line
// read below the armpit, where slices fused with the body show only the arm's
// outer part (the top slices' centres lie outward of the line), and no nearer the
// plane than half the top slice's distance from it, also where the line, extended
// far above the armpit, would cross it; above the top slice where the line leans
// out as it rises.
func TestShoulderAbove(t *testing.T) {
	// An arm slanting at 45° from (0.4, 1.2) down to (1.2, 0.4), sampled every 0.05.
	var arm []vecmath.Vec3
	for y := 1.2; y >= 0.4; y -= 0.05 {
		arm = append(arm, vecmath.Vec3{0.4 + (1.2 - y), y, 0})
	}
	// The same arm whose two top slices lie 0.15 outward (fused at the armpit).
	fused := append([]vecmath.Vec3(nil), arm...)
	for i := 0; i < 2; i++ {
		fused[i][0] += 0.15
	}
	for _, tc := range []struct {
		name  string
		route []vecmath.Vec3
		y     float64
		wantX float64
	}{
		{"on the line", arm, 1.3, 0.3},
		{"fused armpit", fused, 1.3, 0.3},
		{"no nearer the plane than half the armpit", arm, 1.5, 0.2},
		{"hanging straight", []vecmath.Vec3{{0.3, 1.2, 0}, {0.3, 1.0, 0}, {0.3, 0.8, 0}}, 1.3, 0.3},
		{"forearm turned in", []vecmath.Vec3{{0.3, 1.2, 0}, {0.29, 1.1, 0}, {0.26, 1.0, 0}, {0.22, 0.9, 0}}, 1.3, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shoulderAbove(tc.route, tc.y, 0)
			if math.Abs(got[0]-tc.wantX) > 1e-9 || got[1] != tc.y {
				t.Fatalf("shoulder %v, want x %.3f at y %.2f", got, tc.wantX, tc.y)
			}
		})
	}
}

// TestNeckAboveArmpits: the neck is the narrow part under the head, not the
// notch under the shoulders that arms pressed against the torso leave (narrower
// than the body below and above it), nor the chest under shoulders wider than it.
func TestNeckAboveArmpits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts [][2]vecmath.Vec3
	}{
		{"arms pressed to the torso", [][2]vecmath.Vec3{
			{{0.3, 0.7, -0.06}, {0.4, 1.45, 0.06}}, {{-0.4, 0.7, -0.06}, {-0.3, 1.45, 0.06}},
			{{0.3, 1.5, -0.08}, {0.4, 1.6, 0.08}}, {{-0.4, 1.5, -0.08}, {-0.3, 1.6, 0.08}}, // shoulder caps
		}},
		{"shoulders wider than the chest", [][2]vecmath.Vec3{{{-0.55, 1.45, -0.08}, {0.55, 1.6, 0.08}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := boxBody(tc.parts...)
			if neck := s.narrowest(0, 1.4, 2); neck < 1.58 || neck > 1.72 {
				t.Errorf("neck at %.3f, want between the shoulders (1.6) and the head (1.7)", neck)
			}
		})
	}
}

// TestHeadOnNeck: a figure's head sits on a neck narrower than its trunk; a
// post under a cross beam narrows nowhere above its middle.
func TestHeadOnNeck(t *testing.T) {
	if s := boxBody(); !s.headOnNeck() {
		t.Error("box figure: no head on a neck found")
	}
	m := synth.Boxes(
		[2]vecmath.Vec3{{-0.3, 0, -0.2}, {0.3, 0.2, 0.2}},      // pedestal
		[2]vecmath.Vec3{{-0.1, 0.2, -0.08}, {0.1, 2, 0.08}},    // post
		[2]vecmath.Vec3{{-0.6, 1.4, -0.08}, {0.6, 1.55, 0.08}}, // beam
	)
	s := newShape(&m, geom.NewWindingNumber(&m), upFrame("y"))
	s.mid = 0
	if s.headOnNeck() {
		t.Error("cross on a pedestal: a head on a neck found")
	}
}
