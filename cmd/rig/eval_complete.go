package main

import (
	"io"
	"slices"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/copilot"
	"github.com/rigkit/rigkit/eval"
)

// evalComplete is the completion task: the co-pilot completes the artist's primary
// joints on every held-out file, beside the classical skeleton and, with a model,
// the skeleton `rig auto` samples without a partial ("auto"); --method keeps the
// baselines it names (all: both), template-only leaves the model out of the
// completion, and deforming reads the artists' deforming skeletons (no IK or
// pole targets) as the truth.
func evalComplete(cfg evalConfig, stdout io.Writer) error {
	opt := eval.CompleteOptions{Progress: cfg.Progress, Completer: copilot.Completer{Seed: 1, Anatomy: anatomy.Options{}},
		Baselines: map[string]eval.SkeletonPredictor{
			"classical": func(c *character.Character) (*character.Skeleton, error) {
				return classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
			},
		}}
	if model := evalModel(cfg.Methods, "skeleton"); model != nil {
		r := *model
		opt.Baselines["auto"] = r.PredictSkeleton
		if !slices.Contains(cfg.Methods, "template-only") {
			opt.Completer.Model = &r.Generator
		}
	}
	opt.Deforming = slices.Contains(cfg.Methods, "deforming")
	opt.Baselines = eval.Only(opt.Baselines, cfg.Methods)
	rep := eval.Completions(cfg.Files, opt)
	return writeEvalReport(cfg.Out, rep.Markdown(), rep.JSON(), stdout)
}
