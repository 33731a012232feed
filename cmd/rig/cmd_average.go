package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/train"
)

func init() {
	register(&command{
		name:    "average",
		usage:   "--out CKPT [--weights W,W...] CKPT CKPT...",
		summary: "average the weights of TokenRig checkpoints of one model (a checkpoint soup)",
		run:     runAverage,
	})
}

// runAverage writes the weighted mean of the inputs' parameters
// (train.Average) with the last input's training state, its Averaged
// field naming every input.
func runAverage(args []string, stdout io.Writer) error {
	fs := newFlags("average")
	out := fs.String("out", "", "checkpoint to write (.safetensors)")
	weightList := fs.String("weights", "", "comma-separated positive weight per input, normalized to sum to 1 (default: equal)")
	inputs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *out == "" || len(inputs) < 2 {
		return fmt.Errorf("%w: --out and at least two checkpoints are required", errUsage)
	}
	weights, err := parseWeights(*weightList, len(inputs))
	if err != nil {
		return err
	}
	models, st, err := loadForAverage(inputs)
	if err != nil {
		return err
	}
	avg, err := train.Average(models, weights)
	if err != nil {
		return err
	}
	if err := train.SaveCheckpointFile(*out, avg, st); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "averaged %d checkpoints into %s\n", len(inputs), *out)
	return nil
}

// parseWeights reads --weights: empty means equal weights.
func parseWeights(list string, n int) ([]float64, error) {
	if list == "" {
		return nil, nil
	}
	parts := strings.Split(list, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%w: --weights has %d values for %d checkpoints", errUsage, len(parts), n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		w, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(w > 0) {
			return nil, fmt.Errorf("%w: --weights value %q is not a positive number", errUsage, p)
		}
		out[i] = w
	}
	return out, nil
}

// loadForAverage loads the checkpoints, checks that they write the same tokens
// (skin tokens of one tokenizer, or none) and returns the last one's state with
// Averaged naming every input.
func loadForAverage(paths []string) ([]*rigmodel.Model, *rigmodel.TrainState, error) {
	models := make([]*rigmodel.Model, len(paths))
	var st *rigmodel.TrainState
	var from []string
	for i, p := range paths {
		m, s, err := rigmodel.LoadCheckpointFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if st != nil && (s.SkinTokens != st.SkinTokens || s.SkinTokenizer != st.SkinTokenizer) {
			return nil, nil, fmt.Errorf("%s writes other tokens (skin tokens %v, tokenizer %q) than %s (%v, %q)",
				p, s.SkinTokens, s.SkinTokenizer, paths[0], st.SkinTokens, st.SkinTokenizer)
		}
		models[i], st = m, s
		from = append(from, fmt.Sprintf("%s (step %d)", filepath.Base(p), s.Step))
	}
	out := *st
	out.Averaged = from
	return models, &out, nil
}
