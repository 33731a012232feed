package main

import (
	"flag"
	"fmt"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/copilot"
)

// copilotFlags are `rig auto`'s co-pilot flags: a partial skeleton to complete and
// the density of the result.
type copilotFlags struct {
	skeleton  *string
	detail    *string
	maxJoints *int
}

func addCopilotFlags(fs *flag.FlagSet) copilotFlags {
	return copilotFlags{
		skeleton:  fs.String("skeleton", "", "complete this partial skeleton: a rigged .glb/.gltf, or a .json {\"joints\": [{\"name\", \"parent\" (null for a root), \"position\": [x, y, z]}]} in the input's world units and frame; its joints are kept exactly (docs/model.md, \"Co-pilot\")"),
		detail:    fs.String("detail", "", "density of the completed skeleton: low (no fingers, toes, twist or end joints), medium or high (default medium; alone, it completes an empty partial)"),
		maxJoints: fs.Int("max-joints", 0, "at most this many joints in the completed skeleton: leaves are pruned, the given joints kept (0: no bound beyond the token stream's 128)"),
	}
}

// used reports whether any co-pilot flag was given.
func (f copilotFlags) used() bool { return *f.skeleton != "" || *f.detail != "" || *f.maxJoints != 0 }

// wrap returns base when no co-pilot flag is given; otherwise it wraps the rigger
// `rig auto` built (the model's, or the classical one when no model loads) into
// the co-pilot: the model continues the partial, the template fills, the rig is
// skinned as --skin says.
func (f copilotFlags) wrap(base autorig.Rigger, skin string, anat *anatomy.Options) (autorig.Rigger, error) {
	if !f.used() {
		return base, nil
	}
	d := copilot.Density{Detail: copilot.DetailMedium, MaxJoints: *f.maxJoints}
	if *f.detail != "" {
		var err error
		if d.Detail, err = copilot.ParseDetail(*f.detail); err != nil {
			return nil, fmt.Errorf("%w: --detail: %v", errUsage, err)
		}
	}
	if d.MaxJoints < 0 {
		return nil, fmt.Errorf("%w: --max-joints %d: want a positive bound (0: none)", errUsage, d.MaxJoints)
	}
	r := &copilot.Rigger{Density: d, Completer: copilot.Completer{Anatomy: *anat, Seed: 1}}
	if *f.skeleton != "" {
		partial, idle, err := copilot.LoadPartial(*f.skeleton, format.Budget{})
		if err != nil {
			return nil, err
		}
		if d.MaxJoints > 0 && partial.NumJoints() > d.MaxJoints {
			return nil, fmt.Errorf("%w: --max-joints %d: the partial skeleton %s alone has %d joints", errUsage, d.MaxJoints, *f.skeleton, partial.NumJoints())
		}
		r.Partial, r.Idle = partial, idle
	}
	switch b := base.(type) {
	case *autorig.ModelRigger:
		r.Model, r.Seed = &b.Generator, b.Seed
		r.Bind, r.BindName = b.BindSkin()
		r.SkinTokens = skin == "tokens"
	case autorig.ClassicalRigger:
		r.Bind, r.BindName = b.Skin, b.SkinName
	}
	return r, nil
}
