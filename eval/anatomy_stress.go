package eval

import (
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/anatomy/stress"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// Stress variants (`rig eval --task anatomy --stress all`): each held-out humanoid
// is deformed (anatomy/stress: legs together, arms lowered, fused into one
// surface), its artist skeleton carried along, and fitted as a user's file would
// be: kind detected, up axis told (the stored files are Y-up). A file detected as
// another kind is fitted again as a humanoid for its names.

// StressVariants parses a list of stress variants: "all" is the untouched files
// ("none") and every variant of stress.Variants; otherwise a comma-separated list
// of "none" and variants.
func StressVariants(list string) ([]string, error) {
	if list == "all" {
		out := []string{"none"}
		for _, v := range stress.Variants {
			out = append(out, string(v))
		}
		return out, nil
	}
	var out []string
	for _, v := range strings.Split(list, ",") {
		if v != "none" {
			if _, err := stress.ParseVariant(v); err != nil {
				return nil, err
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// StressFits fits every file under every variant (from StressVariants).
func StressFits(files []File, variants []string, progress io.Writer) (*anatomy.StressReport, error) {
	rep := &anatomy.StressReport{Variants: append([]string(nil), variants...)}
	for i, f := range files {
		fmt.Fprintf(progress, "\reval anatomy --stress: %d/%d files", i+1, len(files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return nil, err
		}
		name := f.Rel
		if name == "" {
			name = f.Path
		}
		for _, v := range variants {
			sc := c
			if v != "none" {
				if sc, err = stress.Apply(c, stress.Variant(v)); err != nil {
					rep.Skip(v, name, err)
					continue
				}
			}
			fit, err := fitStressed(name, sc)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", f.Path, v, err)
			}
			rep.Add(v, fit)
		}
	}
	fmt.Fprintln(progress)
	return rep, nil
}

// fitStressed fits c with its kind detected and measures it as a humanoid (fitted
// again as one when detected as another kind).
func fitStressed(name string, c *character.Character) (anatomy.HumanoidFit, error) {
	sk, r, err := fitAnatomy(c, anatomy.Options{Up: "y"})
	if err != nil {
		return anatomy.HumanoidFit{}, err
	}
	det := anatomy.Detection{Kind: r.Kind, Confidence: r.Confidence, Suspect: r.Suspect}
	if r.Kind != anatomy.Humanoid {
		if sk, r, err = fitAnatomy(c, anatomy.Options{Kind: anatomy.Humanoid, Up: "y"}); err != nil {
			return anatomy.HumanoidFit{}, err
		}
	}
	fit := anatomy.MeasureHumanoid(name, strings.SplitN(name, "/", 2)[0], sk, r, c.Skeleton, meshHeight(&c.Mesh))
	fit.Detection = det
	return fit, nil
}

// FitAnatomy fits the anatomical skeleton of c on its classical skeleton, as rig
// auto does.
func FitAnatomy(c *character.Character, opt anatomy.Options) (*character.Skeleton, *anatomy.Report, error) {
	return fitAnatomy(c, opt)
}
