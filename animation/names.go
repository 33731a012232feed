package animation

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/rigkit/rigkit/character"
)

// CanonicalName returns the joint name a clip uses for a skeleton's joint name: the
// name without a namespace prefix ("mixamorig:Hips", "mixamorig_Hips" and
// "Armature|Hips" are "Hips"), and the names of the schemes of docs/naming.md
// translated to rigkit's: 3ds Max Biped ("Bip01 L Thigh"), the Unreal mannequin
// ("thigh_l"), VRM humanoid bones ("leftUpperLeg"), Rigify's deform bones
// ("DEF-thigh.L") and rigkit's synthetic creatures (package synth: hips, chest,
// arm_l_upper, leg_fl_lower, tail_03, …). Other names come back unchanged.
func CanonicalName(name string) string {
	if i := strings.LastIndexAny(name, ":|"); i >= 0 {
		name = name[i+1:]
	}
	name = mixamoUnderscore.ReplaceAllString(name, "")
	if n, ok := schemeName(name); ok {
		return n
	}
	if n, ok := synthNames[name]; ok {
		return n
	}
	if m := synthSided.FindStringSubmatch(name); m != nil {
		return sideName(m[2]) + synthLimb[m[1]+"_"+m[3]]
	}
	if m := synthQuadLeg.FindStringSubmatch(name); m != nil {
		part := map[string]string{"upper": "UpLeg", "lower": "Leg", "foot": "Foot", "toe": "Toe"}[m[3]]
		return sideName(m[2]) + map[string]string{"f": "Front", "b": "Hind"}[m[1]] + part
	}
	if m := synthTail.FindStringSubmatch(name); m != nil {
		return "Tail" + strings.TrimLeft(m[1], "0")
	}
	return name
}

func sideName(tag string) string {
	if tag == "l" {
		return "Left"
	}
	return "Right"
}

// synthNames are the unsided joints of package synth's bipeds and quadrupeds.
var synthNames = map[string]string{
	"hips": "Hips", "spine_01": "Spine", "spine_02": "Spine1", "chest": "Spine2",
	"neck": "Neck", "neck_01": "Neck", "neck_02": "Neck1", "head": "Head",
}

var (
	synthSided   = regexp.MustCompile(`^(clavicle|arm|hand|leg|foot|toe)_([lr])(?:_(upper|lower))?$`)
	synthQuadLeg = regexp.MustCompile(`^leg_([fb])([lr])_(upper|lower|foot|toe)$`)
	synthTail    = regexp.MustCompile(`^tail_(0*[1-9][0-9]*)$`)
	synthLimb    = map[string]string{
		"clavicle_": "Shoulder", "arm_upper": "Arm", "arm_lower": "ForeArm", "hand_": "Hand",
		"leg_upper": "UpLeg", "leg_lower": "Leg", "foot_": "Foot", "toe_": "ToeBase",
	}
)

// kindJoints are the joints that identify a skeleton kind; a skeleton is of the
// kind whose joints it has most of.
var kindJoints = map[string][]string{
	Humanoid: {"Hips", "LeftUpLeg", "RightUpLeg", "LeftLeg", "RightLeg", "LeftArm", "RightArm",
		"LeftForeArm", "RightForeArm", "Spine", "Head"},
	Quadruped: {"Hips", "LeftFrontUpLeg", "RightFrontUpLeg", "LeftHindUpLeg", "RightHindUpLeg",
		"LeftFrontLeg", "RightFrontLeg", "LeftHindLeg", "RightHindLeg", "Spine", "Head"},
}

// jointIndex maps canonical names (skeletonNames) to joint indices (the first
// joint wins when two names collapse to one).
func jointIndex(sk *character.Skeleton) map[string]int {
	return indexOf(skeletonNames(sk))
}

// indexOf maps names to their first joint.
func indexOf(canon []string) map[string]int {
	idx := make(map[string]int, len(canon))
	for j, c := range canon {
		if _, ok := idx[c]; !ok && c != "" {
			idx[c] = j
		}
	}
	return idx
}

// minKeyNames is how many of a kind's key joints a skeleton's names must give
// for DetectKind to call it that kind.
const minKeyNames = 3

// skeletonNames returns rigkit's names of sk's joints: CanonicalNames of its
// names, or, when those give fewer than minKeyNames key joints of either kind,
// the descriptive reading (descriptive.go) where it gives motionKeyNames of the
// humanoid's 11 (two-bone arms and legs, a trunk and a head: no bird's or
// four-legged mob's "Arm.R" and "Leg.R"), hangs as the humanoid scheme says
// (schemeAgrees) and the shape is no quadruped's; else the quadruped reading
// (descriptive_quadruped.go) where it names all four legs, reaching down alike,
// hung as the quadruped scheme says. Joints a reading leaves out keep
// their canonical names unless it gave that name to another joint ("" then).
func skeletonNames(sk *character.Skeleton) []string {
	canon := CanonicalNames(sk.Names)
	have := max(keyNames(indexOf(canon), Humanoid), keyNames(indexOf(canon), Quadruped))
	if have >= minKeyNames || len(sk.BindWorld) != len(sk.Names) || len(sk.Parents) != len(sk.Names) {
		return canon // the readings look at where the joints are
	}
	if read := withCanon(descriptiveNames(sk), canon); keyNames(indexOf(read), Humanoid) >= motionKeyNames &&
		agrees(sk, read, Humanoid) && armsAboveFeet(sk, read) && !quadrupedShape(sk) {
		return read
	}
	if read := withCanon(quadrupedNames(sk), canon); legsLevel(sk, read) && agrees(sk, read, Quadruped) {
		return read
	}
	return canon
}

