// Package blendercheck runs tools/blender/check_rig.py in Blender 3.4 (headless) and
// decodes its report, so tests can prove that an armature imports with its bones
// pointing at their children and its actions moving them, as artists will see it.
package blendercheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Report is the part of tools/blender/check_rig.py's report that tests read.
type Report struct {
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
		// MinHeight and MaxHeight are the deformed meshes' height along Blender's
		// Z up over the rest height, at the sampled frames; Growth the largest
		// extent over the largest rest extent; Upright says all three are within
		// rigkit's animation.CheckPosture limits.
		MinHeight float64 `json:"min_height_ratio"`
		MaxHeight float64 `json:"max_height_ratio"`
		Growth    float64 `json:"max_growth"`
		Upright   bool    `json:"upright"`
	} `json:"actions"`
}

// ForTest runs tools/blender/check_rig.py in Blender on files and returns each
// file's report. Without Blender it skips, unless RIGKIT_REQUIRE_BLENDER=1, where it
// fails.
func ForTest(t testing.TB, files ...string) map[string]Report {
	t.Helper()
	blender, err := exec.LookPath("blender")
	if err != nil {
		if os.Getenv("RIGKIT_REQUIRE_BLENDER") == "1" {
			t.Fatal("blender not found and RIGKIT_REQUIRE_BLENDER=1")
		}
		t.Skip("blender not found (apt-get install blender python3-numpy)")
	}
	script, err := toolPath()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-b", "--factory-startup", "-P", script, "--"}, files...)
	out, _ := exec.Command(blender, args...).CombinedOutput()
	reps := map[string]Report{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "RIGKIT_CHECK ")
		if !ok {
			continue
		}
		var r Report
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

// toolPath finds tools/blender/check_rig.py in the module that holds the working
// directory.
func toolPath() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "tools", "blender", "check_rig.py"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("blendercheck: no go.mod above the working directory")
		}
		d = parent
	}
}
