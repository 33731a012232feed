package animation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

func TestWordsOf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"skeleton_arm_upper.L", []string{"skeleton", "arm", "upper", "l"}},
		{"lShldrBend", []string{"l", "shldr", "bend"}},
		{"CC_Base_L_Upperarm", []string{"cc", "base", "l", "upperarm"}},
		{"Character1_LeftUpLeg", []string{"character", "1", "left", "up", "leg"}},
		{"LThigh", []string{"l", "thigh"}},
		{"armature|Spine01", []string{"spine", "01"}},
		{"L.DownLeg", []string{"l", "down", "leg"}},
		{"__", nil},
	} {
		if got := wordsOf(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("wordsOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// descriptiveSchemes rename a skeleton's rigkit names to other tools' words:
// per rigkit name (Left side), a pattern whose {s} is the side's word.
var descriptiveSchemes = []struct {
	name  string
	sides [2]string
	names map[string]string
}{
	{"0 A.D.", [2]string{"L", "R"}, map[string]string{"Hips": "hip", "Spine2": "chest", "Neck": "neck", "Head": "head",
		"LeftShoulder": "shoulder_{s}", "LeftArm": "arm_{s}", "LeftForeArm": "forearm_{s}", "LeftHand": "hand_{s}",
		"LeftUpLeg": "thigh_{s}", "LeftLeg": "leg_{s}", "LeftFoot": "foot_{s}"}},
	{"OpenClonk", [2]string{"L", "R"}, map[string]string{"Hips": "skeleton_hips", "Spine2": "skeleton_body",
		"Neck": "skeleton_neck", "Head": "skeleton_head", "LeftArm": "skeleton_arm_upper.{s}",
		"LeftForeArm": "skeleton_arm_lower.{s}", "LeftHand": "skeleton_arm_hand.{s}", "LeftUpLeg": "skeleton_leg_upper.{s}",
		"LeftLeg": "skeleton_leg_lower.{s}", "LeftFoot": "skeleton_foot_ball.{s}"}},
	{"SMPL", [2]string{"L", "R"}, map[string]string{"Hips": "Pelvis", "Spine2": "Spine3", "Neck": "Neck", "Head": "Head",
		"LeftShoulder": "{s}_Collar", "LeftArm": "{s}_Shoulder", "LeftForeArm": "{s}_Elbow", "LeftHand": "{s}_Wrist",
		"LeftUpLeg": "{s}_Hip", "LeftLeg": "{s}_Knee", "LeftFoot": "{s}_Ankle", "LeftToeBase": "{s}_Foot"}},
	{"Daz Genesis", [2]string{"l", "r"}, map[string]string{"Hips": "hip", "Spine2": "chestUpper", "Neck": "neckLower",
		"Head": "head", "LeftShoulder": "{s}Collar", "LeftArm": "{s}ShldrBend", "LeftForeArm": "{s}ForearmBend",
		"LeftHand": "{s}Hand", "LeftUpLeg": "{s}ThighBend", "LeftLeg": "{s}Shin", "LeftFoot": "{s}Foot", "LeftToeBase": "{s}Toe"}},
	{"Character Creator", [2]string{"L", "R"}, map[string]string{"Hips": "CC_Base_Hip", "Spine2": "CC_Base_Spine02",
		"Neck": "CC_Base_NeckTwist01", "Head": "CC_Base_Head", "LeftShoulder": "CC_Base_{s}_Clavicle",
		"LeftArm": "CC_Base_{s}_Upperarm", "LeftForeArm": "CC_Base_{s}_Forearm", "LeftHand": "CC_Base_{s}_Hand",
		"LeftUpLeg": "CC_Base_{s}_Thigh", "LeftLeg": "CC_Base_{s}_Calf", "LeftFoot": "CC_Base_{s}_Foot", "LeftToeBase": "CC_Base_{s}_ToeBase"}},
	{"Unity humanoid", [2]string{"Left", "Right"}, map[string]string{"Hips": "Hips", "Spine2": "UpperChest", "Neck": "Neck",
		"Head": "Head", "LeftShoulder": "{s}Shoulder", "LeftArm": "{s}UpperArm", "LeftForeArm": "{s}LowerArm",
		"LeftHand": "{s}Hand", "LeftUpLeg": "{s}UpperLeg", "LeftLeg": "{s}LowerLeg", "LeftFoot": "{s}Foot", "LeftToeBase": "{s}Toes"}},
	{"Blender metarig", [2]string{"L", "R"}, map[string]string{"Hips": "pelvis", "Spine2": "chest", "Neck": "neck",
		"Head": "head", "LeftShoulder": "shoulder.{s}", "LeftArm": "upper_arm.{s}", "LeftForeArm": "forearm.{s}",
		"LeftHand": "hand.{s}", "LeftUpLeg": "thigh.{s}", "LeftLeg": "shin.{s}", "LeftFoot": "foot.{s}", "LeftToeBase": "toe.{s}"}},
}

// TestDescriptiveSchemes renames a biped by the words of other tools' schemes
// and checks that every limb joint, the hips and the head are read back where
// they are, and that the clips play on it.
func TestDescriptiveSchemes(t *testing.T) {
	c := generate(t, "biped", 1)
	for _, sc := range descriptiveSchemes {
		t.Run(sc.name, func(t *testing.T) {
			sk, want := renamedArtist(c.Skeleton, sc.names, sc.sides)
			got := jointIndex(sk)
			for canon, j := range want {
				if canon == "Spine2" || canon == "Neck" && sc.name == "Character Creator" {
					continue // the trunk is numbered by what the skeleton has; a twist joint is left out
				}
				if got[canon] != j {
					t.Errorf("%s (%s) read at joint %d (%s)", canon, sk.Names[j], got[canon], sk.Names[got[canon]])
				}
			}
			if kind, err := DetectKind(sk); err != nil || kind != Humanoid {
				t.Errorf("DetectKind = %q, %v", kind, err)
			}
			if frames := ClipPoses(sk); len(frames) == 0 {
				t.Error("no clip poses")
			}
		})
	}
}

// TestDescriptiveReadsOnlyHumanoids checks the skeletons the reading must leave
// to the shape guess: a four-legged mob's one-bone Arm and Leg, a bird's
// humerus, names whose words are accessories, and a hierarchy the names
// contradict.
func TestDescriptiveReadsOnlyHumanoids(t *testing.T) {
	c := generate(t, "biped", 1)
	mob := &character.Skeleton{Names: []string{"Torso", "Head", "Arm.L", "Arm.R", "Leg.L", "Leg.R"},
		Parents: []int{-1, 0, 0, 0, 0, 0}}
	for _, p := range []vecmath.Vec3{{0, 1, 0}, {0, 1.2, 0.5}, {0.2, 0.8, 0.3}, {-0.2, 0.8, 0.3}, {0.2, 0.8, -0.3}, {-0.2, 0.8, -0.3}} {
		mob.BindWorld = append(mob.BindWorld, vecmath.Translate4(p))
	}
	if n := keyNames(indexOf(skeletonNames(mob)), Humanoid); n >= minKeyNames {
		t.Errorf("a four-legged mob's names read as %d humanoid key joints", n)
	}
	capes, _ := renamedArtist(c.Skeleton, map[string]string{"Hips": "cape_root", "LeftArm": "cape_arm_{s}", "LeftForeArm": "sleeve_{s}",
		"LeftUpLeg": "skirt_thigh_{s}", "LeftLeg": "skirt_leg_{s}", "Head": "hair"}, [2]string{"L", "R"})
	if _, err := DetectKind(capes); err == nil {
		t.Error("accessory names detected as a kind")
	}
	crossed, want := renamedArtist(c.Skeleton, descriptiveSchemes[0].names, descriptiveSchemes[0].sides)
	crossed.Parents[want["LeftLeg"]] = want["RightUpLeg"]
	crossed.Parents[want["RightLeg"]] = want["LeftUpLeg"]
	if _, err := DetectKind(crossed); err == nil {
		t.Error("names that contradict the hierarchy were read")
	}
}

// TestDescriptiveRanks checks the words that name a part only by what else the
// skeleton has: a lone leg is the shin below a thigh and a one-bone leg
// otherwise, a knee gives way to a leg word (0 A.D.'s knee poles hang from the
// root), a Blender copy of a limb and a hind leg are left unread.
func TestDescriptiveRanks(t *testing.T) {
	sk := &character.Skeleton{
		Names:   []string{"hip", "thigh_L", "leg_L", "knee_L", "UpperLeg.L", "UpperLeg.L.001", "leg_R", "BackUpLeg.R"},
		Parents: []int{-1, 0, 1, -1, 0, 0, 0, 0},
	}
	got := descriptiveNames(sk)
	// thigh_L and UpperLeg.L both say LeftUpLeg at one depth: neither is read.
	// BackUpLeg.R is a hind leg, another kind's.
	want := []string{"Hips", "", "LeftLeg", "", "", "", "RightUpLeg", ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("descriptiveNames = %q, want %q", got, want)
	}
}

// quadrupedSchemes rename a quadruped's legs by other tools' words (Left side;
// {s} is the side's word, {e} the end's).
var quadrupedSchemes = []struct {
	name  string
	sides [2]string
	ends  [2]string // front, hind
	names map[string]string
}{
	{"0 A.D. cattle", [2]string{"L", "R"}, [2]string{"Front", "Rear"}, map[string]string{"Hips": "Bovidae_pelvis",
		"Head": "Bovidae_Head", "LeftFrontUpLeg": "Bovidae_{e}Thigh_{s}", "LeftFrontLeg": "Bovidae_{e}Calf_{s}",
		"LeftFrontFoot": "Bovidae_{e}Foot_{s}"}},
	{"Quaternius farm", [2]string{"L", "R"}, [2]string{"Front", "Back"}, map[string]string{"Hips": "Hips", "Head": "Head",
		"LeftFrontUpLeg": "{e}UpLeg.{s}", "LeftFrontLeg": "{e}LowLeg.{s}", "LeftFrontFoot": "{e}Foot.{s}"}},
	{"Minetest mob", [2]string{"left", "right"}, [2]string{"front", "back"}, map[string]string{"Hips": "body",
		"Head": "head", "LeftFrontUpLeg": "leg.{e}.{s}"}},
}

// renamedQuadruped names c's joints by scheme (others bone_NN) and returns the
// joint of each rigkit name it gives.
func renamedQuadruped(c *character.Character, sc map[string]string, sides, ends [2]string) (*character.Skeleton, map[string]int) {
	sk := c.Skeleton.Clone()
	want := map[string]int{}
	for j, n := range sk.Names {
		canon := CanonicalName(n)
		sk.Names[j] = fmt.Sprintf("bone_%02d", j)
		base, side, end := canon, 0, 0
		if s, ok := strings.CutPrefix(base, "Right"); ok {
			base, side = "Left"+s, 1
		}
		if s, ok := strings.CutPrefix(base, "LeftHind"); ok {
			base, end = "LeftFront"+s, 1
		}
		if p, ok := sc[base]; ok {
			sk.Names[j] = strings.NewReplacer("{s}", sides[side], "{e}", ends[end]).Replace(p)
			want[canon] = j
		}
	}
	return sk, want
}

// TestDescriptiveQuadrupeds renames a quadruped's legs in three schemes and
// reads the four legs back; with the sides labelled as seen from the front the
// reading turns them round; a biped whose arms are named front legs (a
// dinosaur's) is not read as a quadruped.
func TestDescriptiveQuadrupeds(t *testing.T) {
	c := generate(t, "quadruped", 1)
	legs := []string{"LeftFrontUpLeg", "RightFrontUpLeg", "LeftHindUpLeg", "RightHindUpLeg"}
	for _, sc := range quadrupedSchemes {
		for _, mirrored := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s mirrored %v", sc.name, mirrored), func(t *testing.T) {
				sides := sc.sides
				if mirrored {
					sides[0], sides[1] = sides[1], sides[0]
				}
				sk, want := renamedQuadruped(c, sc.names, sides, sc.ends)
				got := jointIndex(sk)
				for _, leg := range legs {
					if got[leg] != want[leg] {
						t.Errorf("%s read at joint %d (%s), is joint %d", leg, got[leg], sk.Names[got[leg]], want[leg])
					}
				}
				if kind, err := DetectKind(sk); kind != Quadruped {
					t.Errorf("DetectKind = %q, %v", kind, err)
				}
			})
		}
	}
	biped := generate(t, "biped", 1)
	dino, _ := renamedArtist(biped.Skeleton, map[string]string{"Hips": "Hips", "Head": "Head", "LeftArm": "FrontUpLeg.{s}",
		"LeftForeArm": "FrontLowLeg.{s}", "LeftUpLeg": "BackUpLeg.{s}", "LeftLeg": "BackLowLeg.{s}"}, [2]string{"L", "R"})
	if kind, err := DetectKind(dino); err == nil && kind == Quadruped {
		t.Error("a biped whose arms are named front legs was read as a quadruped")
	}
}
