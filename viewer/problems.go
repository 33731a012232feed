package viewer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/vecmath"
)

// Problem is one line of the problems panel: a rewards problem or a suspect reason
// of the anatomical fit, with the region of the mesh it is about, so that selecting
// it shows where it is.
type Problem struct {
	Text string
	// Joint is the joint the sentence names first (-1: none); Vertices are the
	// vertices it is about: the ones it names, those near the point it names, or
	// the ones its joints move most.
	Joint    int
	Vertices []int
}

// regionShare is the radius, as a share of the mesh's largest extent, of the region
// highlighted around a point or a vertex a problem names.
const regionShare = 0.04

var vertexRef = regexp.MustCompile(`\bvertex (\d+)\b`)

// FindProblems lists rep's problems (nil: none) and the suspect reasons with their
// regions on c.
func FindProblems(c *character.Character, rep *rewards.Report, suspect []string) []Problem {
	var out []Problem
	coverage := 0
	for _, text := range problemTexts(rep) {
		p := Problem{Text: text, Joint: -1}
		joints := namedJoints(c.Skeleton, text)
		if len(joints) > 0 {
			p.Joint = joints[0]
		}
		switch {
		case strings.HasPrefix(text, "coverage: no bone") && rep.Details.Coverage != nil && coverage < len(rep.Details.Coverage.Uncovered):
			p.Vertices = near(c.Mesh, rep.Details.Coverage.Uncovered[coverage].Position)
			coverage++
		case vertexRef.MatchString(text):
			v, _ := strconv.Atoi(vertexRef.FindStringSubmatch(text)[1])
			if v < len(c.Mesh.Positions) {
				p.Vertices = near(c.Mesh, c.Mesh.Positions[v])
			}
		case strings.HasPrefix(text, "skin: ") && rep.Details.Skin != nil:
			p.Vertices = inRange(rep.Details.Skin.Examples, len(c.Mesh.Positions))
		default:
			p.Vertices = movedBy(c, joints)
		}
		out = append(out, p)
	}
	for _, text := range suspect {
		joints := namedJoints(c.Skeleton, text)
		p := Problem{Text: "suspect: " + text, Joint: -1, Vertices: movedBy(c, joints)}
		if len(joints) > 0 {
			p.Joint = joints[0]
		}
		out = append(out, p)
	}
	return out
}

func problemTexts(rep *rewards.Report) []string {
	if rep == nil {
		return nil
	}
	return rep.Problems
}

// namedJoints returns the joints whose names appear in text as whole words, in
// the order they appear (a longer name wins where two overlap: "LeftHand" over
// "Hand").
func namedJoints(sk *character.Skeleton, text string) []int {
	if sk == nil {
		return nil
	}
	type hit struct{ at, joint int }
	var hits []hit
	taken := make([]bool, len(text))
	order := make([]int, sk.NumJoints())
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return len(sk.Names[order[a]]) > len(sk.Names[order[b]]) })
	for _, j := range order {
		name := sk.Names[j]
		if name == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], name)
			if i < 0 {
				break
			}
			at, end := from+i, from+i+len(name)
			if wordEdge(text, at-1) && wordEdge(text, end) && !taken[at] {
				hits = append(hits, hit{at, j})
				for k := at; k < end; k++ {
					taken[k] = true
				}
				break
			}
			from = at + 1
		}
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].at < hits[b].at })
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.joint
	}
	return out
}

// wordEdge reports whether position i of text is outside a name: the text's ends,
// or a character that names do not continue with.
func wordEdge(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return true
	}
	c := text[i]
	return !(c == '_' || c == '.' || c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// near returns the vertices within regionShare of the mesh's size of p.
func near(m character.Mesh, p vecmath.Vec3) []int {
	lo, hi := m.Bounds()
	r := regionShare * max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	var out []int
	for v, q := range m.Positions {
		if q.Dist(p) <= r {
			out = append(out, v)
		}
	}
	return out
}

// movedBy returns the vertices whose heaviest influence is one of joints.
func movedBy(c *character.Character, joints []int) []int {
	if len(joints) == 0 || c.Skin == nil {
		return nil
	}
	want := map[int]bool{}
	for _, j := range joints {
		want[j] = true
	}
	var out []int
	for v, infl := range c.Skin.Weights {
		if len(infl) > 0 && want[infl[0].Joint] {
			out = append(out, v)
		}
	}
	return out
}

func inRange(vs []int, n int) []int {
	var out []int
	for _, v := range vs {
		if v >= 0 && v < n {
			out = append(out, v)
		}
	}
	return out
}

// PanelLines are the problems panel's overlay lines, the selected one marked
// (selected -1: none).
func PanelLines(ps []Problem, selected int) []string {
	if len(ps) == 0 {
		return []string{"problems: none"}
	}
	out := []string{fmt.Sprintf("problems (%d; keys , and . select one):", len(ps))}
	for i, p := range ps {
		mark := "   "
		if i == selected {
			mark = " > "
		}
		out = append(out, mark+strings.ReplaceAll(p.Text, "→", "->")) // the overlay font is ASCII
	}
	return out
}

// SuspectReasons reads why a rig is suspect (the anatomical fit's reasons, a
// score under the floor) from the JSON report `rig auto` writes beside it
// (NAME.json for NAME.glb); none when there is no such report or it has none.
func SuspectReasons(rigPath string) []string {
	data, err := os.ReadFile(strings.TrimSuffix(rigPath, filepath.Ext(rigPath)) + ".json")
	if err != nil || len(data) > 64<<20 {
		return nil
	}
	var rep struct {
		Suspect []string `json:"suspect"` // every reason: the anatomy's and a low score
		Rig     struct {
			Anatomy struct {
				Suspect []string `json:"suspect"`
			} `json:"anatomy"`
		} `json:"rig"`
	}
	if json.Unmarshal(data, &rep) != nil {
		return nil
	}
	if len(rep.Suspect) > 0 {
		return rep.Suspect
	}
	return rep.Rig.Anatomy.Suspect // a report with the anatomy's reasons alone
}

// highlightColor paints a problem's region.
var highlightColor = [3]float32{1, 0.1, 0.8}

// paintHighlight sets the highlighted vertices' colours (3 floats per vertex).
func paintHighlight(col []float32, vs []int) {
	for _, v := range vs {
		if v >= 0 && 3*v+2 < len(col) {
			copy(col[3*v:3*v+3], highlightColor[:])
		}
	}
}
