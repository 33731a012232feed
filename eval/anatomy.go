package eval

import (
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// Anatomical skeletons (`rig eval --task anatomy`): the held-out humanoids (files
// whose manifest category is a biped) are fitted with the Humanoid template on the
// classical skeleton, checked (one root at the pelvis, no limb on a limb, mirrored
// sides) and named against the artist's skeleton (docs/anatomy.md), with synthetic
// bipeds beside them (HumanoidFits); Kinds detects the kind and up axis of every
// file against its category instead; ModelNaming names the model's skeletons
// instead (anatomy_model.go).

// fitAnatomy fits the anatomical skeleton of c on its classical skeleton.
func fitAnatomy(c *character.Character, opt anatomy.Options) (*character.Skeleton, *anatomy.Report, error) {
	prop, err := classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
	if err != nil {
		return nil, nil, fmt.Errorf("classical skeleton: %w", err)
	}
	return anatomy.Fit(&c.Mesh, prop, opt.ForCharacter(c))
}

// meshHeight is the mesh's extent along Y, the up axis of the stored files.
func meshHeight(m *character.Mesh) float64 {
	lo, hi := m.Bounds()
	return hi[1] - lo[1]
}

// HumanoidFits fits the biped files and synthetic bipeds of seeds 1..synthetic.
func HumanoidFits(files []File, synthetic int, progress io.Writer) (*anatomy.HumanoidReport, error) {
	rep := &anatomy.HumanoidReport{}
	files = humanoidFiles(files)
	for i, f := range files {
		fmt.Fprintf(progress, "\reval anatomy: %d/%d files", i+1, len(files))
		fit, err := fitHumanoidFile(f)
		if err != nil {
			return nil, err
		}
		rep.Add(fit)
	}
	fmt.Fprintln(progress)
	err := eachSyntheticBiped(synthetic, func(name string, c *character.Character) error {
		sk, r, err := fitAnatomy(c, anatomy.Options{})
		if err == nil {
			rep.Add(anatomy.MeasureHumanoid(name, "synthetic", sk, r, c.Skeleton, meshHeight(&c.Mesh)))
		}
		return err
	})
	return rep, err
}

// eachSyntheticBiped calls fn on the synthetic bipeds of seeds 1..n (3,000
// vertices, named synth/biped_SEED), the anatomy task's bipeds; an error names the
// seed.
func eachSyntheticBiped(n int, fn func(name string, c *character.Character) error) error {
	for seed := int64(1); seed <= int64(n); seed++ {
		c, err := synth.Generate("biped", seed, synth.Options{TargetVertices: 3000})
		if err == nil {
			err = fn(fmt.Sprintf("synth/biped_%d", seed), c)
		}
		if err != nil {
			return fmt.Errorf("synth biped %d: %w", seed, err)
		}
	}
	return nil
}

// fitHumanoidFile fits one file as a Y-up humanoid, and detects its up axis as
// stored and turned Z-up.
func fitHumanoidFile(f File) (anatomy.HumanoidFit, error) {
	c, _, err := assets.Load(f.Path, assets.Options{})
	if err != nil {
		return anatomy.HumanoidFit{}, err
	}
	sk, r, err := fitAnatomy(c, anatomy.Options{Kind: anatomy.Humanoid, Up: "y"})
	if err != nil {
		return anatomy.HumanoidFit{}, fmt.Errorf("%s: %w", f.Path, err)
	}
	name := f.Rel
	if name == "" {
		name = f.Path
	}
	fit := anatomy.MeasureHumanoid(name, strings.SplitN(name, "/", 2)[0], sk, r, c.Skeleton, meshHeight(&c.Mesh))
	if _, yr, err := fitAnatomy(c, anatomy.Options{}); err == nil {
		fit.UpAsStored = yr.Up
	}
	z := c.Clone()
	for i, p := range z.Mesh.Positions {
		z.Mesh.Positions[i] = vecmath.Vec3{p[0], -p[2], p[1]}
	}
	if _, zr, err := fitAnatomy(z, anatomy.Options{}); err == nil {
		fit.UpTurned = zr.Up
	}
	return fit, nil
}

// Kinds detects the kind and up axis of every file.
func Kinds(files []File, progress io.Writer) (*anatomy.KindReport, error) {
	rep := &anatomy.KindReport{}
	for i, f := range files {
		fmt.Fprintf(progress, "\reval anatomy --kind-report: %d/%d files", i+1, len(files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return nil, err
		}
		sk, r, err := fitAnatomy(c, anatomy.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		rep.Add(f.Rel, f.Category, r, anatomy.Check(sk, r.Symmetry, meshHeight(&c.Mesh)))
	}
	fmt.Fprintln(progress)
	return rep, nil
}
