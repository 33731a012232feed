package viewer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rewards"
)

// TestNamedJoints finds joint names as whole words, the longer name first where
// two overlap.
func TestNamedJoints(t *testing.T) {
	sk := &character.Skeleton{Names: []string{"Hand", "LeftHand", "spine1", "spine10", "arm_L"}}
	for _, tc := range []struct {
		text string
		want []int
	}{
		{"containment: bone LeftHand→Hand is 40% outside the mesh", []int{1, 0}},
		{"sanity: joint spine10 is 0.20 outside the mesh", []int{3}},
		{"locality: joint arm_L's influence is split", []int{4}},
		{"nothing here: Handy spine1x", []int{}},
	} {
		if got := namedJoints(sk, tc.text); !reflect.DeepEqual(append([]int{}, got...), tc.want) {
			t.Errorf("namedJoints(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestFindProblems gives each kind of problem its region: a coverage protrusion the
// vertices near its point, a torn vertex its neighbourhood, a bone the vertices its
// joints move, a global finding none.
func TestFindProblems(t *testing.T) {
	c := sampleCharacter(8, 800)
	top := c.Mesh.Positions[len(c.Mesh.Positions)/2]
	rep := &rewards.Report{Problems: []string{
		"containment: bone spine2→spine3 is 50% outside the mesh",
		"deformation: vertex 5 (joint spine0) tears: edge strain 0.90",
		"coverage: no bone moving it reaches the protrusion at left (1.0% of the surface, 0.20 from joint spine4)",
		"locality: 3.1 influences per vertex on average",
	}, Details: rewards.Details{Coverage: &rewards.CoverageDetails{Uncovered: []rewards.Protrusion{{Position: top}}}}}
	ps := FindProblems(c, rep, []string{"spine5 lies outside the body"})
	if len(ps) != 5 {
		t.Fatalf("%d problems, want 5", len(ps))
	}
	bone := ps[0]
	if c.Skeleton.Names[bone.Joint] != "spine2" || len(bone.Vertices) == 0 {
		t.Errorf("bone problem: joint %d, %d vertices", bone.Joint, len(bone.Vertices))
	}
	for _, v := range bone.Vertices {
		if j := c.Skin.Weights[v][0].Joint; j != bone.Joint && c.Skeleton.Names[j] != "spine3" {
			t.Fatalf("vertex %d of the bone's region is moved most by %s", v, c.Skeleton.Names[j])
		}
	}
	if !containsInt(ps[1].Vertices, 5) {
		t.Errorf("the torn vertex is not in its region %v", ps[1].Vertices)
	}
	if !containsInt(ps[2].Vertices, len(c.Mesh.Positions)/2) {
		t.Errorf("the protrusion's region misses the vertex at its point")
	}
	if ps[3].Vertices != nil || ps[3].Joint != -1 {
		t.Errorf("a global finding has a region: %+v", ps[3])
	}
	if !strings.HasPrefix(ps[4].Text, "suspect: ") || c.Skeleton.Names[ps[4].Joint] != "spine5" {
		t.Errorf("suspect reason: %+v", ps[4])
	}
}

func containsInt(vs []int, x int) bool {
	for _, v := range vs {
		if v == x {
			return true
		}
	}
	return false
}

// TestSuspectReasons reads the reasons from the report beside a rig, and none
// from a missing or foreign file.
func TestSuspectReasons(t *testing.T) {
	dir := t.TempDir()
	glb := filepath.Join(dir, "horse.glb")
	if got := SuspectReasons(glb); got != nil {
		t.Errorf("no report: %v", got)
	}
	os.WriteFile(filepath.Join(dir, "horse.json"), []byte(`{"rig":{"anatomy":{"status":"suspect","suspect":["the tail leaves the body"]}}}`), 0o644)
	if got := SuspectReasons(glb); len(got) != 1 || got[0] != "the tail leaves the body" {
		t.Errorf("SuspectReasons = %v", got)
	}
	os.WriteFile(filepath.Join(dir, "horse.json"), []byte(`{"suspect":["the tail leaves the body","the rig scores 0.290, under 0.35: check it before use"],`+
		`"rig":{"anatomy":{"status":"suspect","suspect":["the tail leaves the body"]}}}`), 0o644)
	if got := SuspectReasons(glb); len(got) != 2 || !strings.Contains(got[1], "scores 0.290") {
		t.Errorf("SuspectReasons with the report's own list = %v", got)
	}
	os.WriteFile(filepath.Join(dir, "horse.json"), []byte(`[1,2`), 0o644)
	if got := SuspectReasons(glb); got != nil {
		t.Errorf("broken report: %v", got)
	}
}

// TestProblemPanel opens the panel (the rig is scored in the background) and
// selects a problem: its region is highlighted and the camera moves to it.
func TestProblemPanel(t *testing.T) {
	a := testApp(t, false)
	a.key(glfw.KeyO, 0)
	if lines := a.panelLines(); len(lines) != 1 || !strings.Contains(lines[0], "scoring") {
		t.Fatalf("panel while scoring: %q", lines)
	}
	deadline := time.After(60 * time.Second)
	for a.bench.panel.scoring {
		select {
		case apply := <-a.bench.done:
			apply(a)
		case <-deadline:
			t.Fatal("scoring never finished")
		}
	}
	// The sample rig's own problems vary with the rewards; add one with a region.
	c := a.primary().Char
	a.bench.panel.problems = append(FindProblems(c, &rewards.Report{Problems: []string{"deformation: vertex 7 (joint spine1) tears: edge strain 0.9"}}, nil),
		a.bench.panel.problems...)
	target := a.view.Camera.Target
	a.key(glfw.KeyPeriod, 0)
	if a.bench.panel.selected != 0 || !containsInt(a.primary().Highlight, 7) {
		t.Fatalf("selected %d, highlight %v", a.bench.panel.selected, a.primary().Highlight)
	}
	if a.view.Camera.Target == target {
		t.Error("selecting the problem did not frame its region")
	}
	if lines := a.panelLines(); !strings.HasPrefix(lines[1], " > ") {
		t.Errorf("the selected problem is not marked: %q", lines)
	}
	col := vertexColors(c, ModeShaded, -1)
	paintHighlight(col, a.primary().Highlight)
	if col[3*7] != highlightColor[0] || col[3*7+1] != highlightColor[1] {
		t.Error("the highlighted vertex is not painted")
	}
}
