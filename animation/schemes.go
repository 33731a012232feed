package animation

import (
	"regexp"
	"strings"
)

// The joint naming schemes of other tools, each translated to rigkit's (Mixamo's)
// names; docs/naming.md lists them side by side. A joint of a scheme that rigkit's
// clips have no name for (twist bones, eyebrows, IK targets) maps to nothing and is
// listed as unmatched.
var (
	// mixamoUnderscore is the namespace some exporters write as "mixamorig_".
	mixamoUnderscore = regexp.MustCompile(`^mixamorig[0-9]*_`)

	// 3ds Max Biped: "Bip01 Pelvis", "Bip01 L Thigh", "Bip001_R_Finger12". The part
	// must be a whole word from the table, so "Bip01 LInnerEyebrow" matches nothing.
	bipedName = regexp.MustCompile(`^Bip[0-9]+[ _](?:([LR])[ _])?([A-Za-z]+[0-9]*)$`)
	bipedMid  = map[string]string{"pelvis": "Hips", "spine": "Spine", "spine1": "Spine1", "spine2": "Spine2",
		"neck": "Neck", "neck1": "Neck1", "head": "Head", "headnub": "HeadTop_End"}
	bipedSide = map[string]string{"clavicle": "Shoulder", "upperarm": "Arm", "forearm": "ForeArm", "hand": "Hand",
		"thigh": "UpLeg", "calf": "Leg", "foot": "Foot", "toe0": "ToeBase"}
	// Biped fingers are FingerN, FingerN1, FingerN2 with N = 0 (thumb) … 4 (pinky).
	bipedFinger = regexp.MustCompile(`^finger([0-4])([12]?)$`)

	// Unreal mannequin: "pelvis", "spine_01", "upperarm_l", "thumb_02_r".
	unrealMid = map[string]string{"pelvis": "Hips", "spine_01": "Spine", "spine_02": "Spine1", "spine_03": "Spine2",
		"neck_01": "Neck", "neck_02": "Neck1"}
	unrealSided = regexp.MustCompile(`^([a-z]+)_(?:(0[1-3])_)?([lr])$`)
	unrealSide  = map[string]string{"clavicle": "Shoulder", "upperarm": "Arm", "lowerarm": "ForeArm", "hand": "Hand",
		"thigh": "UpLeg", "calf": "Leg", "foot": "Foot", "ball": "ToeBase"}

	// VRM humanoid bones: "hips", "upperChest", "leftUpperLeg", "rightIndexProximal".
	vrmMid   = map[string]string{"spine": "Spine", "chest": "Spine2", "upperChest": "Spine2"}
	vrmSided = regexp.MustCompile(`^(left|right)([A-Z][A-Za-z]+)$`)
	vrmSide  = map[string]string{"UpperLeg": "UpLeg", "LowerLeg": "Leg", "Foot": "Foot", "Toes": "ToeBase",
		"Shoulder": "Shoulder", "UpperArm": "Arm", "LowerArm": "ForeArm", "Hand": "Hand"}
	vrmFinger = regexp.MustCompile(`^(Thumb|Index|Middle|Ring|Little)(Metacarpal|Proximal|Intermediate|Distal)$`)

	// Rigify deform bones: "DEF-spine.003", "DEF-upper_arm.L", "DEF-f_index.01.R".
	rigifyName  = regexp.MustCompile(`^DEF-([a-z_]+)((?:\.0[0-9]{2})?)(?:\.([0-9]{2}))?(?:\.([LR]))?$`)
	rigifySpine = []string{"Hips", "Spine", "Spine1", "Spine2", "Neck", "Neck1", "Head"}
	rigifySide  = map[string]string{"shoulder": "Shoulder", "upper_arm": "Arm", "forearm": "ForeArm", "hand": "Hand",
		"thigh": "UpLeg", "shin": "Leg", "foot": "Foot", "toe": "ToeBase"}

	// Quaternius (its CC0 packs, Blender armatures): "Abdomen", "UpperArm.L",
	// "LowerLeg.R". Its feet hang from the root, as inverse kinematics targets
	// (footChannels carries them with the legs); its fingers ("Fingers.L",
	// "Thumb1.L") match nothing.
	quaterniusMid   = map[string]string{"Abdomen": "Spine", "Torso": "Spine2"}
	quaterniusSided = regexp.MustCompile(`^(Shoulder|UpperArm|LowerArm|Palm|UpperLeg|LowerLeg|Foot)\.([LR])$`)
	quaterniusSide  = map[string]string{"Shoulder": "Shoulder", "UpperArm": "Arm", "LowerArm": "ForeArm", "Palm": "Hand",
		"UpperLeg": "UpLeg", "LowerLeg": "Leg", "Foot": "Foot"}

	// fingerNames are rigkit's finger names by the schemes' finger words.
	fingerNames = map[string]string{"thumb": "Thumb", "index": "Index", "middle": "Middle", "ring": "Ring",
		"pinky": "Pinky", "little": "Pinky", "0": "Thumb", "1": "Index", "2": "Middle", "3": "Ring", "4": "Pinky"}
)

