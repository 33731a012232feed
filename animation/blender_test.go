package animation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

// orient gives every joint the rotation of docs/naming.md: local +Y from the joint
// to its primary child (a leaf keeps its parent's), positions unchanged.
func orient(c *assets.Character) *assets.Character {
	o := c.Clone()
	sk := o.Skeleton
	children := sk.Children()
	rots := make([]quat, sk.NumJoints())
	for j := range sk.Names {
		if ch := primaryChild(sk, children, j); ch >= 0 && sk.Position(ch).Dist(sk.Position(j)) > 1e-9 {
			rots[j] = arc(assets.Vec3{0, 1, 0}, sk.Position(ch).Sub(sk.Position(j)))
		} else if p := sk.Parents[j]; p >= 0 {
			rots[j] = rots[p]
		} else {
			rots[j] = identity
		}
		sk.BindWorld[j] = assets.TRS(sk.Position(j), rots[j], assets.Vec3{1, 1, 1})
	}
	return o
}

// blenderReport is the part of tools/blender/check_rig.py's report the tests read.
type blenderReport struct {
	File             string   `json:"file"`
	OK               bool     `json:"ok"`
	Error            string   `json:"error"`
	Armatures        int      `json:"armatures"`
	SingleChildBones int      `json:"single_child_bones"`
	Pointing         int      `json:"pointing"`
	WorstAngle       float64  `json:"worst_angle_deg"`
	Problems         []string `json:"problems"`
	Actions          []struct {
		Name       string  `json:"name"`
		MovedBones int     `json:"moved_bones"`
		MaxTurn    float64 `json:"max_turn_deg"`
	} `json:"actions"`
}

// runBlenderCheck runs tools/blender/check_rig.py in Blender on files. Without
// Blender it skips, unless RIGKIT_REQUIRE_BLENDER=1, where it fails.
func runBlenderCheck(t *testing.T, files ...string) map[string]blenderReport {
	t.Helper()
	blender, err := exec.LookPath("blender")
	if err != nil {
		if os.Getenv("RIGKIT_REQUIRE_BLENDER") == "1" {
			t.Fatal("blender not found and RIGKIT_REQUIRE_BLENDER=1")
		}
		t.Skip("blender not found (apt-get install blender python3-numpy)")
	}
	args := append([]string{"-b", "--factory-startup", "-P", filepath.Join("..", "tools", "blender", "check_rig.py"), "--"}, files...)
	out, _ := exec.Command(blender, args...).CombinedOutput()
	reps := map[string]blenderReport{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "RIGKIT_CHECK ")
		if !ok {
			continue
		}
		var r blenderReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("check_rig.py: %v: %s", err, line)
		}
		reps[r.File] = r
	}
	if len(reps) != len(files) {
		t.Fatalf("check_rig.py reported %d of %d files:\n%s", len(reps), len(files), out)
	}
	return reps
}

// TestBlenderImportsAnimatedRig: Blender 3.4 imports a walking biped whose joints
// are oriented as docs/naming.md says with one armature, every single-child bone
// pointing at its child, and a walk action that turns bones; the same rig without
// joint orientations fails the bone check, so the check can fail.
func TestBlenderImportsAnimatedRig(t *testing.T) {
	c := orient(generate(t, "biped", 6))
	clip, _ := Lookup("walk", Humanoid)
	a, _, err := Apply(c, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Animations = []assets.Animation{a}
	dir := t.TempDir()
	oriented, flat := filepath.Join(dir, "oriented.glb"), filepath.Join(dir, "unoriented.glb")
	if err := assets.Save(oriented, c); err != nil {
		t.Fatal(err)
	}
	u := generate(t, "biped", 6)
	ua, _, err := Apply(u, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u.Animations = []assets.Animation{ua}
	if err := assets.Save(flat, u); err != nil {
		t.Fatal(err)
	}
	reps := runBlenderCheck(t, oriented, flat)
	r := reps[oriented]
	t.Logf("oriented: %d of %d single-child bones point at their child (worst %.2f°); actions %+v", r.Pointing, r.SingleChildBones, r.WorstAngle, r.Actions)
	if !r.OK || r.Armatures != 1 || r.SingleChildBones < 10 || len(r.Actions) != 1 {
		t.Fatalf("oriented walking biped in Blender: %+v", r)
	}
	if r.Actions[0].MovedBones < 10 || r.Actions[0].MaxTurn < 10 {
		t.Errorf("the walk action moves %d bones, turns at most %.1f°", r.Actions[0].MovedBones, r.Actions[0].MaxTurn)
	}
	f := reps[flat]
	t.Logf("unoriented: %d of %d point at their child", f.Pointing, f.SingleChildBones)
	if f.OK || f.Pointing == f.SingleChildBones {
		t.Errorf("the unoriented rig passes the bone check: %+v", f)
	}
}
