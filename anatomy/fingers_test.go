package anatomy

import (
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// handModel builds a hand along +X from a wrist at the origin: a forearm, a palm
// from the wrist to x = 0.5 (0.4 wide along Z, 0.1 thick), and a box per finger
// given by its Z centre and reach along X. A thumb leaves the palm's +Z side
// from x = 0.1.
type handModel struct {
	thumb   bool
	across  bool      // the thumb leaves the palm's side along +Z
	fingers []float64 // Z centres of the fingers
	mitten  bool      // the palm reaches the fingertips
}

func (hm handModel) mesh() *character.Mesh {
	m := &character.Mesh{}
	box := func(lo, hi vecmath.Vec3) { meshtest.AppendBox(m, lo, hi) }
	box(vecmath.Vec3{-1, -0.06, -0.15}, vecmath.Vec3{0.02, 0.06, 0.15})
	palmEnd := 0.5
	if hm.mitten {
		palmEnd = 1
	}
	box(vecmath.Vec3{0, -0.05, -0.2}, vecmath.Vec3{palmEnd, 0.05, 0.2})
	for _, z := range hm.fingers {
		box(vecmath.Vec3{0.45, -0.03, z - 0.035}, vecmath.Vec3{1, 0.03, z + 0.035})
	}
	if hm.thumb {
		box(vecmath.Vec3{0.1, -0.03, 0.2}, vecmath.Vec3{0.55, 0.03, 0.27})
	}
	if hm.across {
		box(vecmath.Vec3{0.12, -0.03, 0.15}, vecmath.Vec3{0.2, 0.03, 0.5})
	}
	return m
}

// TestFindFingers cuts boxy hands: five, four (a cartoon's three fingers and a
// thumb) and three separate parts are fingers; a mitten, with or without a thumb,
// and two fingers are not, nor five parts without a thumb among them.
func TestFindFingers(t *testing.T) {
	four := []float64{0.15, 0.05, -0.05, -0.15}
	cases := []struct {
		name string
		hand handModel
		want []string
	}{
		{"five", handModel{thumb: true, fingers: four}, []string{"Thumb", "Index", "Middle", "Ring", "Pinky"}},
		{"five in a row", handModel{fingers: []float64{0.16, 0.08, 0, -0.08, -0.16}}, nil},
		{"four without a thumb", handModel{fingers: four}, []string{"Index", "Middle", "Ring", "Pinky"}},
		{"cartoon", handModel{thumb: true, fingers: []float64{0.13, 0, -0.13}}, []string{"Thumb", "Index", "Middle", "Pinky"}},
		{"three", handModel{fingers: []float64{0.13, 0, -0.13}}, []string{"Index", "Middle", "Pinky"}},
		{"a thumb across", handModel{across: true, fingers: four}, []string{"Thumb", "Index", "Middle", "Ring", "Pinky"}},
		{"mitten", handModel{mitten: true}, nil},
		{"mitten with a thumb", handModel{mitten: true, thumb: true}, nil},
		{"two fingers", handModel{fingers: []float64{0.1, -0.1}}, nil},
		{"a thumb and a finger", handModel{thumb: true, fingers: []float64{0}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newShape(tc.hand.mesh(), nil, upFrame("y"))
			found := findFingers(s, vecmath.Vec3{}, vecmath.Vec3{1, 0, 0})
			var names []string
			for _, f := range found {
				names = append(names, f.name)
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Fatalf("fingers %v, want %v", names, tc.want)
			}
			for _, f := range found {
				checkFinger(t, f, tc.hand.thumb)
			}
		})
	}
}

// checkFinger checks that a finger's joints run outward from the palm to its tip
// near the end of its box (x = 1; the thumb box's at 0.55).
func checkFinger(t *testing.T, f finger, thumbBox bool) {
	t.Helper()
	if f.name == "Thumb" && f.joints[3][2] > 0.3 {
		return // across the hand: checked in TestSideThumb
	}
	for k := 1; k < 4; k++ {
		if f.joints[k][0] <= f.joints[k-1][0] {
			t.Errorf("%s: joint %d at x %.3f, not beyond joint %d at %.3f", f.name, k+1, f.joints[k][0], k, f.joints[k-1][0])
		}
	}
	tipX := 1.0
	if f.name == "Thumb" && thumbBox {
		tipX = 0.55
	}
	if tip := f.joints[3][0]; tip < tipX-0.06 || tip > tipX+0.02 {
		t.Errorf("%s: tip at x %.3f, want about %.2f", f.name, tip, tipX)
	}
}

// TestFindFingersDegenerate: meshes that give no hand to cut place no fingers.
func TestFindFingersDegenerate(t *testing.T) {
	hand := handModel{thumb: true, fingers: []float64{0.15, 0.05, -0.05, -0.15}}.mesh()
	tri := &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}}}
	cases := []struct {
		name       string
		m          *character.Mesh
		wrist, tip vecmath.Vec3
	}{
		{"wrist at the tip", hand, vecmath.Vec3{1, 0, 0}, vecmath.Vec3{1, 0, 0}},
		{"hand far from the mesh", hand, vecmath.Vec3{10, 10, 10}, vecmath.Vec3{11, 10, 10}},
		{"one triangle", tri, vecmath.Vec3{}, vecmath.Vec3{1, 0, 0}},
		{"no triangles", &character.Mesh{Positions: hand.Positions}, vecmath.Vec3{}, vecmath.Vec3{1, 0, 0}},
	}
	for _, tc := range cases {
		s := newShape(tc.m, nil, upFrame("y"))
		if f := findFingers(s, tc.wrist, tc.tip); len(f) != 0 {
			t.Errorf("%s: %d fingers, want none", tc.name, len(f))
		}
	}
}

