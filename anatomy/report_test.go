package anatomy_test

import (
	"strings"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
)

// TestHumanoidReport fits two synthetic bipeds and checks the report: both fit the
// Humanoid template with usable skeletons, most names are right, and the tables
// carry them.
func TestHumanoidReport(t *testing.T) {
	var rep anatomy.HumanoidReport
	for _, seed := range []int64{2, 3} {
		c := gen(t, "biped", seed)
		sk, r := fit(t, c, anatomy.Options{})
		f := anatomy.MeasureHumanoid("synth/biped", "synthetic", sk, r, c.Skeleton, height(&c.Mesh, 1))
		if f.Kind != anatomy.Humanoid || f.Total == 0 || f.Hits*2 < f.Total {
			t.Errorf("biped %d: kind %s, names %d/%d (missed %v)", seed, f.Kind, f.Hits, f.Total, f.Missed)
		}
		rep.Add(f)
	}
	if faults := rep.Faults(); len(faults) > 0 {
		t.Errorf("faults: %v", faults)
	}
	md := rep.Markdown()
	for _, want := range []string{"| 2 | 2 | 2 |", "| synthetic | ", "| synth/biped | humanoid | 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestKindOfCategory(t *testing.T) {
	for _, tc := range []struct {
		category string
		want     anatomy.Kind
	}{
		{"biped/humanoid", anatomy.Humanoid},
		{"quadruped", anatomy.Quadruped},
		{"bird/flying", anatomy.Bird},
		{"fish", anatomy.Fish},
		{"snake", anatomy.Snake},
		{"prop/mechanical", anatomy.Other},
		{"", anatomy.Other},
	} {
		if got := anatomy.KindOfCategory(tc.category); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.category, got, tc.want)
		}
	}
}

// TestKindReport counts a biped and a quadruped, each detected as its category.
func TestKindReport(t *testing.T) {
	var rep anatomy.KindReport
	for _, tc := range []struct{ kind, category string }{{"biped", "biped"}, {"quadruped", "quadruped"}} {
		c := gen(t, tc.kind, 1)
		sk, r := fit(t, c, anatomy.Options{})
		rep.Add(tc.kind, tc.category, r, anatomy.Check(sk, r.Symmetry, height(&c.Mesh, 1)))
	}
	// A quadruped filed as a biped is a miss, listed with what was detected.
	c := gen(t, "quadruped", 2)
	sk, r := fit(t, c, anatomy.Options{})
	rep.Add("filed-biped", "biped", r, anatomy.Check(sk, r.Symmetry, height(&c.Mesh, 1)))
	md := rep.Markdown()
	for _, want := range []string{"Files 3: kind as the manifest's category 2", "| humanoid → humanoid | 1 |", "| quadruped → quadruped | 1 |",
		"Humanoids and quadrupeds detected as another kind (1): filed-biped (biped, detected quadruped", "Detections at confidence 0.8 or more:",
		"Suspect rigs by the manifest's kind: humanoid 0 of 2, quadruped 0 of 1."} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestFingerReport counts finger names apart from the body's, and the files with
// fingers placed where the artist has none (false positives) or none placed
// where the artist has some (misses).
func TestFingerReport(t *testing.T) {
	var rep anatomy.HumanoidReport
	both := anatomy.HumanoidFit{Name: "both", Source: "s", Hits: 9, Total: 10}
	both.FingerHits, both.FingerTotal, both.FingersPlaced, both.ArtistFingers = 3, 4, 8, 6
	placed := anatomy.HumanoidFit{Name: "placed", Source: "s", Hits: 5, Total: 5}
	placed.FingersPlaced = 8
	artist := anatomy.HumanoidFit{Name: "artist", Source: "s", Hits: 4, Total: 5}
	artist.ArtistFingers = 6
	rep.Add(both)
	rep.Add(placed)
	rep.Add(artist)
	md := rep.Markdown()
	for _, want := range []string{
		"body 18/20 = 0.900; fingers 3/4 = 0.750; all 21/24 = 0.875",
		"False positives (placed, the artist has none) 1: placed.",
		"Misses (the artist has fingers, none placed) 1: artist.",
		"| s | 18/20 = 0.900 | 3/4 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
