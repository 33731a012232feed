package viewer

import (
	"math"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/vecmath"
)

// This file is the interactive problems panel: O opens it and scores the rig in
// the background; , and . select a problem, which frames and highlights its region.

// problemPanel is the panel's state, kept with the workbench.
type problemPanel struct {
	open     bool
	scoring  bool
	problems []Problem
	selected int // -1: none
}

// togglePanel opens the panel (scoring the rig) or closes it (clearing the
// highlight).
func (a *app) togglePanel() {
	b := a.bench
	b.panel.open = !b.panel.open
	if !b.panel.open {
		a.primary().Highlight = nil
		return
	}
	a.scoreInBackground()
}

// scoreInBackground scores a snapshot of the rig off the UI thread; the panel
// fills in when it is done.
func (a *app) scoreInBackground() {
	b := a.bench
	if b.panel.scoring {
		return
	}
	b.panel.scoring = true
	c, gen, path := b.rig.Character(), b.rig.Generation(), a.opts.Path
	go func() {
		rep, err := rewards.Score(c, rewards.Options{Motion: animation.ClipPoses})
		suspect := SuspectReasons(path)
		b.done <- func(a *app) {
			b.panel.scoring = false
			if err != nil {
				a.report("", err)
				return
			}
			b.panel.problems, b.panel.selected = FindProblems(c, rep, suspect), -1
			a.primary().Highlight = nil
			if b.rig.Generation() != gen && b.panel.open {
				a.scoreInBackground() // edited meanwhile: score the rig on screen
			}
			a.needsFrame = true
		}
	}()
}

// selectProblem moves the panel's selection by step and shows the problem: its
// joint selected, its region highlighted and framed.
func (a *app) selectProblem(step int) {
	pn, p := &a.bench.panel, a.primary()
	if !pn.open || len(pn.problems) == 0 {
		return
	}
	n := len(pn.problems)
	pn.selected = ((pn.selected+step)%n + n) % n
	pr := pn.problems[pn.selected]
	if pr.Joint >= 0 && pr.Joint < p.Char.Skeleton.NumJoints() {
		p.Selected = pr.Joint
	}
	p.Highlight = pr.Vertices
	if a.view.Mode == ModeTextured {
		a.view.Mode = ModeShaded // the highlight paints vertex colours
	}
	a.frameRegion(pr)
	a.needsFrame = true
}

// frameRegion points the camera at a problem's vertices (or its joint), keeping
// the camera's direction.
func (a *app) frameRegion(pr Problem) {
	p := a.primary()
	var pts []vecmath.Vec3
	for _, v := range pr.Vertices {
		pts = append(pts, p.Char.Mesh.Positions[v])
	}
	if len(pts) == 0 && pr.Joint >= 0 {
		pts = append(pts, p.Char.Skeleton.Position(pr.Joint))
	}
	if len(pts) == 0 {
		return
	}
	lo, hi := boundsOf(pts)
	mlo, mhi := p.Char.Mesh.Bounds()
	pad := 0.08 * math.Max(mhi[0]-mlo[0], math.Max(mhi[1]-mlo[1], mhi[2]-mlo[2]))
	lo = lo.Sub(vecmath.Vec3{pad, pad, pad})
	hi = hi.Add(vecmath.Vec3{pad, pad, pad})
	a.view.Camera.frame(lo, hi, a.view.viewportAspect(a.w, a.h))
}

// panelLines are the overlay lines of the open panel.
func (a *app) panelLines() []string {
	if a.bench == nil || !a.bench.panel.open {
		return nil
	}
	if a.bench.panel.scoring && a.bench.panel.problems == nil {
		return []string{"problems: scoring the rig..."}
	}
	return PanelLines(a.bench.panel.problems, a.bench.panel.selected)
}
