package sampler

import (
	"fmt"
	"math/rand"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/tokens"
)

// Continue feeds prompt to a model that has read nothing yet (in one pass when it
// is a Prefiller) and samples after it under the grammar and region masks, as
// Generate does, until the stream ends or stop, called with every sampled token
// before it is kept, returns true; that token is then dropped. It is how a stream
// is completed from a given prefix (the co-pilot): the prefix is read as tokens,
// never re-encoded from decoded geometry, and stop ends the continuation at the
// point the caller owns (e.g. the POP that closes a joint's subtree).
func Continue(m rigmodel.Stepper, prompt []int, opt SampleOptions, stop func(tok int) bool, rng *rand.Rand) (*Sampled, error) {
	s, logits, err := feedPrompt(m, prompt, opt)
	if err != nil {
		return nil, err
	}
	probs := make([]float64, tokens.VocabSize)
	for !s.ended() {
		if len(s.out.Tokens) > tokens.MaxStreamLen {
			return nil, fmt.Errorf("continue: stream exceeds the grammar's bound (%d tokens)", tokens.MaxStreamLen)
		}
		mask := s.cur.Allowed()
		tok, lp := pick(logits, &mask, s.opt, rng, probs)
		if stop != nil && stop(tok) {
			break
		}
		if err := s.cur.Next(tok); err != nil {
			return nil, fmt.Errorf("continue: %w", err)
		}
		s.out.Tokens = append(s.out.Tokens, tok)
		s.out.LogProbs = append(s.out.LogProbs, lp)
		if s.ended() {
			break
		}
		if logits, err = m.Step(tok); err != nil {
			return nil, fmt.Errorf("continue: %w", err)
		}
	}
	return s.out, nil
}