// schemeName translates a name of one of the other tools' schemes.
func schemeName(name string) (string, bool) {
	for _, f := range []func(string) (string, bool){bipedCanon, unrealCanon, vrmCanon, rigifyCanon, quaterniusCanon} {
		if n, ok := f(name); ok {
			return n, true
		}
	}
	return "", false
}

func side(tag string) string {
	if tag == "L" || tag == "l" || tag == "left" {
		return "Left"
	}
	return "Right"
}

func bipedCanon(name string) (string, bool) {
	m := bipedName.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	part := strings.ToLower(m[2])
	if m[1] == "" {
		n, ok := bipedMid[part]
		return n, ok
	}
	if n, ok := bipedSide[part]; ok {
		return side(m[1]) + n, true
	}
	if f := bipedFinger.FindStringSubmatch(part); f != nil {
		seg := map[string]string{"": "1", "1": "2", "2": "3"}[f[2]]
		return side(m[1]) + "Hand" + fingerNames[f[1]] + seg, true
	}
	return "", false
}

func unrealCanon(name string) (string, bool) {
	if n, ok := unrealMid[name]; ok {
		return n, true
	}
	m := unrealSided.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	if m[2] == "" {
		n, ok := unrealSide[m[1]]
		if ok {
			return side(m[3]) + n, true
		}
		return "", false
	}
	f, ok := fingerNames[m[1]]
	if !ok || m[1] == "little" {
		return "", false
	}
	return side(m[3]) + "Hand" + f + strings.TrimPrefix(m[2], "0"), true
}

func vrmCanon(name string) (string, bool) {
	if n, ok := vrmMid[name]; ok {
		return n, true
	}
	m := vrmSided.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	if n, ok := vrmSide[m[2]]; ok {
		return side(m[1]) + n, true
	}
	f := vrmFinger.FindStringSubmatch(m[2])
	if f == nil {
		return "", false
	}
	seg := map[string]string{"Metacarpal": "1", "Proximal": "1", "Intermediate": "2", "Distal": "3"}[f[2]]
	if f[1] == "Thumb" && f[2] == "Proximal" {
		seg = "2" // VRM 1.0's thumb is Metacarpal, Proximal, Distal; VRM 0.x has no Metacarpal
	}
	return side(m[1]) + "Hand" + fingerNames[strings.ToLower(f[1])] + seg, true
}

func rigifyCanon(name string) (string, bool) {
	m := rigifyName.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	base, num, seg, sd := m[1], m[2], m[3], m[4]
	if base == "spine" && sd == "" && seg == "" {
		k := 0
		if num != "" {
			k = int(num[3]-'0') + 10*int(num[2]-'0')
		}
		if k < len(rigifySpine) {
			return rigifySpine[k], true
		}
		return "", false
	}
	if sd == "" || num != "" {
		return "", false // twist segments (DEF-upper_arm.L.001 does not parse) and unsided parts
	}
	if seg == "" {
		n, ok := rigifySide[base]
		if ok {
			return side(sd) + n, true
		}
		return "", false
	}
	f, ok := fingerNames[strings.TrimPrefix(base, "f_")]
	if !ok || (base != "thumb" && !strings.HasPrefix(base, "f_")) {
		return "", false
	}
	return side(sd) + "Hand" + f + strings.TrimPrefix(seg, "0"), true
}

func quaterniusCanon(name string) (string, bool) {
	if n, ok := quaterniusMid[name]; ok {
		return n, true
	}
	m := quaterniusSided.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	return side(m[2]) + quaterniusSide[m[1]], true
}

// CanonicalNames returns CanonicalName of every name of one skeleton, with the
// one translation that depends on the whole skeleton: a VRM skeleton with an
// upperChest has its chest one joint lower (Spine1).
func CanonicalNames(names []string) []string {
	out := make([]string, len(names))
	upperChest := false
	for _, n := range names {
		if strings.HasSuffix(n, "upperChest") {
			upperChest = true
		}
	}
	for j, n := range names {
		out[j] = CanonicalName(n)
		if upperChest && (n == "chest" || strings.HasSuffix(n, ":chest") || strings.HasSuffix(n, "|chest")) {
			out[j] = "Spine1"
		}
	}
	return out
}
