package autorig

import (
	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
)

// ClassicalRigger is the classical rigger (package classical) as a Rigger, with its
// skeleton bounded by ClassicalOptions.
type ClassicalRigger struct {
	Skin     classical.Skinner
	SkinName string // method name of Skin, e.g. "geodesic"
	// Anatomy, when set, turns the Reeb skeleton into the anatomical, named and
	// oriented skeleton of the mesh's kind (anatomy.Fit) before skinning.
	Anatomy *anatomy.Options
	// Reeb, when set, is the mesh's ClassicalProposal, already built.
	Reeb *character.Skeleton
	// Fitted, when set, is the anatomical skeleton anatomy.Fit already made of Reeb
	// under Anatomy, with its report FitReport, so that Rig does not fit it again.
	Fitted    *character.Skeleton
	FitReport *anatomy.Report
}

// Rig implements Rigger.
func (r ClassicalRigger) Rig(c *character.Character) (*character.Character, *RigInfo, error) {
	cr := classical.Rigger{Skin: r.Skin, SkinName: r.SkinName, Options: ClassicalOptions(&c.Mesh), Anatomy: r.Anatomy, Reeb: r.Reeb}
	if r.Fitted != nil && r.FitReport != nil {
		cr.Reeb, cr.Anatomy = r.Fitted, nil // skinned as it is
	}
	out, info, err := cr.Rig(c)
	if err != nil {
		return nil, nil, err
	}
	if cr.Anatomy == nil && r.FitReport != nil {
		info.Anatomy = r.FitReport
	}
	return out, &RigInfo{Method: info.Method, Anatomy: info.Anatomy, TimingsMS: info.TimingsMS}, nil
}

// ClassicalOptions bounds the classical skeleton of a mesh by the rewards' joint
// budget (rewards.JointBudget: 32 joints for meshes under 256 vertices), so that the
// skeleton never pays the sanity reward's penalty for surplus joints.
func ClassicalOptions(m *character.Mesh) classical.Options {
	return classical.Options{MaxJoints: min(classical.DefaultMaxJoints, rewards.JointBudget(len(m.Positions)))}
}

// ClassicalProposal is the proposal skeleton the model reads (rigmodel.ProposalFunc):
// the classical Reeb skeleton of the mesh under ClassicalOptions, without the
// anatomical fit, so that what the model was trained to edit does not move when the
// anatomical templates change.
func ClassicalProposal(m *character.Mesh) (*character.Skeleton, error) {
	return classical.Skeleton(m, ClassicalOptions(m))
}
