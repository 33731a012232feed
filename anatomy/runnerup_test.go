package anatomy

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
)

// TestFitRunnerUp: when the best kind's template fails, the second kind is fitted
// only when it has a template and beat Other; the report then names it.
func TestFitRunnerUp(t *testing.T) {
	c, err := synth.Generate("biped", 1, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	wn := geom.NewWindingNumber(&c.Mesh)
	s := newShape(&c.Mesh, wn, upFrame("y"))
	tr := newTree(c.Skeleton, s.f)
	failed := errors.New("front and hind legs are not apart along the body")
	for _, tc := range []struct {
		name     string
		d        kindDetection
		wantKind Kind // Other: the failure is returned
	}{
		{"humanoid second", kindDetection{best: Quadruped, second: Humanoid, score: 0.6, runner: 0.5}, Humanoid},
		{"second without a template", kindDetection{best: Quadruped, second: Bird, score: 0.6, runner: 0.5}, Other},
		{"second below Other", kindDetection{best: Quadruped, second: Humanoid, score: 0.6, runner: otherScore}, Other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{Kind: tc.d.best}
			b, err := fitRunnerUp(s, tr, tc.d, failed, rep)
			if tc.wantKind == Other {
				if !errors.Is(err, failed) || b != nil {
					t.Fatalf("got %v, %v; want the best kind's failure", b, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Kind != tc.wantKind || rep.Confidence >= 0.5 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "next best kind") {
				t.Errorf("report %s at %.2f, warnings %q; want %s below 0.5 with one warning", rep.Kind, rep.Confidence, rep.Warnings, tc.wantKind)
			}
		})
	}
}
