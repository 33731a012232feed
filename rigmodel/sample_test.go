package rigmodel

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/tokenizer"
)

// noiseModel returns random logits, biased toward ending so streams stay short.
type noiseModel struct {
	rng  *rand.Rand
	seen []int
}

func (m *noiseModel) Step(tok int) ([]float32, error) {
	m.seen = append(m.seen, tok)
	l := make([]float32, tokenizer.VocabSize)
	for i := range l {
		l[i] = float32(m.rng.NormFloat64() * 3)
	}
	l[tokenizer.SEP] += 4
	l[tokenizer.POP] += 2
	return l, nil
}

func TestGenerateAlwaysDecodes(t *testing.T) {
	tests := []struct {
		name string
		opt  SampleOptions
	}{
		{"greedy", SampleOptions{Temperature: 0, MaxJoints: 12}},
		{"t=1", SampleOptions{Temperature: 1, MaxJoints: 12}},
		{"t=1.5 top-p", SampleOptions{Temperature: 1.5, TopP: 0.9, MaxJoints: 20}},
		{"skeleton only", SampleOptions{Temperature: 1, StopAtSEP: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := int64(0); seed < 20; seed++ {
				rng := rand.New(rand.NewSource(seed))
				m := &noiseModel{rng: rand.New(rand.NewSource(seed + 100))}
				s, err := Generate(m, nil, tc.opt, rng)
				if err != nil {
					t.Fatal(err)
				}
				if len(s.LogProbs) != len(s.Tokens) {
					t.Fatalf("%d log-probs for %d tokens", len(s.LogProbs), len(s.Tokens))
				}
				for i, lp := range s.LogProbs {
					if lp > 0 || math.IsNaN(lp) {
						t.Fatalf("token %d log-prob %v", i, lp)
					}
				}
				// The model saw every token but the last (the KV cache is fed in order).
				if len(m.seen) != len(s.Tokens)-1 {
					t.Fatalf("model stepped %d tokens for a stream of %d", len(m.seen), len(s.Tokens))
				}
				sk, err := tokenizer.DecodeSkeleton(s.Tokens)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := sk.Validate(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if max := tc.opt.MaxJoints; max > 0 && sk.NumJoints() > max {
					t.Fatalf("%d joints over the bound %d", sk.NumJoints(), max)
				}
				if tc.opt.StopAtSEP {
					if s.Tokens[len(s.Tokens)-1] != tokenizer.SEP {
						t.Fatalf("skeleton-only stream ends with %s", tokenizer.TokenString(s.Tokens[len(s.Tokens)-1]))
					}
					continue
				}
				_, codes, err := tokenizer.Split(s.Tokens)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if len(codes) != sk.NumJoints() {
					t.Fatalf("%d skin code rows for %d joints", len(codes), sk.NumJoints())
				}
			}
		})
	}
}

func TestGeneratePromptIsKept(t *testing.T) {
	prompt := []int{tokenizer.BOS, tokenizer.CoordToken(10), tokenizer.CoordToken(20), tokenizer.CoordToken(30), tokenizer.SEP}
	m := &noiseModel{rng: rand.New(rand.NewSource(1))}
	s, err := Generate(m, prompt, SampleOptions{Temperature: 1}, rand.New(rand.NewSource(2)))
	if err != nil {
		t.Fatal(err)
	}
	for i, tok := range prompt {
		if s.Tokens[i] != tok {
			t.Fatalf("prompt token %d changed", i)
		}
	}
	if s.Prompt != len(prompt) || len(s.Tokens) != len(prompt)+tokenizer.SkinTokensPerJoint+1 {
		t.Errorf("stream %v", s.Tokens)
	}
	bad := []int{tokenizer.BOS, tokenizer.SEP}
	if _, err := Generate(m, bad, SampleOptions{}, rand.New(rand.NewSource(2))); err == nil {
		t.Error("prompt breaking the grammar: no error")
	}
}

func TestPickTopPAndTemperature(t *testing.T) {
	var mask tokenizer.Mask
	g := tokenizer.NewGrammar(0)
	st := g.Start()
	mask = st.Allowed() // only BOS
	logits := make([]float32, tokenizer.VocabSize)
	probs := make([]float64, tokenizer.VocabSize)
	if tok, lp := pick(logits, &mask, SampleOptions{Temperature: 1}, rand.New(rand.NewSource(1)), probs); tok != tokenizer.BOS || lp != 0 {
		t.Errorf("single allowed token: got %d, %v", tok, lp)
	}
	st.Next(tokenizer.BOS)
	mask = st.Allowed() // coordinates
	logits[tokenizer.CoordToken(7)] = 5
	logits[tokenizer.CoordToken(9)] = 4.9
	rng := rand.New(rand.NewSource(3))
	counts := map[int]int{}
	for i := 0; i < 400; i++ {
		tok, _ := pick(logits, &mask, SampleOptions{Temperature: 1, TopP: 0.5}, rng, probs)
		counts[tok]++
	}
	// The two leading tokens hold about 0.28 and 0.25 of the mass: top-p 0.5 keeps only them.
	for tok := range counts {
		if tok != tokenizer.CoordToken(7) && tok != tokenizer.CoordToken(9) {
			t.Errorf("top-p let token %s through", tokenizer.TokenString(tok))
		}
	}
	if tok, _ := pick(logits, &mask, SampleOptions{}, rng, probs); tok != tokenizer.CoordToken(7) {
		t.Errorf("greedy picked %s", tokenizer.TokenString(tok))
	}
}
