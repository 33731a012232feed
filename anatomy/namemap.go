package anatomy

import (
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// artistNames maps the joint names artists' tools write (lower case, prefix before
// ":" removed) to Mixamo's, one group per source of ../shared/data, and rigkit's
// synthetic bipeds, and Mixamo's own names (rigs exported from Mixamo keep them).
var artistNames = map[string]string{}

func init() {
	for _, group := range []string{
		// Quaternius rigs (fable-game, quaternius-showcase, quaternius-fbx): .L is the left.
		"hips=Hips abdomen=Spine torso=Spine1 chest=Spine2 neck=Neck head=Head " +
			"shoulder.l=LeftShoulder upperarm.l=LeftArm lowerarm.l=LeftForeArm hand.l=LeftHand palm.l=LeftHand fist.l=LeftHand " +
			"upperleg.l=LeftUpLeg lowerleg.l=LeftLeg foot.l=LeftFoot",
		// 0 A.D. human bodies (headless: the game attaches heads at "head").
		"hip=Hips spine=Spine spine1=Spine1 shoulder_l=LeftShoulder arm_l=LeftArm forearm_l=LeftForeArm " +
			"thigh_l=LeftUpLeg leg_l=LeftLeg",
		// 0 A.D. (3ds Max biped).
		"bip01_pelvis=Hips bip01_spine=Spine bip01_spine1=Spine1 bip01_spine2=Spine2 bip01_neck=Neck bip01_head=Head " +
			"bip01_l_clavicle=LeftShoulder bip01_l_upperarm=LeftArm bip01_l_forearm=LeftForeArm bip01_l_hand=LeftHand " +
			"bip01_l_thigh=LeftUpLeg bip01_l_calf=LeftLeg bip01_l_foot=LeftFoot bip01_l_toe0=LeftToeBase",
		// OpenClonk (Blender rigs; joints sit at the bones' heads).
		"skeleton_hips=Hips skeleton_neck=Neck skeleton_head=Head " +
			"skeleton_arm_upper.l=LeftArm skeleton_arm_lower.l=LeftForeArm skeleton_arm_hand.l=LeftHand " +
			"skeleton_leg_upper.l=LeftUpLeg skeleton_leg_lower.l=LeftLeg skeleton_foot_ball.l=LeftFoot skeleton_foot_tip.l=LeftToeBase",
		// Minetest mobs (blocky: one bone per body part, at its pivot).
		"leg.left=LeftUpLeg arm.left=LeftArm",
		// rigkit's synthetic bipeds (synth).
		"clavicle_l=LeftShoulder arm_l_upper=LeftArm arm_l_lower=LeftForeArm hand_l=LeftHand " +
			"leg_l_upper=LeftUpLeg leg_l_lower=LeftLeg foot_l=LeftFoot toe_l=LeftToeBase",
	} {
		for _, kv := range strings.Fields(group) {
			k, v, _ := strings.Cut(kv, "=")
			addArtistName(k, v)
		}
	}
	addFingerNames()
	for _, n := range []string{Hips, Spine, Spine1, Spine2, Neck, Head, headTopEnd} {
		addArtistName(strings.ToLower(n), n)
	}
	for _, n := range []string{Shoulder, Arm, ForeArm, Hand, UpLeg, Leg, Foot, ToeBase, toeEnd} {
		addArtistName(strings.ToLower(Side(1, n)), Side(1, n))
	}
}

// addArtistName maps a left-side (or central) artist name and its right-side
// spelling.
func addArtistName(k, v string) {
	artistNames[k] = v
	if r, ok := rightOf(k); ok {
		artistNames[r] = "Right" + strings.TrimPrefix(v, "Left")
	}
}

// addFingerNames maps the finger joints of the sources that have them, numbered
// from the knuckle as Mixamo's: Quaternius (Thumb1.L, Index1.L, PinkyFinger1.L;
// a first joint without a number is the knuckle), OpenClonk (skeleton_hand_digit1.L
// is the thumb, small1.L the pinky), Mixamo (LeftHandIndex1) and rigkit's
// synthetic bipeds.
func addFingerNames() {
	clonk := map[string]string{"digit": "Thumb", "index": "Index", "middle": "Middle", "ring": "Ring", "small": "Pinky"}
	for _, f := range fingerOrder {
		lf := strings.ToLower(f)
		addArtistName(lf+".l", fingerJoint(1, f, 1))
		for k := 1; k <= 4; k++ {
			v := fingerJoint(1, f, k)
			addArtistName(fmt.Sprintf("%s%d.l", lf, k), v)
			if f != "Thumb" {
				addArtistName(fmt.Sprintf("%sfinger%d.l", lf, k), v)
			}
			addArtistName(strings.ToLower(v), v)
		}
	}
	for c, f := range clonk {
		for k := 1; k <= 3; k++ {
			addArtistName(fmt.Sprintf("skeleton_hand_%s%d.l", c, k), fingerJoint(1, f, k))
		}
	}
	// rigkit's synthetic bipeds: finger_l_1 is the thumb, finger_l_2 the index
	// (the others' names depend on how many the hand has), from the knuckle
	// finger_l_2_1 to the tip finger_l_2_end.
	for n, f := range []string{"Thumb", "Index"} {
		for k := 1; k <= 3; k++ {
			addArtistName(fmt.Sprintf("finger_l_%d_%d", n+1, k), fingerJoint(1, f, k))
		}
		addArtistName(fmt.Sprintf("finger_l_%d_end", n+1), fingerJoint(1, f, 4))
	}
}

// isFinger reports whether a template joint name is a finger's (LeftHandIndex2).
func isFinger(name string) bool {
	for _, f := range fingerOrder {
		if strings.Contains(name, Hand+f) {
			return true
		}
	}
	return false
}

// rightOf returns the right-side spelling of a left-side artist name.
func rightOf(k string) (string, bool) {
	if strings.HasPrefix(k, "left") {
		return "right" + k[4:], true
	}
	for _, p := range [][2]string{{".l", ".r"}, {"_l_", "_r_"}, {".left", ".right"}} {
		if strings.Contains(k, p[0]) {
			return strings.Replace(k, p[0], p[1], 1), true
		}
	}
	if strings.HasSuffix(k, "_l") {
		return k[:len(k)-2] + "_r", true
	}
	return "", false
}

// MixamoName returns the Mixamo name of an artist's joint name ("" when unknown).
func MixamoName(artist string) string {
	n := strings.ToLower(artist)
	if i := strings.LastIndex(n, ":"); i >= 0 {
		n = n[i+1:]
	}
	return artistNames[n]
}

// NameAccuracy compares a fitted skeleton with an artist's: of the fitted joints
// whose name the artist's skeleton has (through MixamoName), how many lie within
// tol of it. It returns hits and the number compared, and the names missed.
func NameAccuracy(fitted, artist *character.Skeleton, tol float64) (hits, total int, missed []string) {
	return nameAccuracyOf(fitted, artist, tol, func(string) bool { return true })
}

// nameAccuracyOf is NameAccuracy over the fitted joints whose name keep accepts.
func nameAccuracyOf(fitted, artist *character.Skeleton, tol float64, keep func(string) bool) (hits, total int, missed []string) {
	pos := artistPositions(artist)
	for j, n := range fitted.Names {
		p, ok := pos[n]
		if !ok || !keep(n) {
			continue
		}
		total++
		if fitted.Position(j).Dist(p) <= tol {
			hits++
		} else {
			missed = append(missed, n)
		}
	}
	return hits, total, missed
}

// artistPositions returns the artist's joint positions by their Mixamo names.
func artistPositions(artist *character.Skeleton) map[string]vecmath.Vec3 {
	pos := map[string]vecmath.Vec3{}
	for j, n := range artist.Names {
		if m := MixamoName(n); m != "" {
			pos[m] = artist.Position(j)
		}
	}
	return pos
}