// withCanon fills the joints a reading leaves out with their canonical names,
// unless the reading gave that name to another joint ("" then).
func withCanon(read, canon []string) []string {
	given := map[string]bool{}
	for _, n := range read {
		given[n] = true
	}
	for j, n := range read {
		if n == "" && !given[canon[j]] {
			read[j] = canon[j]
		}
	}
	return read
}

// armsAboveFeet says whether a humanoid reading's arms end well above its feet:
// the lowest joint under either arm more than a fifth of the height above the
// lowest under either leg, along the legs' up (0 A.D.'s elephants name their
// front legs Arm and Forearm).
func armsAboveFeet(sk *character.Skeleton, read []string) bool {
	idx := indexOf(read)
	var arms, legs []int
	for _, side := range []string{"Left", "Right"} {
		if j, ok := idx[side+"Arm"]; ok {
			arms = append(arms, j)
		}
		if j, ok := idx[side+"UpLeg"]; ok {
			legs = append(legs, j)
		}
	}
	if len(arms) == 0 || len(legs) == 0 {
		return true
	}
	up := tipsUp(sk, legs)
	children := sk.Children()
	lowest := func(tops []int) float64 {
		low := math.Inf(1)
		for _, t := range tops {
			for _, j := range append(below(children, t), t) {
				low = math.Min(low, sk.Position(j).Dot(up))
			}
		}
		return low
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range sk.Names {
		h := sk.Position(j).Dot(up)
		lo, hi = math.Min(lo, h), math.Max(hi, h)
	}
	return lowest(arms)-lowest(legs) > 0.2*(hi-lo)
}

// quadrupedShape says whether sk's shape is guessed as a quadruped's.
func quadrupedShape(sk *character.Skeleton) bool {
	_, err := GuessQuadrupedNames(sk)
	return err == nil
}

// DetectKind says which clip kind a skeleton's names fit: humanoid or quadruped.
// It fails, listing the names it looks for, when the skeleton has neither's legs.
func DetectKind(sk *character.Skeleton) (string, error) {
	if sk.NumJoints() == 0 {
		return "", fmt.Errorf("no skeleton")
	}
	return detectKind(sk, jointIndex(sk))
}

// detectKind is DetectKind on the joint index of sk's names.
func detectKind(sk *character.Skeleton, idx map[string]int) (string, error) {
	best, bestN := "", 0
	for _, kind := range []string{Humanoid, Quadruped} {
		if n := keyNames(idx, kind); n > bestN {
			best, bestN = kind, n
		}
	}
	if bestN < minKeyNames {
		return "", fmt.Errorf("the skeleton's joint names (%s) follow no known scheme: a humanoid needs %s; "+
			"a quadruped needs %s (docs/naming.md; a \"prefix:\" is ignored)",
			sample(sk.Names, 6), strings.Join(kindJoints[Humanoid], ", "), strings.Join(kindJoints[Quadruped], ", "))
	}
	return best, nil
}

// sample lists the first n names.
func sample(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(", … %d in all", len(names))
}

// canonParent is the hierarchy of docs/naming.md, per kind: each name's parent
// ("" for the root). A clip's turns compose along it, not along the target's own
// hierarchy, so a rig that lacks a joint (no Spine1) or hangs a limb elsewhere
// still gets every named joint's full rotation.
var canonParent = map[string]map[string]string{
	Humanoid:  humanoidParents(),
	Quadruped: quadrupedParents(),
}

func humanoidParents() map[string]string {
	p := map[string]string{"Hips": "", "Spine": "Hips", "Spine1": "Spine", "Spine2": "Spine1",
		"Neck": "Spine2", "Neck1": "Neck", "Head": "Neck1", "HeadTop_End": "Head"}
	for _, s := range []string{"Left", "Right"} {
		chain(p, "Spine2", s+"Shoulder", s+"Arm", s+"ForeArm", s+"Hand")
		chain(p, "Hips", s+"UpLeg", s+"Leg", s+"Foot", s+"ToeBase", s+"Toe_End")
		for _, f := range []string{"Thumb", "Index", "Middle", "Ring", "Pinky"} {
			chain(p, s+"Hand", s+"Hand"+f+"1", s+"Hand"+f+"2", s+"Hand"+f+"3")
		}
	}
	return p
}

func quadrupedParents() map[string]string {
	p := map[string]string{"Hips": "", "Spine": "Hips", "Spine1": "Spine", "Spine2": "Spine1",
		"Neck": "Spine2", "Head": "Neck", "Jaw": "Head", "Tail1": "Hips"}
	for i := 2; i <= 12; i++ {
		p[fmt.Sprintf("Tail%d", i)] = fmt.Sprintf("Tail%d", i-1)
	}
	for _, s := range []string{"Left", "Right"} {
		chain(p, "Spine2", s+"FrontUpLeg", s+"FrontLeg", s+"FrontFoot", s+"FrontToe")
		chain(p, "Hips", s+"HindUpLeg", s+"HindLeg", s+"HindFoot", s+"HindToe")
		p[s+"Ear"] = "Head"
	}
	return p
}

// chain records names as a parent → child chain hanging from root.
func chain(p map[string]string, root string, names ...string) {
	for _, n := range names {
		p[n] = root
		root = n
	}
}
