package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/synth"
)

// Anatomical skeletons (`rig eval --task anatomy`): the held-out humanoids (files
// whose manifest category is a biped) are fitted with the Humanoid template on the
// classical skeleton, checked (one root at the pelvis, no limb on a limb, mirrored
// sides) and named against the artist's skeleton (docs/anatomy.md). --synthetic N
// adds N synthetic bipeds; --kind-report detects the kind and up axis of every file
// against its category instead; --method model[=CKPT] names the model's skeletons
// instead (eval_anatomy_model.go).

func init() {
	evalTasks["anatomy"] = evalAnatomy
}

// anatomyEval holds the anatomy task's flags.
type anatomyEval struct {
	KindReport bool
}

func (o *anatomyEval) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.KindReport, "kind-report", false, "anatomy task: detect the kind and up axis of every file against the manifest's categories instead of the humanoid report")
}

// fitAnatomy fits the anatomical skeleton of c on its classical skeleton.
func fitAnatomy(c *character.Character, opt anatomy.Options) (*character.Skeleton, *anatomy.Report, error) {
	prop, err := classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
	if err != nil {
		return nil, nil, fmt.Errorf("classical skeleton: %w", err)
	}
	return anatomy.Fit(&c.Mesh, prop, opt)
}

// meshHeight is the mesh's extent along Y, the up axis of the stored files.
func meshHeight(m *character.Mesh) float64 {
	lo, hi := m.Bounds()
	return hi[1] - lo[1]
}

func evalAnatomy(cfg evalConfig, stdout io.Writer) error {
	var md string
	var faults []string
	if ckpt, ok := anatomyModelMethod(cfg.Methods); ok {
		rep, err := modelNamingReport(cfg, ckpt)
		if err != nil {
			return err
		}
		md, faults = rep.Markdown(), rep.Faults()
	} else if cfg.Task.Anatomy.KindReport {
		rep, err := anatomyKindReport(cfg)
		if err != nil {
			return err
		}
		md = rep.Markdown()
	} else {
		rep, err := humanoidReport(cfg)
		if err != nil {
			return err
		}
		md, faults = rep.Markdown(), rep.Faults()
	}
	if err := writeEvalReport(cfg.Out, md, nil, stdout); err != nil {
		return err
	}
	if len(faults) > 0 {
		return fmt.Errorf("eval anatomy: unusable skeletons: %s", strings.Join(faults, "; "))
	}
	return nil
}

// humanoidFiles keeps the files whose manifest category is a biped.
func humanoidFiles(files []evalFile) []evalFile {
	var out []evalFile
	for _, f := range files {
		if strings.HasPrefix(f.Category, "biped") {
			out = append(out, f)
		}
	}
	return out
}

// humanoidReport fits the biped files and the synthetic bipeds.
func humanoidReport(cfg evalConfig) (*anatomy.HumanoidReport, error) {
	rep := &anatomy.HumanoidReport{}
	cfg.Files = humanoidFiles(cfg.Files)
	for i, f := range cfg.Files {
		fmt.Fprintf(cfg.Progress, "\reval anatomy: %d/%d files", i+1, len(cfg.Files))
		fit, err := fitHumanoidFile(f)
		if err != nil {
			return nil, err
		}
		rep.Add(fit)
	}
	fmt.Fprintln(cfg.Progress)
	err := eachSyntheticBiped(cfg.Task.Synthetic, func(name string, c *character.Character) error {
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
func fitHumanoidFile(f evalFile) (anatomy.HumanoidFit, error) {
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
		z.Mesh.Positions[i] = character.Vec3{p[0], -p[2], p[1]}
	}
	if _, zr, err := fitAnatomy(z, anatomy.Options{}); err == nil {
		fit.UpTurned = zr.Up
	}
	return fit, nil
}

// anatomyKindReport detects the kind and up axis of every file.
func anatomyKindReport(cfg evalConfig) (*anatomy.KindReport, error) {
	rep := &anatomy.KindReport{}
	for i, f := range cfg.Files {
		fmt.Fprintf(cfg.Progress, "\reval anatomy --kind-report: %d/%d files", i+1, len(cfg.Files))
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
	fmt.Fprintln(cfg.Progress)
	return rep, nil
}
