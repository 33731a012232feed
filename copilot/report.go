package copilot

import (
	"github.com/rigkit/rigkit/character"
)

// Report is a completion's part of `rig auto`'s JSON report: the joints given and
// the joints added (with where each came from), in the partial JSON's own form.
type Report struct {
	Detail    string        `json:"detail"`
	MaxJoints int           `json:"max_joints"`
	Template  string        `json:"template"` // the template's kind, or "classical"
	Given     []JointReport `json:"given"`
	Added     []JointReport `json:"added"`
	// Pruned counts the joints removed to keep within MaxJoints.
	Pruned int `json:"pruned,omitempty"`
	// Idle names the given joints left without weight, as the rigged partial's
	// own skin had them (Rigger.Idle).
	Idle     []string `json:"idle_joints,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// JointReport is one joint: name, parent (null for a root), world position, and
// for an added joint its source, "model" or "template".
type JointReport struct {
	Name     string     `json:"name"`
	Parent   *string    `json:"parent"`
	Position [3]float64 `json:"position"`
	Source   string     `json:"source,omitempty"`
}

// report lists the given and added joints of a completed skeleton (sources per
// joint).
func (p *Prepared) report(sk *character.Skeleton, sources []string, d Density) *Report {
	rep := &Report{Detail: d.Detail.String(), MaxJoints: d.limit(), Template: p.template.kind, Warnings: p.warnings,
		Given: []JointReport{}, Added: []JointReport{}}
	for j, name := range sk.Names {
		jr := JointReport{Name: name, Position: sk.Position(j)}
		if q := sk.Parents[j]; q >= 0 {
			jr.Parent = &sk.Names[q]
		}
		if sources[j] == sourceGiven {
			rep.Given = append(rep.Given, jr)
			continue
		}
		jr.Source = sources[j]
		rep.Added = append(rep.Added, jr)
	}
	return rep
}
