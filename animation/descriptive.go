package animation

import (
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/rigkit/rigkit/character"
)

// The descriptive reading: a humanoid skeleton whose names follow none of the
// schemes of schemes.go but say in words what each joint is ("thigh_L",
// "skeleton_arm_upper.R", "CC_Base_L_Calf", "lShldrBend", SMPL's "L_Knee").
// Each name is split into words (at separators, case changes and digits); a side
// word (l, left, r, right) and a body-part word give the joint's rigkit name.
// Words of accessories, helpers and fingers (twist, ik, pole, cape, weapon,
// finger, …) leave a joint unread, and where two joints claim one name the
// hierarchy decides (descriptiveClaims.resolve). The reading is used only for a
// skeleton the schemes do not read and only when it hangs as the humanoid scheme
// says (skeletonNames).

// wordsOf splits a joint name into lower-case words: "skeleton_arm_upper.L" →
// skeleton arm upper l, "lShldrBend" → l shldr bend, "Spine01" → spine 01.
func wordsOf(name string) []string {
	if i := strings.LastIndexAny(name, ":|"); i >= 0 {
		name = name[i+1:]
	}
	rs := []rune(name)
	var words []string
	start := -1
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				words = append(words, strings.ToLower(string(rs[start:i])))
			}
			start = -1
			continue
		}
		if start >= 0 && wordBreak(rs, i) {
			words = append(words, strings.ToLower(string(rs[start:i])))
			start = i
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, strings.ToLower(string(rs[start:])))
	}
	return words
}

// wordBreak says whether a new word starts at rs[i]: lower to upper case
// ("shldrBend"), letters to digits and back ("Spine01"), and the last capital
// of a run before lower case ("LThigh" → L Thigh).
func wordBreak(rs []rune, i int) bool {
	a, b := rs[i-1], rs[i]
	switch {
	case unicode.IsDigit(a) != unicode.IsDigit(b):
		return true
	case unicode.IsLower(a) && unicode.IsUpper(b):
		return true
	case unicode.IsUpper(a) && unicode.IsUpper(b) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
		return true
	}
	return false
}

