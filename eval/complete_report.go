package eval

import (
	"fmt"
	"math"
	"strings"
)

// completeMeans are one method's means over one group's scored files.
type completeMeans struct {
	files                 int
	cd, added, joints, ae float64
	addedN                int
}

// completeGroup summarizes one group of rows (humanoids or the others).
type completeGroup struct {
	name                      string
	files, failed             int
	kept, maxKept, increasing int
	artist, given             float64
	methods                   map[string]*completeMeans
}

func (rep *CompleteReport) groups() []*completeGroup {
	gs := []*completeGroup{{name: "humanoids", methods: map[string]*completeMeans{}}, {name: "other creatures", methods: map[string]*completeMeans{}}}
	for _, r := range rep.Rows {
		g := gs[1]
		if r.Humanoid {
			g = gs[0]
		}
		g.files++
		if r.Error != "" {
			g.failed++
			continue
		}
		g.add(r)
	}
	return gs
}

func (g *completeGroup) add(r CompleteRow) {
	for _, c := range []struct {
		ok bool
		n  *int
	}{{r.GivenKept, &g.kept}, {r.MaxKept, &g.maxKept}, {r.Increasing, &g.increasing}} {
		if c.ok {
			*c.n++
		}
	}
	g.artist += float64(r.Artist)
	g.given += float64(r.Given)
	for name, s := range r.Methods {
		m := g.methods[name]
		if m == nil {
			m = &completeMeans{}
			g.methods[name] = m
		}
		m.files++
		m.cd += s.CDJ2J
		m.joints += float64(s.Joints)
		m.ae += math.Abs(float64(s.Joints - r.Artist))
		if !math.IsNaN(s.AddedCDJ2J) {
			m.added += s.AddedCDJ2J
			m.addedN++
		}
	}
}

// mean returns a method's mean CD-J2J and added-part CD-J2J (NaN when none).
func (m *completeMeans) mean() (cd, added float64) {
	if m == nil || m.files == 0 {
		return math.NaN(), math.NaN()
	}
	cd, added = m.cd/float64(m.files), math.NaN()
	if m.addedN > 0 {
		added = m.added / float64(m.addedN)
	}
	return cd, added
}

// Markdown renders one table per group (distances ×10⁻²), its checks and the
// ratios the co-pilot is held to.
func (rep *CompleteReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### task complete, %s\n\n", rep.Split)
	for _, g := range rep.groups() {
		ok := g.files - g.failed
		if g.files == 0 {
			continue
		}
		fmt.Fprintf(&b, "#### %s: %d files, %d failed; joints given %.1f, artist %.1f\n\n", g.name, g.files, g.failed, g.given/math.Max(1, float64(ok)), g.artist/math.Max(1, float64(ok)))
		b.WriteString("| method | CD-J2J ×10⁻² | added part CD-J2J ×10⁻² | joints | joint-count error |\n|---|---:|---:|---:|---:|\n")
		for _, name := range sortedKeys(g.methods) {
			m := g.methods[name]
			cd, added := m.mean()
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.1f | %.1f |\n", name, 100*cd, 100*added, m.joints/float64(m.files), m.ae/float64(m.files))
		}
		fmt.Fprintf(&b, "\ngiven joints kept exactly: %d / %d; --max-joints (the artist's count) respected: %d / %d; joints increase low < medium < high: %d / %d\n",
			g.kept, ok, g.maxKept, ok, g.increasing, ok)
		g.ratios(&b)
		b.WriteString("\n")
	}
	return b.String()
}

// ratios writes the co-pilot's ratios against the baselines.
func (g *completeGroup) ratios(b *strings.Builder) {
	for _, name := range []string{"complete-medium", "complete-matched"} {
		cd, added := g.methods[name].mean()
		for _, base := range []string{"auto", "classical"} {
			bcd, badded := g.methods[base].mean()
			if math.IsNaN(bcd) || math.IsNaN(cd) {
				continue
			}
			fmt.Fprintf(b, "- %s / %s: CD-J2J %.2f×, added part %.2f×\n", name, base, cd/bcd, added/badded)
		}
	}
}
