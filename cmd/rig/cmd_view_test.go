//go:build !noviewer

package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/viewer"
)

// TestViewProblemShot fills a screenshot's problems panel: the list in the overlay
// with the chosen problem marked, its region highlighted; a problem past the end is
// a usage error naming the count.
func TestViewProblemShot(t *testing.T) {
	c, err := synth.Generate("quadruped", 3, synth.Options{TargetVertices: 1500})
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton.BindWorld[5][12] += 2 // a joint far outside the body: the rewards complain
	var o viewer.ShotOptions
	if err := viewProblemShot(c, "x.glb", 1, &o); err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, l := range o.Overlay {
		if strings.HasPrefix(l, " > ") {
			marked++
		}
	}
	if marked != 1 || !strings.HasPrefix(o.Overlay[0], "problems (") {
		t.Errorf("overlay %q", o.Overlay)
	}
	err = viewProblemShot(c, "x.glb", 999, &o)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "problems") {
		t.Errorf("problem 999: %v", err)
	}
}
