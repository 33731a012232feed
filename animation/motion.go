package animation

import (
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// MotionClips are the clips Motion plays: each works a different group of the
// joints animators watch (hips and knees, one shoulder and elbow, the whole leg
// folded, both arms raised). A kind without one of them plays the others.
var MotionClips = []string{"walk", "wave", "crouch", "arms_up"}

// Motion poses sk by rigkit's clips of its kind: MotionClips, frames of each at
// the middles of equal steps of its duration (so a clip that starts at rest gives
// no frame at rest), as skinning matrices (posed world × inverse bind, one per
// joint, in sk's units). Joints are matched by their names, which must follow a
// known scheme, name at least motionKeyNames of the kind's key joints (its legs
// and arms, not a fish's Hips, Spine and Head alone), and hang from one another
// as the scheme says (schemeAgrees), on a
// skeleton `rig animate` would animate (CheckKind); any other skeleton gets no
// frames. Shape guesses are not used: they read a cape's cloth strips or a
// bird's wings as a biped's limbs, and names handed out to the wrong joints must
// not buy a rig the clips' poses. It also returns the clips played.
func Motion(sk *character.Skeleton, frames int) ([][]vecmath.Mat4, []string) {
	if sk.NumJoints() == 0 {
		return nil, nil
	}
	canon := skeletonNames(sk) // read once: the readings look at the whole skeleton
	idx := indexOf(canon)
	kind, err := detectKind(sk, idx)
	if err != nil || keyNames(idx, kind) < motionKeyNames || !agrees(sk, canon, kind) || CheckKind(sk, kind, true) != nil {
		return nil, nil
	}
	rigged := &character.Character{Skeleton: sk}
	var out [][]vecmath.Mat4
	var played []string
	for _, name := range MotionClips {
		clip, err := Lookup(name, kind)
		if err != nil {
			continue
		}
		anim, _, err := Apply(rigged, clip, Options{})
		if err != nil {
			continue
		}
		played = append(played, name)
		for f := 0; f < frames; f++ {
			t := clip.Duration * (float64(f) + 0.5) / float64(frames)
			out = append(out, sk.SkinningMatrices(AnimatedWorld(sk, anim, t)))
		}
	}
	return out, played
}

// motionKeyNames is how many of its kind's 11 key joints (DetectKind's) a
// skeleton must name for Motion to play clips on it.
const motionKeyNames = 8

// keyNames counts the key joints of kind among a skeleton's canonical names
// (jointIndex).
func keyNames(idx map[string]int, kind string) int {
	n := 0
	for _, name := range kindJoints[kind] {
		if _, ok := idx[name]; ok {
			n++
		}
	}
	return n
}

// ClipPoseFrames is how many frames of each clip ClipPoses takes: at a sixth, a
// half and five sixths of its duration, so a clip that goes out and back (crouch,
// arms up) is posed at its deepest.
const ClipPoseFrames = 3

// ClipPoses is Motion's frames alone, ClipPoseFrames of each clip: the poses of
// the rewards' deformation (rewards.Options.Motion).
func ClipPoses(sk *character.Skeleton) [][]vecmath.Mat4 {
	out, _ := Motion(sk, ClipPoseFrames)
	return out
}

// schemeAgrees says whether sk's named joints hang from one another as kind's
// naming scheme says: every joint with a name of the scheme hangs (through
// joints without one) from the nearest of its scheme ancestors that the rig has
// (a rig without Spine1 hangs Spine2 from Spine), or from no named joint at all
// (an inverse-kinematics foot on the root). One joint may disagree (a leg hung
// off the other thigh, as some rigs do); names handed out to the joints of a
// star or a chain disagree at almost every joint.
func schemeAgrees(sk *character.Skeleton, kind string) bool {
	return agrees(sk, skeletonNames(sk), kind)
}

// agrees is schemeAgrees for the names canon of sk's joints.
func agrees(sk *character.Skeleton, canon []string, kind string) bool {
	parents := canonParent[kind]
	idx := indexOf(canon)
	wrong := 0
	for j, c := range canon {
		if _, ok := parents[c]; !ok || idx[c] != j {
			continue
		}
		want := parents[c]
		for want != "" {
			if _, ok := idx[want]; ok {
				break
			}
			want = parents[want]
		}
		got := ""
		for a := sk.Parents[j]; a >= 0; a = sk.Parents[a] {
			if _, ok := parents[canon[a]]; ok && idx[canon[a]] == a {
				got = canon[a]
				break
			}
		}
		if got != "" && got != want {
			wrong++
		}
	}
	return wrong <= 1
}
