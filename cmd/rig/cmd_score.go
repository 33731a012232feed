package main

import (
	"encoding/json"
	"fmt"
	"github.com/rigkit/rigkit/animation"
	"io"

	"github.com/rigkit/rigkit/rewards"
)

func init() {
	register(&command{
		name:    "score",
		usage:   "FILE...|- [--json] [--details] [--poses N] [--seed S]",
		summary: "score rigs with the geometric rewards (JSON lines)",
		run:     runScore,
	})
}

// scoreLine is one output line of `rig score`.
type scoreLine struct {
	File     string             `json:"file"`
	Score    float64            `json:"score"`
	Rewards  map[string]float64 `json:"rewards"`
	Problems []string           `json:"problems"`
	Details  *rewards.Details   `json:"details,omitempty"`
	Error    string             `json:"error,omitempty"`
}

func runScore(args []string, stdout io.Writer) error {
	fs := newFlags("score")
	fs.Bool("json", true, "print JSON lines (the only format; accepted for compatibility)")
	details := fs.Bool("details", false, "include per-reward details (bones, vertices)")
	poses := fs.Int("poses", 8, "random poses of the deformation reward")
	seed := fs.Int64("seed", 1, "seed of poses and samples")
	clips := fs.Bool("clips", true, clipsUsage)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: no files", errUsage)
	}
	if err := stdinOnce(files); err != nil {
		return err
	}
	if *poses < 1 {
		return fmt.Errorf("%w: --poses must be at least 1", errUsage)
	}
	opt := judgeOptions(*poses, *seed, *clips)
	enc := json.NewEncoder(stdout)
	failed := 0
	for _, f := range files {
		line := scoreLine{File: displayName(f), Problems: []string{}}
		data, err := readInput(f)
		if err == nil && f == stdio {
			err = sniffGLTF(data) // ScoreGLB reads no external files either way
		}
		var rep *rewards.Report
		if err == nil {
			rep, err = rewards.ScoreGLB(data, displayName(f), opt)
		}
		if err != nil {
			failed++
			line.Error = err.Error()
			fmt.Fprintf(diag, "rig score: %s: %v\n", displayName(f), err)
		} else {
			line.Score, line.Rewards, line.Problems = rep.Score, rep.Rewards, rep.Problems
			if *details {
				line.Details = &rep.Details
			}
		}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files failed to score", failed, len(files))
	}
	return nil
}

// clipsUsage is the --clips flag of the commands that score rigs.
const clipsUsage = "also pose the deformation reward by rigkit's clips (walk, wave, crouch, arms up) where the skeleton's joint names follow a known scheme (reward version 5); false: random poses alone, as version 4"

// judgeOptions are the scoring options of rig score and rig serve: poses random
// poses of seed, and rigkit's clips beside them unless clips is false.
func judgeOptions(poses int, seed int64, clips bool) rewards.Options {
	opt := rewards.Options{Poses: poses, Seed: seed}
	if clips {
		opt.Motion = animation.ClipPoses
	}
	return opt
}
