package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/eval"
	"github.com/rigkit/rigkit/internal/atomicfile"
)

func init() {
	register(&command{
		name:    "train-critic",
		usage:   "--data DIR --out CRITIC.json [--report REPORT.md] [--workers N] [--seed N] [--l2 X]",
		summary: "fit the rewards' learned critic on the tune half's artist skeletons against perturbed, classical and template ones",
		run:     runTrainCritic,
	})
}

// runTrainCritic builds the candidates (eval.CriticCandidates), fits the critic
// (critic.Fit) and writes its JSON, the file critic/critic.json embeds, and the
// report of its pair accuracy.
func runTrainCritic(args []string, stdout io.Writer) error {
	fs := newFlags("train-critic")
	var data evalDirFlag
	fs.Var(&data, "data", "folder of rigged characters with a manifest (repeatable)")
	out := fs.String("out", "", "critic JSON to write (critic/critic.json is the shipped one)")
	report := fs.String("report", "", "REPORT.md: pair accuracy per half, mean logit per candidate, weights")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "characters prepared in parallel")
	seed := fs.Int64("seed", 1, "seed of the jittered candidates")
	cands := fs.String("candidates", "", "CANDIDATES.json: every character's candidates, CD-J2J and features, for refitting offline")
	l2 := fs.Float64("l2", 1, "ridge penalty on the standardized weights")
	from := fs.String("from", "", "CANDIDATES.json of an earlier run: refit without rebuilding the candidates")
	fullAt := fs.Float64("full-at", 2, "the logit from which the critic gives full credit")
	features := fs.String("features", "", "comma-separated features to fit (default: all; the others weigh 0)")
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if *out == "" || (len(data) == 0) == (*from == "") {
		return fmt.Errorf("%w: --out and one of --data or --from are required", errUsage)
	}
	if *out == "-" {
		return fmt.Errorf("%w: --out -: train-critic writes a file", errUsage)
	}
	if !(*l2 > 0) {
		return fmt.Errorf("%w: --l2 %g: want a positive number", errUsage, *l2)
	}
	opt := critic.FitOptions{Seed: *seed, L2: *l2, FullAt: *fullAt}
	if *features != "" {
		opt.Features = strings.Split(*features, ",")
	}
	start := time.Now()
	chars, err := criticCandidates(data, *from, *seed, max(1, *workers))
	if err != nil {
		return err
	}
	rep, err := critic.Fit(chars, opt)
	if err != nil {
		return err
	}
	rep.Model.Training.Seconds = math.Round(time.Since(start).Seconds())
	rep.Model.Training.Command = "rig train-critic " + strings.Join(args, " ")
	rep.Model.Training.Data = cmp.Or(strings.Join(data, ", "), *from) + ": creature files of the tune half (dataset.FamilyHalf)"
	js, err := json.MarshalIndent(rep.Model, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(*out, append(js, '\n')); err != nil {
		return err
	}
	if *cands != "" {
		b, err := json.Marshal(chars)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(*cands, b); err != nil {
			return err
		}
	}
	md := rep.Markdown()
	if *report != "" {
		if err := atomicfile.WriteFile(*report, []byte(md)); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, md)
	fmt.Fprintf(stdout, "\nwrote %s\n", *out)
	return nil
}

// criticCandidates builds the candidates from the data folders, or reads them
// from an earlier run's CANDIDATES.json.
func criticCandidates(data []string, from string, seed int64, workers int) ([]critic.Character, error) {
	if from == "" {
		files, err := eval.ListFiles(data)
		if err != nil {
			return nil, err
		}
		return eval.CriticCandidates(files, seed, workers, progressOut(false))
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return nil, err
	}
	var chars []critic.Character
	if err := json.Unmarshal(b, &chars); err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return chars, nil
}
