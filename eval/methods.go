package eval

import (
	"cmp"
	"fmt"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/sampler"
)

// SkeletonMethods are the skeleton task's predictors: the classical skeleton and the
// anatomical skeleton `rig auto` writes for the classical rig, and with a model the
// model's skeletons as `rig auto` samples them (model nil: none). votes overrides
// the model's skeleton vote (0 keeps it).
func SkeletonMethods(model *autorig.ModelRigger, votes int) map[string]SkeletonPredictor {
	methods := map[string]SkeletonPredictor{
		"classical": func(c *character.Character) (*character.Skeleton, error) {
			return classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
		},
		// The anatomical skeleton `rig auto` writes for the classical rig.
		"classical-anatomy": func(c *character.Character) (*character.Skeleton, error) {
			sk, err := classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
			if err != nil {
				return nil, err
			}
			sk, _, err = anatomy.Fit(&c.Mesh, sk, anatomy.Options{})
			return sk, err
		},
	}
	if model == nil {
		return methods
	}
	r := *model
	r.Votes = cmp.Or(votes, r.Votes)
	methods["tokens"] = r.PredictSkeleton // voted, joints masked as `rig auto` masks them
	greedy := r
	greedy.Votes = 1
	methods["tokens-greedy"] = greedy.PredictSkeleton // `rig auto --votes 1`
	free := r
	free.InsideJoints = false
	methods["tokens-unmasked"] = free.PredictSkeleton // voted, grammar mask only
	if r.Model.Proposal != nil {
		inside := r
		inside.NearProposal = 0
		methods["tokens-inside"] = inside.PredictSkeleton // inside the mesh, anywhere
		for _, d := range []float64{0.1, 0.2} {
			near := r
			near.NearProposal = d // within d of the proposal's bones
			methods[fmt.Sprintf("tokens-near%g", d)] = near.PredictSkeleton
		}
	}
	return methods
}

// RigMethods are the rig task's riggers: the classical rig with and without its
// anatomical skeleton, and with a model what `rig auto` does by default and with
// other flags, and the model alone (model nil: none). votes overrides the model's
// skeleton vote (0 keeps it).
func RigMethods(model *autorig.ModelRigger, votes int) map[string]autorig.Rigger {
	riggers := map[string]autorig.Rigger{
		"classical":         autorig.ClassicalRigger{Skin: sampler.GeodesicSkin, SkinName: "geodesic"},
		"classical-anatomy": autorig.ClassicalRigger{Skin: sampler.GeodesicSkin, SkinName: "geodesic", Anatomy: &anatomy.Options{}},
	}
	if model == nil {
		return riggers
	}
	r := new(autorig.ModelRigger)
	*r = *model
	r.CompareClassical, r.Votes = true, cmp.Or(votes, r.Votes)
	riggers["auto"] = r // what `rig auto` does by default
	best8 := *r
	best8.Samples = 8
	riggers["auto-best8"] = &best8 // `rig auto --samples 8`
	greedy := *r
	greedy.Votes = 1
	riggers["auto-greedy"] = &greedy // `rig auto --votes 1`
	raw := *r
	raw.CompareClassical, raw.Floor = false, 0
	riggers["model"] = &raw // the model alone: no floor, no classical comparison
	named := raw
	named.Anatomy = &anatomy.Options{}
	riggers["model-anatomy"] = &named // the same, named and rooted as `rig auto` writes it
	best := raw
	best.Samples = 4
	riggers["model-best4"] = &best // the model alone, best of 4 streams by the rewards
	return riggers
}

// Only keeps the methods named in want (the --method values): all of them for "all"
// or when want names none of them (only a checkpoint, model=PATH).
func Only[V any](all map[string]V, want []string) map[string]V {
	keep := map[string]V{}
	for _, w := range want {
		if w == "all" {
			return all
		}
		if v, ok := all[w]; ok {
			keep[w] = v
		}
	}
	if len(keep) == 0 {
		return all
	}
	return keep
}
