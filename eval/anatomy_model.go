package eval

import (
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/sampler"
)

// The model's skeletons named from the anatomical template (`rig eval --task
// anatomy --method model[=CKPT]`): on each held-out humanoid, the model's voted
// skeleton, as `rig auto` masks it, is named after the Humanoid template fitted on
// the same classical skeleton the model reads (anatomy.NameFromTemplate), and
// measured against the artist's skeleton (docs/anatomy.md), with synthetic bipeds
// beside them.

// ModelNaming names the model's skeleton of every humanoid file and of synthetic
// bipeds of seeds 1..synthetic.
func ModelNaming(files []File, gen sampler.Generator, synthetic int, progress io.Writer) (*anatomy.NamingReport, error) {
	rep := &anatomy.NamingReport{}
	files = humanoidFiles(files)
	for i, f := range files {
		fmt.Fprintf(progress, "\reval anatomy --method model: %d/%d files", i+1, len(files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return nil, err
		}
		name := f.Rel
		if name == "" {
			name = f.Path
		}
		fit, err := nameModelSkeleton(gen, c, name, strings.SplitN(name, "/", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		rep.Add(fit)
	}
	fmt.Fprintln(progress)
	err := eachSyntheticBiped(synthetic, func(name string, c *character.Character) error {
		fit, err := nameModelSkeleton(gen, c, name, "synthetic")
		if err == nil {
			rep.Add(fit)
		}
		return err
	})
	return rep, err
}

// nameModelSkeleton fits the Humanoid template (Y up) on a character's classical
// skeleton, generates the model's voted skeleton reading the same skeleton as its
// proposal, names it and measures it against the character's own skeleton.
func nameModelSkeleton(gen sampler.Generator, c *character.Character, name, source string) (anatomy.NamingFit, error) {
	prop, err := autorig.ClassicalProposal(&c.Mesh)
	if err != nil {
		return anatomy.NamingFit{}, fmt.Errorf("classical skeleton: %w", err)
	}
	fitted, frep, err := anatomy.Fit(&c.Mesh, prop, anatomy.Options{Kind: anatomy.Humanoid, Up: "y"})
	if err != nil {
		return anatomy.NamingFit{}, err
	}
	gen.Propose = func(*character.Mesh) (*character.Skeleton, error) { return prop, nil }
	raw, err := gen.PredictSkeleton(c)
	if err != nil {
		return anatomy.NamingFit{}, fmt.Errorf("model skeleton: %w", err)
	}
	named, err := anatomy.NameFromTemplate(raw, fitted, &c.Mesh, anatomy.Options{Up: frep.Up, World: frep.World})
	if err != nil {
		return anatomy.NamingFit{}, err
	}
	return anatomy.MeasureNaming(name, source, raw, named, frep, c.Skeleton, meshHeight(&c.Mesh)), nil
}
