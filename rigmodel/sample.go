package rigmodel

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/tokenizer"
)

// This file is generation: the grammar-masked sampling loop over any next-token
// model with a KV cache, temperature and nucleus (top-p) sampling.

// SampleOptions controls one generated stream.
type SampleOptions struct {
	// Temperature divides the logits; 0 means greedy (argmax).
	Temperature float64
	// TopP keeps the smallest set of tokens whose probability reaches TopP (0 or 1:
	// all tokens).
	TopP float64
	// MaxJoints bounds the skeleton (0: tokenizer.MaxJoints).
	MaxJoints int
	// StopAtSEP ends the stream after the skeleton (skeleton-only generation).
	StopAtSEP bool
}

// Stepper is a next-token model with a KV cache: Step appends one token to the
// context and returns the logits (length tokenizer.VocabSize) of the token after it.
type Stepper interface {
	Step(tok int) ([]float32, error)
}

// Sampled is a generated stream with what GRPO needs: the exact token buffer and the
// log-probability of each sampled token under the masked, tempered distribution.
type Sampled struct {
	Tokens []int
	// LogProbs[i] belongs to Tokens[i]; prompt tokens have 0.
	LogProbs []float64
	// Prompt is how many leading tokens were given rather than sampled.
	Prompt int
}

// Generate feeds the prompt (starting with BOS; nil means just BOS) to the model and
// samples until EOS (or SEP with StopAtSEP), masking every step with the grammar so
// that the stream always decodes. It fails only if the model fails or the prompt
// breaks the grammar.
func Generate(m Stepper, prompt []int, opt SampleOptions, rng *rand.Rand) (*Sampled, error) {
	if len(prompt) == 0 {
		prompt = []int{tokenizer.BOS}
	}
	g := tokenizer.NewGrammar(opt.MaxJoints)
	st := g.Start()
	out := &Sampled{Prompt: len(prompt)}
	var logits []float32
	var err error
	for i, t := range prompt {
		if err := st.Next(t); err != nil {
			return nil, fmt.Errorf("generate: prompt token %d: %w", i, err)
		}
		if logits, err = m.Step(t); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		out.Tokens = append(out.Tokens, t)
		out.LogProbs = append(out.LogProbs, 0)
	}
	probs := make([]float64, tokenizer.VocabSize)
	for !st.Done() {
		if opt.StopAtSEP && st.Phase() == tokenizer.PhaseSkin {
			break
		}
		if len(out.Tokens) > tokenizer.MaxStreamLen {
			return nil, errors.New("generate: stream exceeds the grammar's bound (grammar bug)")
		}
		mask := st.Allowed()
		tok, lp := pick(logits, &mask, opt, rng, probs)
		if err := st.Next(tok); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		out.Tokens = append(out.Tokens, tok)
		out.LogProbs = append(out.LogProbs, lp)
		if st.Done() || (opt.StopAtSEP && tok == tokenizer.SEP) {
			break
		}
		if logits, err = m.Step(tok); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
	}
	return out, nil
}

// pick chooses the next token among the allowed ones and returns it with its
// log-probability under the distribution it was drawn from. probs is scratch space.
func pick(logits []float32, mask *tokenizer.Mask, opt SampleOptions, rng *rand.Rand, probs []float64) (int, float64) {
	allowed := mask.Tokens()
	if len(allowed) == 1 {
		return allowed[0], 0
	}
	temp := opt.Temperature
	best := allowed[0]
	for _, t := range allowed {
		if logits[t] > logits[best] || math.IsNaN(float64(logits[best])) {
			best = t
		}
	}
	if temp <= 0 {
		return best, 0
	}
	// Softmax over the allowed tokens at temperature temp.
	mx := float64(logits[best]) / temp
	sum := 0.0
	for _, t := range allowed {
		p := math.Exp(float64(logits[t])/temp - mx)
		if math.IsNaN(p) {
			p = 0
		}
		probs[t] = p
		sum += p
	}
	cand := allowed
	if opt.TopP > 0 && opt.TopP < 1 {
		sorted := append([]int(nil), allowed...)
		sort.Slice(sorted, func(a, b int) bool { return probs[sorted[a]] > probs[sorted[b]] })
		acc := 0.0
		k := 0
		for k < len(sorted) {
			acc += probs[sorted[k]] / sum
			k++
			if acc >= opt.TopP {
				break
			}
		}
		cand = sorted[:k]
		sum = 0
		for _, t := range cand {
			sum += probs[t]
		}
	}
	if !(sum > 0) {
		return best, 0
	}
	r := rng.Float64() * sum
	choice := cand[len(cand)-1]
	for _, t := range cand {
		r -= probs[t]
		if r <= 0 {
			choice = t
			break
		}
	}
	return choice, math.Log(probs[choice] / sum)
}
