package sampler

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/tokens"
)

func TestContinueStopsWhereTold(t *testing.T) {
	prompt := []int{tokens.BOS, tokens.CoordToken(10), tokens.CoordToken(20), tokens.CoordToken(30)}
	tests := []struct {
		name string
		stop func(int) bool
		// check reports what is wrong with the stream after the prompt.
		check func(after []int) string
	}{
		{"never: the stream ends at EOS", func(int) bool { return false }, func(after []int) string {
			if len(after) == 0 || after[len(after)-1] != tokens.EOS {
				return "does not end at EOS"
			}
			return ""
		}},
		{"at once: nothing sampled", func(int) bool { return true }, func(after []int) string {
			if len(after) != 0 {
				return "sampled after an immediate stop"
			}
			return ""
		}},
		{"at SEP: the skeleton only, SEP dropped", func(tok int) bool { return tok == tokens.SEP }, func(after []int) string {
			if slices.Contains(after, tokens.SEP) || slices.ContainsFunc(after, func(tok int) bool { return tok >= tokens.SkinBase }) {
				return "kept SEP or skin codes"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &noiseModel{rng: rand.New(rand.NewSource(1))}
			s, err := Continue(m, prompt, SampleOptions{Temperature: 1}, tt.stop, rand.New(rand.NewSource(2)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Tokens[:len(prompt)], prompt) || s.Prompt != len(prompt) {
				t.Fatalf("prompt not kept: %v", s.Tokens)
			}
			if msg := tt.check(s.Tokens[len(prompt):]); msg != "" {
				t.Fatalf("%s: %v", msg, s.Tokens)
			}
			if len(s.LogProbs) != len(s.Tokens) {
				t.Fatalf("%d log-probabilities for %d tokens", len(s.LogProbs), len(s.Tokens))
			}
		})
	}
	if _, err := Continue(&noiseModel{rng: rand.New(rand.NewSource(1))}, []int{tokens.BOS, tokens.SEP}, SampleOptions{}, nil, rand.New(rand.NewSource(2))); err == nil {
		t.Error("prompt breaking the grammar: no error")
	}
}
