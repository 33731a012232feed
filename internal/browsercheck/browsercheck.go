// Package browsercheck runs tools/browser/check.mjs, which loads a GLB in headless
// Chromium with three.js, and decodes its report. Tests use it to prove that what
// rigkit writes looks and moves in three.js the way rigkit means it to.
package browsercheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Report is the part of check.mjs's JSON that tests read.
type Report struct {
	OK          bool     `json:"ok"`
	Error       string   `json:"error"`
	FailedClips []string `json:"failed_clips"`
	Bones       int      `json:"bones"`
	BBox        struct {
		Min      [3]float64 `json:"min"`
		Max      [3]float64 `json:"max"`
		Diagonal float64    `json:"diagonal"`
	} `json:"bbox"`
	Clips []Clip `json:"clips"`
}

// Clip is one animation clip as AnimationMixer played it.
type Clip struct {
	Name            string  `json:"name"`
	MaxDisplacement float64 `json:"max_displacement"`
	MaxStep         float64 `json:"max_step_displacement"`
	Finite          bool    `json:"finite"`
	Moved           bool    `json:"moved"`
	Exploded        bool    `json:"exploded"`
	// MinHeight and MaxHeight are the posed height along +Y over the rest
	// height, at the sampled times; Growth the largest posed extent over the
	// largest rest extent; LowRise the highest the rest's lowest 5% of vertices
	// get (0 bottom, 1 top of the posed height) and HighDrop the lowest the
	// highest 5% get. Upright says the size is within CheckPosture's limits and
	// the ends stay in their quarters.
	MinHeight float64 `json:"min_height_ratio"`
	MaxHeight float64 `json:"max_height_ratio"`
	Growth    float64 `json:"max_growth"`
	LowRise   float64 `json:"lowest_rise"`
	HighDrop  float64 `json:"highest_drop"`
	Upright   bool    `json:"upright"`
}

// ErrUnavailable says node, the npm packages (`make browser`) or Chromium are
// missing.
var ErrUnavailable = errors.New("headless browser check unavailable (need node, `make browser` and Debian's chromium)")

// Required reports whether the environment demands the check (RIGKIT_REQUIRE_BROWSER=1),
// so a test fails rather than skips when it is unavailable.
func Required() bool { return os.Getenv("RIGKIT_REQUIRE_BROWSER") == "1" }

// Run checks one GLB. A file that loads but whose clips fail still returns its
// report with OK false; ErrUnavailable when the check cannot run here.
func Run(file string) (*Report, error) {
	dir, err := toolDir()
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, ErrUnavailable
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "three")); err != nil {
		return nil, ErrUnavailable
	}
	chromium := os.Getenv("RIGKIT_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		return nil, ErrUnavailable
	}
	out, err := exec.Command(node, filepath.Join(dir, "check.mjs"), file).Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return nil, fmt.Errorf("check.mjs %s: %w\n%s", file, err, out)
	}
	var r Report
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("check.mjs %s output: %w\n%s", file, err, out)
	}
	return &r, nil
}

// toolDir finds tools/browser in the module that holds the working directory.
func toolDir() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "tools", "browser"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("browsercheck: no go.mod above the working directory: %w", ErrUnavailable)
		}
		d = parent
	}
}

// ForTest runs the check for a test: it skips when the browser is unavailable,
// fails instead when RIGKIT_REQUIRE_BROWSER=1, and fails on any other error.
func ForTest(t testing.TB, file string) *Report {
	t.Helper()
	r, err := Run(file)
	switch {
	case errors.Is(err, ErrUnavailable) && Required():
		t.Fatalf("%v and RIGKIT_REQUIRE_BROWSER=1", err)
	case errors.Is(err, ErrUnavailable):
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	return r
}
