package animation

import (
	"reflect"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestSchemeNames pins the name map of every scheme docs/naming.md lists, and the
// names that must match nothing (twist bones, eyebrows, IK targets).
func TestSchemeNames(t *testing.T) {
	cases := []struct {
		scheme string
		in     string
		want   string
	}{
		{"mixamo", "mixamorig:LeftUpLeg", "LeftUpLeg"},
		{"mixamo", "mixamorig1:Spine2", "Spine2"},
		{"mixamo", "mixamorig_RightHand", "RightHand"},
		{"mixamo", "LeftForeArm", "LeftForeArm"},
		{"biped", "Bip01 Pelvis", "Hips"},
		{"biped", "Bip01 Spine1", "Spine1"},
		{"biped", "Bip01 Head", "Head"},
		{"biped", "Bip01 L Thigh", "LeftUpLeg"},
		{"biped", "Bip01 R Calf", "RightLeg"},
		{"biped", "Bip01 L Toe0", "LeftToeBase"},
		{"biped", "Bip01 R Clavicle", "RightShoulder"},
		{"biped", "Bip01 L UpperArm", "LeftArm"},
		{"biped", "Bip01 L Forearm", "LeftForeArm"},
		{"biped", "Bip001_R_Hand", "RightHand"},
		{"biped", "Bip01 L Finger0", "LeftHandThumb1"},
		{"biped", "Bip01 R Finger12", "RightHandIndex3"},
		{"biped", "Bip01 LInnerEyebrow", "Bip01 LInnerEyebrow"},
		{"biped", "Bip01 L Toe0Nub", "Bip01 L Toe0Nub"},
		{"biped", "Bip01", "Bip01"},
		{"unreal", "pelvis", "Hips"},
		{"unreal", "spine_01", "Spine"},
		{"unreal", "spine_03", "Spine2"},
		{"unreal", "neck_01", "Neck"},
		{"unreal", "head", "Head"},
		{"unreal", "clavicle_l", "LeftShoulder"},
		{"unreal", "upperarm_l", "LeftArm"},
		{"unreal", "lowerarm_r", "RightForeArm"},
		{"unreal", "thigh_r", "RightUpLeg"},
		{"unreal", "calf_l", "LeftLeg"},
		{"unreal", "ball_l", "LeftToeBase"},
		{"unreal", "thumb_01_l", "LeftHandThumb1"},
		{"unreal", "pinky_03_r", "RightHandPinky3"},
		{"unreal", "upperarm_twist_01_l", "upperarm_twist_01_l"},
		{"unreal", "ik_foot_l", "ik_foot_l"},
		{"vrm", "hips", "Hips"},
		{"vrm", "spine", "Spine"},
		{"vrm", "leftUpperLeg", "LeftUpLeg"},
		{"vrm", "rightLowerLeg", "RightLeg"},
		{"vrm", "leftToes", "LeftToeBase"},
		{"vrm", "leftUpperArm", "LeftArm"},
		{"vrm", "rightLowerArm", "RightForeArm"},
		{"vrm", "leftIndexProximal", "LeftHandIndex1"},
		{"vrm", "rightLittleDistal", "RightHandPinky3"},
		{"vrm", "leftEye", "leftEye"},
		{"rigify", "DEF-spine", "Hips"},
		{"rigify", "DEF-spine.001", "Spine"},
		{"rigify", "DEF-spine.003", "Spine2"},
		{"rigify", "DEF-spine.006", "Head"},
		{"rigify", "DEF-thigh.L", "LeftUpLeg"},
		{"rigify", "DEF-shin.R", "RightLeg"},
		{"rigify", "DEF-toe.L", "LeftToeBase"},
		{"rigify", "DEF-upper_arm.L", "LeftArm"},
		{"rigify", "DEF-forearm.R", "RightForeArm"},
		{"rigify", "DEF-f_index.01.L", "LeftHandIndex1"},
		{"rigify", "DEF-thumb.03.R", "RightHandThumb3"},
		{"rigify", "DEF-upper_arm.L.001", "DEF-upper_arm.L.001"},
		{"rigify", "ORG-thigh.L", "ORG-thigh.L"},
		{"quaternius", "Abdomen", "Spine"},
		{"quaternius", "Torso", "Spine2"},
		{"quaternius", "Shoulder.L", "LeftShoulder"},
		{"quaternius", "UpperArm.R", "RightArm"},
		{"quaternius", "LowerArm.L", "LeftForeArm"},
		{"quaternius", "Palm.R", "RightHand"},
		{"quaternius", "UpperLeg.L", "LeftUpLeg"},
		{"quaternius", "LowerLeg.R", "RightLeg"},
		{"quaternius", "Foot.L", "LeftFoot"},
		{"quaternius", "Thumb1.L", "Thumb1.L"},
		{"quaternius", "PoleTarget.L", "PoleTarget.L"},
		{"quadruped", "LeftFrontUpLeg", "LeftFrontUpLeg"},
		{"quadruped", "leg_br_lower", "RightHindLeg"},
		{"quadruped", "tail_03", "Tail3"},
		{"synth", "arm_l_upper", "LeftArm"},
		{"synth", "chest", "Spine2"},
	}
	for _, c := range cases {
		if got := CanonicalName(c.in); got != c.want {
			t.Errorf("%s: CanonicalName(%q) = %q, want %q", c.scheme, c.in, got, c.want)
		}
	}
}

// TestSchemeSkeletonsDetected checks that a skeleton of each scheme is detected as
// its kind and that the VRM chest moves down a joint under an upperChest.
func TestSchemeSkeletonsDetected(t *testing.T) {
	cases := []struct {
		scheme string
		names  []string
		kind   string
	}{
		{"biped", []string{"Bip01", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Head", "Bip01 LInnerEyebrow", "Bip01 L Thigh", "Bip01 R Thigh", "Bip01 L Calf", "Bip01 R Calf"}, Humanoid},
		{"unreal", []string{"root", "pelvis", "spine_01", "head", "thigh_l", "thigh_r", "calf_l", "calf_r", "upperarm_l"}, Humanoid},
		{"vrm", []string{"hips", "spine", "chest", "upperChest", "head", "leftUpperLeg", "rightUpperLeg", "leftLowerLeg"}, Humanoid},
		{"rigify", []string{"DEF-spine", "DEF-spine.001", "DEF-spine.006", "DEF-thigh.L", "DEF-thigh.R", "DEF-shin.L", "DEF-shin.R"}, Humanoid},
		{"quaternius", []string{"Root", "Body", "Hips", "Abdomen", "Torso", "Neck", "Head", "UpperLeg.L", "UpperLeg.R", "LowerLeg.L", "LowerLeg.R", "UpperArm.L", "UpperArm.R", "LowerArm.L", "LowerArm.R"}, Humanoid},
		{"quadruped", []string{"Hips", "Spine", "Head", "LeftFrontUpLeg", "RightFrontUpLeg", "LeftHindUpLeg", "RightHindUpLeg"}, Quadruped},
	}
	for _, c := range cases {
		sk := &character.Skeleton{Names: c.names, Parents: make([]int, len(c.names)), BindWorld: make([]vecmath.Mat4, len(c.names))}
		for j := range sk.Parents {
			sk.Parents[j] = j - 1
		}
		got, err := DetectKind(sk)
		if err != nil || got != c.kind {
			t.Errorf("%s: DetectKind = %q, %v; want %s", c.scheme, got, err, c.kind)
		}
	}
	got := CanonicalNames([]string{"hips", "spine", "chest", "upperChest", "neck"})
	if want := []string{"Hips", "Spine", "Spine1", "Spine2", "Neck"}; !reflect.DeepEqual(got, want) {
		t.Errorf("VRM spine with upperChest: %v, want %v", got, want)
	}
	if got := CanonicalNames([]string{"hips", "spine", "chest", "neck"}); got[2] != "Spine2" {
		t.Errorf("VRM spine without upperChest: chest is %q, want Spine2", got[2])
	}
}
