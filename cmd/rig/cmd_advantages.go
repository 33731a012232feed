package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/rewards"
)

func init() {
	register(&command{
		name:    "advantages",
		usage:   "[--std] < scores",
		summary: "GRPO group advantages of scores read from stdin (JSON array or one per line)",
		run: func(args []string, stdout io.Writer) error {
			return runAdvantages(args, stdin, stdout)
		},
	})
}

func runAdvantages(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := newFlags("advantages")
	std := fs.Bool("std", false, "divide by the group's standard deviation")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected argument %q (scores come on stdin)", errUsage, rest[0])
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
	if err != nil {
		return fmt.Errorf("read scores: %w", err)
	}
	scores, err := parseScores(string(data))
	if err != nil {
		return fmt.Errorf("read scores: %w", err)
	}
	return json.NewEncoder(stdout).Encode(rewards.GroupAdvantages(scores, *std))
}

// parseScores reads a JSON array of numbers, or one number (or `rig score` JSON
// line with a "score" field) per line.
func parseScores(s string) ([]float64, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") {
		var v []float64
		if err := json.Unmarshal([]byte(t), &v); err != nil {
			return nil, fmt.Errorf("JSON array: %w", err)
		}
		return v, nil
	}
	var out []float64
	for i, line := range strings.Split(t, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "{") {
			var obj struct {
				Score *float64 `json:"score"`
			}
			if err := json.Unmarshal([]byte(line), &obj); err != nil || obj.Score == nil {
				return nil, fmt.Errorf("line %d: JSON object without a numeric \"score\"", i+1)
			}
			out = append(out, *obj.Score)
			continue
		}
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q is not a number", i+1, line)
		}
		out = append(out, v)
	}
	return out, nil
}
