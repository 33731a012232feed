package anatomy

import "fmt"

// Kind is a creature kind with its own skeleton template.
type Kind string

// The kinds Fit knows. Auto asks Fit to detect the kind.
const (
	Auto      Kind = "auto"
	Humanoid  Kind = "humanoid"
	Quadruped Kind = "quadruped"
	Bird      Kind = "bird"
	Fish      Kind = "fish"
	Snake     Kind = "snake"
	Other     Kind = "other"
)

// Kinds lists the kinds a caller may ask for, Auto first.
var Kinds = []Kind{Auto, Humanoid, Quadruped, Bird, Fish, Snake, Other}

// ParseKind parses a kind name ("" means Auto).
func ParseKind(s string) (Kind, error) {
	if s == "" {
		return Auto, nil
	}
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("kind %q: want one of auto, humanoid, quadruped, bird, fish, snake, other", s)
}

// Humanoid joint names (Mixamo's, without the "mixamorig:" prefix). Side-dependent
// names are built by Side.
const (
	Hips     = "Hips"
	Spine    = "Spine"
	Spine1   = "Spine1"
	Spine2   = "Spine2"
	Neck     = "Neck"
	Head     = "Head"
	Shoulder = "Shoulder" // LeftShoulder, RightShoulder
	Arm      = "Arm"
	ForeArm  = "ForeArm"
	Hand     = "Hand"
	UpLeg    = "UpLeg"
	Leg      = "Leg"
	Foot     = "Foot"
	ToeBase  = "ToeBase"
)

// The end joints of the humanoid and the limb names of the other templates.
const (
	headTopEnd  = "HeadTop_End"
	toeEnd      = "Toe_End"
	frontUpLeg  = "FrontUpLeg" // quadruped
	frontLeg    = "FrontLeg"
	frontFoot   = "FrontFoot"
	hindUpLeg   = "HindUpLeg"
	hindLeg     = "HindLeg"
	hindFoot    = "HindFoot"
	wingArm     = "WingArm" // bird
	wingForeArm = "WingForeArm"
	wingHand    = "WingHand"
	fin         = "Fin" // fish: LeftFin, RightFin
	dorsalFin   = "DorsalFin"
	tailFin     = "TailFin"
)

// Side prefixes a side-dependent name: Side(+1, "Arm") is "LeftArm" (+X is the
// character's left), Side(-1, "Arm") is "RightArm".
func Side(side int, name string) string {
	if side > 0 {
		return "Left" + name
	}
	return "Right" + name
}

// numberedName returns a numbered chain name: numberedName("Tail", 1) is "Tail1".
func numberedName(base string, i int) string { return fmt.Sprintf("%s%d", base, i) }

// Generic names for kind Other: descriptive, numbered from 1.
func genericSpine(i int) string   { return fmt.Sprintf("spine_%02d", i) }
func genericLimb(n, k int) string { return fmt.Sprintf("limb_%d_%d", n, k) }
func genericLimbEnd(n int) string { return fmt.Sprintf("limb_%d_end", n) }
func genericTail(i int) string    { return fmt.Sprintf("tail_%02d", i) }