// TestFingerNames maps the finger joints of each source's rigs to Mixamo's.
func TestFingerNames(t *testing.T) {
	for artist, want := range map[string]string{
		"Index2.R":                  "RightHandIndex2",
		"Thumb.L":                   "LeftHandThumb1",
		"PinkyFinger3.R":            "RightHandPinky3",
		"skeleton_hand_small1.L":    "LeftHandPinky1",
		"skeleton_hand_digit3.R":    "RightHandThumb3",
		"mixamorig:RightHandThumb4": "RightHandThumb4",
		"LeftHandMiddle1":           "LeftHandMiddle1",
		"finger_r_2_end":            "RightHandIndex4",
		"finger_l_1_1":              "LeftHandThumb1",
		"LeftArm":                   "LeftArm",
		"CTRL_FK_Fingers.L":         "",
	} {
		if got := MixamoName(artist); got != want {
			t.Errorf("MixamoName(%q) = %q, want %q", artist, got, want)
		}
		if want != "" && isFinger(want) != (artist != "LeftArm") {
			t.Errorf("IsFinger(%q) = %v", want, isFinger(want))
		}
	}
}

// TestFindFingersSoup: random triangles around a hand never crash the search,
// and whatever it places is three to five fingers with finite joints.
func TestFindFingersSoup(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewSource(seed))
		m := &character.Mesh{}
		for i := 0; i < 50+r.Intn(300); i++ {
			m.Positions = append(m.Positions, vecmath.Vec3{r.Float64()*1.6 - 0.4, r.NormFloat64() * 0.1, r.NormFloat64() * 0.2})
		}
		for i := 0; i < 2*len(m.Positions); i++ {
			n := len(m.Positions)
			m.Triangles = append(m.Triangles, [3]int{r.Intn(n), r.Intn(n), r.Intn(n)})
		}
		s := newShape(m, nil, upFrame("y"))
		found := findFingers(s, vecmath.Vec3{}, vecmath.Vec3{1, 0, 0})
		if len(found) != 0 && (len(found) < 3 || len(found) > 5) {
			t.Errorf("seed %d: %d fingers", seed, len(found))
		}
		for _, f := range found {
			for _, p := range f.joints {
				if math.IsNaN(p[0]+p[1]+p[2]) || math.IsInf(p[0]+p[1]+p[2], 0) {
					t.Errorf("seed %d: %s joint at %v", seed, f.name, p)
				}
			}
		}
	}
}

// TestSideThumb: a thumb leaving the palm along +Z ends at the box's end.
func TestSideThumb(t *testing.T) {
	s := newShape(handModel{across: true, fingers: []float64{0.15, 0.05, -0.05, -0.15}}.mesh(), nil, upFrame("y"))
	found := findFingers(s, vecmath.Vec3{}, vecmath.Vec3{1, 0, 0})
	if len(found) != 5 || found[0].name != "Thumb" {
		t.Fatalf("%d fingers, want a thumb and four", len(found))
	}
	th := found[0].joints
	if th[3][2] < 0.44 || th[3][2] > 0.52 || th[1][2] > th[3][2] {
		t.Errorf("thumb joints %v: want them outward along +Z to about 0.5", th)
	}
}