var (
	// leftWords and rightWords name a side.
	leftWords  = wordSet("l", "left", "lft")
	rightWords = wordSet("r", "right", "rt", "rgt")
	// unreadWords mark accessories, helpers, controls, twist and face bones,
	// fingers and the limbs of other kinds: a joint with one is left unread.
	unreadWords = wordSet("twist", "roll", "ik", "fk", "pole", "target", "ctrl", "control", "con", "helper", "null",
		"nub", "end", "tip", "top", "mch", "org", "ref", "socket", "attach", "attachment", "weapon", "shield", "sheath",
		"quiver", "holster", "prop", "item", "wield", "cape", "cloak", "skirt", "dress", "coat", "hair", "ear", "eye",
		"eyes", "lid", "brow", "jaw", "mouth", "lip", "tongue", "nose", "teeth", "pad", "guard", "armor", "armour",
		"cloth", "sleeve", "strap", "belt", "bag", "pouch", "tail", "wing", "magic", "bow", "gun", "sword", "pitch",
		"hat", "helmet", "breast", "muscle", "adjust", "offset", "corrective", "aux", "dyn", "jiggle", "physics",
		"proxy", "dummy", "marker", "locator", "pivot", "aim", "look", "thumb", "index", "middle", "ring", "pinky",
		"little", "finger", "fingers", "digit", "small", "metacarpal", "metatarsals", "knuckle", "front", "fore",
		"hind", "rear", "projectile", "ammo", "neckguard", "blend", "scale", "node")
	// spineWords are the trunk's joints between the hips and the neck, read in
	// their order down the hierarchy.
	spineWords = wordSet("spine", "abdomen", "torso", "waist", "lumbar", "chest", "upperchest", "thorax", "body",
		"ribcage", "back", "stomach")
	hipsWords = wordSet("hips", "hip", "pelvis")
	upper     = wordSet("upper", "up", "hi", "high")
	lower     = wordSet("lower", "low", "down", "lo")
	// blenderCopy is the suffix Blender gives a duplicated bone ("UpperLeg.L.001").
	blenderCopy = regexp.MustCompile(`\.[0-9]{3}$`)
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// claim is what one joint's words say it is: a sided limb part (part is the
// rigkit name without its side; rank 0 for the part's own word, 1 for a word
// that means it only by what else the skeleton has, 2 for a knee, which is a
// pole target as often as a shin), or one of the trunk's joints.
type claim struct {
	side string // "Left", "Right" or "" for the trunk
	part string // Shoulder, Arm, ForeArm, Hand, UpLeg, Leg, Foot, ToeBase; Hips, Spine, Neck, Head; "leg" (a leg word alone)
	rank int
	// word is "shoulder", the clavicle in most schemes and the upper arm in those
	// that also have a collar or an elbow (SMPL), "elbow", or "ankle", which
	// makes the foot below it the toes (SMPL); in a quadruped's reading, the leg's end: "Front" or
	// "Hind".
	word string
}

// readWords reads one name's words; ok is false when they say nothing rigkit's
// clips move.
func readWords(words []string) (claim, bool) {
	has := wordSet(words...)
	for w := range has {
		if unreadWords[w] {
			return claim{}, false
		}
	}
	left, right := anyOf(has, leftWords), anyOf(has, rightWords)
	if left == right { // no side, or both
		return trunkClaim(has)
	}
	if has["back"] { // a hind limb ("BackUpLeg.L"), another kind's
		return claim{}, false
	}
	c, ok := limbClaim(has)
	c.side = "Right"
	if left {
		c.side = "Left"
	}
	return c, ok
}

func anyOf(has, set map[string]bool) bool {
	for w := range has {
		if set[w] {
			return true
		}
	}
	return false
}

// limbClaim reads a sided name's part.
func limbClaim(has map[string]bool) (claim, bool) {
	arm, leg := has["arm"], has["leg"]
	switch {
	case has["collar"] || has["clavicle"] || has["clav"]:
		return claim{part: "Shoulder"}, true
	case has["shoulder"] && !arm:
		return claim{part: "Shoulder", word: "shoulder"}, true
	case has["upperarm"] || has["uparm"] || has["humerus"] || has["shldr"] || arm && anyOf(has, upper):
		return claim{part: "Arm"}, true
	case has["forearm"] || has["lowerarm"] || has["radius"] || arm && anyOf(has, lower):
		return claim{part: "ForeArm"}, true
	case has["elbow"]:
		return claim{part: "ForeArm", rank: 1, word: "elbow"}, true
	case has["hand"] || has["palm"] || has["wrist"] || has["fist"]:
		return claim{part: "Hand"}, true
	case arm:
		return claim{part: "Arm", rank: 1}, true
	case has["thigh"] || has["femur"] || has["upleg"] || has["upperleg"] || leg && anyOf(has, upper):
		return claim{part: "UpLeg"}, true
	case has["calf"] || has["shin"] || has["tibia"] || has["lowerleg"] || has["lowleg"] || has["downleg"] || leg && anyOf(has, lower):
		return claim{part: "Leg"}, true
	case has["knee"]:
		return claim{part: "Leg", rank: 2}, true
	case anyOf(has, hipsWords):
		return claim{part: "UpLeg", rank: 1}, true
	case has["toe"] || has["toes"] || has["ball"] && !has["foot"]:
		return claim{part: "ToeBase"}, true
	case has["ankle"]:
		return claim{part: "Foot", word: "ankle"}, true
	case has["foot"]:
		return claim{part: "Foot"}, true
	case leg:
		return claim{part: "leg", rank: 1}, true
	}
	return claim{}, false
}

// trunkClaim reads an unsided name's part.
func trunkClaim(has map[string]bool) (claim, bool) {
	switch {
	case has["head"]:
		return claim{part: "Head"}, true
	case has["neck"]:
		return claim{part: "Neck"}, true
	case anyOf(has, hipsWords):
		return claim{part: "Hips"}, true
	case anyOf(has, spineWords):
		return claim{part: "Spine"}, true
	}
	return claim{}, false
}

// descriptiveNames reads every joint of sk by its words and returns rigkit's
// names ("" for a joint left unread).
func descriptiveNames(sk *character.Skeleton) []string {
	claims := make([]*claim, sk.NumJoints())
	present := map[string]bool{}
	for _, name := range sk.Names {
		present[name] = true
	}
	for j, name := range sk.Names {
		if m := blenderCopy.FindStringIndex(name); m != nil && present[name[:m[0]]] {
			continue // a copy of another joint: a twist segment or a duplicated limb
		}
		if c, ok := readWords(wordsOf(name)); ok {
			claims[j] = &c
		}
	}
	settleSided(claims)
	return nameClaims(sk, claims, [2]string{"LeftUpLeg", "RightUpLeg"})
}

// nameClaims gives each name claimed to the joint that wins it (resolve), the
// trunk's names down the hierarchy, and Hips to the trunk's first joint when
// no joint says hips and both legs (hipLegs) hang below it.
func nameClaims(sk *character.Skeleton, claims []*claim, hipLegs [2]string) []string {
	d := depths(sk)
	out := make([]string, sk.NumJoints())
	byName := map[string][]int{}
	for j, c := range claims {
		if c != nil {
			byName[c.side+c.part] = append(byName[c.side+c.part], j)
		}
	}
	hips := -1
	if js, ok := byName["Hips"]; ok {
		if j, ok := resolve(sk, claims, js, d); ok {
			hips, out[j] = j, "Hips"
		}
	}
	for name, js := range byName {
		switch name {
		case "Hips":
		case "Spine", "Neck":
			nameTrunk(out, notAbove(sk, js, hips), d, name)
		default:
			if j, ok := resolve(sk, claims, js, d); ok {
				out[j] = name
			}
		}
	}
	hipsFromSpine(out, sk, d, hipLegs)
	return out
}

// notAbove drops from js the joints above hips (its ancestors): a body joint
// the hips and legs hang from (Quaternius' "Body") is the armature's, not the
// spine's.
func notAbove(sk *character.Skeleton, js []int, hips int) []int {
	if hips < 0 {
		return js
	}
	var out []int
	for _, j := range js {
		if !isAncestor(sk, j, hips) {
			out = append(out, j)
		}
	}
	return out
}

// settleSided turns the words that mean one part or another by what else the
// skeleton has: "shoulder" is the upper arm where the same side has a collar or
// an elbow,
// "foot" the toes where it has an ankle (SMPL), a lone "leg" the shin where the
// side has a thigh and the thigh otherwise (a one-bone leg).
func settleSided(claims []*claim) {
	has := map[string]bool{}
	for _, c := range claims {
		if c != nil && c.word != "shoulder" {
			has[c.side+c.part] = true
		}
		if c != nil && (c.word == "ankle" || c.word == "elbow") {
			has[c.side+c.word] = true
		}
	}
	for _, c := range claims {
		switch {
		case c == nil:
		case c.word == "shoulder" && (has[c.side+"Shoulder"] || has[c.side+"elbow"]):
			c.part, c.rank = "Arm", 1
		case c.part == "Foot" && c.word == "" && has[c.side+"ankle"]:
			c.part = "ToeBase"
		case c.part == "leg" && has[c.side+"UpLeg"]:
			c.part = "Leg"
		case c.part == "leg":
			c.part = "UpLeg"
		}
	}
}

// resolve picks the joint of js (all claiming one name) that gets it: among
// those of the best rank, a limb part goes to those that hang below the most
// claims of other names (a knee in its leg, not a pole target of that name on
// the root),
// then the one every other hangs below, else the single shallowest; none when
// two are equally shallow.
func resolve(sk *character.Skeleton, claims []*claim, js []int, d []int) (int, bool) {
	best := js[0]
	for _, j := range js {
		if claims[j].rank < claims[best].rank {
			best = j
		}
	}
	var top []int
	held := map[int]int{}
	for _, j := range js {
		if claims[j].rank != claims[best].rank {
			continue
		}
		top = append(top, j)
		if claims[j].side != "" {
			for a := sk.Parents[j]; a >= 0; a = sk.Parents[a] {
				if c := claims[a]; c != nil && c.side+c.part != claims[j].side+claims[j].part {
					held[j]++
				}
			}
		}
	}
	sort.Slice(top, func(a, b int) bool {
		ja, jb := top[a], top[b]
		if held[ja] != held[jb] {
			return held[ja] > held[jb]
		}
		return d[ja] < d[jb] || d[ja] == d[jb] && ja < jb
	})
	if len(top) > 1 && held[top[0]] == held[top[1]] && d[top[0]] == d[top[1]] && !isAncestor(sk, top[0], top[1]) {
		return 0, false
	}
	return top[0], true
}

// nameTrunk names the trunk joints js claiming one trunk part down the
// hierarchy: spine joints Spine, Spine1 and Spine2 (the first, the second and
// the last of more), neck joints Neck and Neck1.
func nameTrunk(out []string, js []int, d []int, part string) {
	sort.Slice(js, func(a, b int) bool { return d[js[a]] < d[js[b]] || d[js[a]] == d[js[b]] && js[a] < js[b] })
	names := []string{"Spine", "Spine1", "Spine2"}
	if part == "Neck" {
		names = []string{"Neck", "Neck1"}
	}
	for i, j := range js {
		switch {
		case i < len(names)-1:
			out[j] = names[i]
		case i == len(js)-1:
			out[j] = names[len(names)-1]
		}
	}
}

// hipsFromSpine makes the trunk's first joint Hips when no joint says hips and
// both legs (the hind legs of a quadruped) hang below it (a body bone the legs
// and the arms hang from).
func hipsFromSpine(out []string, sk *character.Skeleton, d []int, legs [2]string) {
	at := map[string]int{}
	for j, n := range out {
		if n != "" {
			at[n] = j
		}
	}
	if _, ok := at["Hips"]; ok {
		return
	}
	s, okS := at["Spine"]
	l, okL := at[legs[0]]
	r, okR := at[legs[1]]
	if okS && okL && okR && isAncestor(sk, s, l) && isAncestor(sk, s, r) {
		nameTrunk(out, trunkBelow(out, sk, s), d, "Spine")
		out[s] = "Hips"
	}
}

// trunkBelow lists the spine joints named below s (Spine1, Spine2), to be
// renamed one place up once s becomes Hips.
func trunkBelow(out []string, sk *character.Skeleton, s int) []int {
	var js []int
	for j, n := range out {
		if (n == "Spine1" || n == "Spine2") && isAncestor(sk, s, j) {
			js = append(js, j)
			out[j] = ""
		}
	}
	return js
}

// isAncestor says whether a is b's ancestor.
func isAncestor(sk *character.Skeleton, a, b int) bool {
	for p := sk.Parents[b]; p >= 0; p = sk.Parents[p] {
		if p == a {
			return true
		}
	}
	return false
}

// depths returns each joint's number of ancestors, in one pass when parents
// precede their children (as a valid skeleton's do).
func depths(sk *character.Skeleton) []int {
	d := make([]int, sk.NumJoints())
	for j, p := range sk.Parents {
		switch {
		case p < 0:
		case p < j:
			d[j] = d[p] + 1
		default:
			for a := p; a >= 0 && d[j] <= len(d); a = sk.Parents[a] {
				d[j]++
			}
		}
	}
	return d
}

// below lists the joints under top (its descendants), through sk's children.
func below(children [][]int, top int) []int {
	var out []int
	stack := append([]int(nil), children[top]...)
	for len(stack) > 0 && len(out) <= len(children) {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, j)
		stack = append(stack, children[j]...)
	}
	return out
}
