package sampler

import (
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// noiseModel returns random logits, biased toward ending so streams stay short.
type noiseModel struct {
	rng  *rand.Rand
	seen []int
}

func (m *noiseModel) Step(tok int) ([]float32, error) {
	m.seen = append(m.seen, tok)
	l := make([]float32, tokens.VocabSize)
	for i := range l {
		l[i] = float32(m.rng.NormFloat64() * 3)
	}
	l[tokens.SEP] += 4
	l[tokens.POP] += 2
	return l, nil
}

func TestGenerateAlwaysDecodes(t *testing.T) {
	tests := []struct {
		name string
		opt  SampleOptions
	}{
		{"greedy", SampleOptions{Temperature: 0, MaxJoints: 12}},
		{"t=1 K=4", SampleOptions{Temperature: 1, MaxJoints: 12, K: 4}},
		{"t=1.5 top-p K=16", SampleOptions{Temperature: 1.5, TopP: 0.9, MaxJoints: 20, K: 16}},
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
				sk, err := tokens.DecodeSkeleton(s.Tokens)
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
					if s.Tokens[len(s.Tokens)-1] != tokens.SEP {
						t.Fatalf("skeleton-only stream ends with %s", tokens.TokenString(s.Tokens[len(s.Tokens)-1]))
					}
					continue
				}
				_, codes, err := tokens.Split(s.Tokens, tc.opt.K)
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
	prompt := []int{tokens.BOS, tokens.CoordToken(10), tokens.CoordToken(20), tokens.CoordToken(30), tokens.SEP}
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
	if s.Prompt != len(prompt) || len(s.Tokens) != len(prompt)+tokens.DefaultK+1 {
		t.Errorf("stream %v", s.Tokens)
	}
	bad := []int{tokens.BOS, tokens.SEP}
	if _, err := Generate(m, bad, SampleOptions{}, rand.New(rand.NewSource(2))); err == nil {
		t.Error("prompt breaking the grammar: no error")
	}
}

func TestPickTopPAndTemperature(t *testing.T) {
	var mask tokens.Mask
	g := tokens.NewGrammar(0, 0)
	st := g.Start()
	mask = st.Allowed() // only BOS
	logits := make([]float32, tokens.VocabSize)
	probs := make([]float64, tokens.VocabSize)
	if tok, lp := pick(logits, &mask, SampleOptions{Temperature: 1}, rand.New(rand.NewSource(1)), probs); tok != tokens.BOS || lp != 0 {
		t.Errorf("single allowed token: got %d, %v", tok, lp)
	}
	st.Next(tokens.BOS)
	mask = st.Allowed() // coordinates
	logits[tokens.CoordToken(7)] = 5
	logits[tokens.CoordToken(9)] = 4.9
	rng := rand.New(rand.NewSource(3))
	counts := map[int]int{}
	for i := 0; i < 400; i++ {
		tok, _ := pick(logits, &mask, SampleOptions{Temperature: 1, TopP: 0.5}, rng, probs)
		counts[tok]++
	}
	// The two leading tokens hold about 0.28 and 0.25 of the mass: top-p 0.5 keeps only them.
	for tok := range counts {
		if tok != tokens.CoordToken(7) && tok != tokens.CoordToken(9) {
			t.Errorf("top-p let token %s through", tokens.TokenString(tok))
		}
	}
	if tok, _ := pick(logits, &mask, SampleOptions{}, rng, probs); tok != tokens.CoordToken(7) {
		t.Errorf("greedy picked %s", tokens.TokenString(tok))
	}
}

// TestGenerateN samples a batch of streams from one fork of an untrained model and
// checks each row against the model alone: greedy rows equal Generate's stream, every
// row is accepted by the grammar, and every sampled token's log-probability is the
// one its own row's logits give when the stream is fed to a fresh session (token-in,
// token-out for GRPO). One option must give exactly Generate's stream.
func TestGenerateN(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 7)
	if err != nil {
		t.Fatal(err)
	}
	mesh := synth.BoxQuadruped()
	nm, _ := rigmodel.NormalizedMesh(&mesh)
	lat, err := m.Encode(rigmodel.SamplePoints(&nm, modeltest.TinyConfig.Points, rand.New(rand.NewSource(1))), nil)
	if err != nil {
		t.Fatal(err)
	}
	maxJ := 6
	opts := []SampleOptions{
		{MaxJoints: maxJ},
		{Temperature: 1, MaxJoints: maxJ},
		{Temperature: 1.3, MaxJoints: maxJ},
		{Temperature: 1, MaxJoints: maxJ, StopAtSEP: true},
		{Temperature: 0.8, TopP: 0.9, MaxJoints: maxJ},
	}
	for _, prompt := range [][]int{nil, {tokens.BOS, tokens.CoordBase + 128, tokens.CoordBase + 128, tokens.CoordBase + 120}} {
		sess, err := m.NewSession(lat)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := GenerateN(sess, prompt, opts, rand.New(rand.NewSource(3)))
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range rows {
			if _, err := tokens.NewGrammar(maxJ, 0).Run(row.Tokens); err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
			if opts[i].StopAtSEP != (row.Tokens[len(row.Tokens)-1] == tokens.SEP) {
				t.Fatalf("row %d (StopAtSEP %v) ends with %d", i, opts[i].StopAtSEP, row.Tokens[len(row.Tokens)-1])
			}
			if row.Prompt != max(len(prompt), 1) {
				t.Fatalf("row %d: prompt length %d", i, row.Prompt)
			}
			// Feed the row to a fresh session and recompute its log-probabilities.
			fresh, err := m.NewSession(lat)
			if err != nil {
				t.Fatal(err)
			}
			st := tokens.NewGrammar(maxJ, 0).Start()
			for p, tok := range row.Tokens {
				if p >= row.Prompt && opts[i].Temperature > 0 && opts[i].TopP == 0 {
					mask := st.Allowed()
					if mask.Count() > 1 {
						want := logitsLogProb(logits(t, fresh, row.Tokens[p-1]), &mask, opts[i].Temperature, tok)
						if math.Abs(row.LogProbs[p]-want) > 1e-3 {
							t.Fatalf("row %d token %d: log-prob %.5f, fresh session gives %.5f", i, p, row.LogProbs[p], want)
						}
					} else if p > 0 {
						logits(t, fresh, row.Tokens[p-1])
					}
				} else if p > 0 {
					logits(t, fresh, row.Tokens[p-1])
				}
				if row.LogProbs[p] > 0 || math.IsNaN(row.LogProbs[p]) {
					t.Fatalf("row %d token %d: log-prob %v", i, p, row.LogProbs[p])
				}
				if err := st.Next(tok); err != nil {
					t.Fatal(err)
				}
			}
		}
		alone, err := m.NewSession(lat)
		if err != nil {
			t.Fatal(err)
		}
		greedy, err := Generate(alone, prompt, opts[0], rand.New(rand.NewSource(9)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(greedy.Tokens, rows[0].Tokens) {
			t.Fatalf("greedy row differs from Generate:\n got %v\nwant %v", rows[0].Tokens, greedy.Tokens)
		}
		// One option: Generate's own stream, draw for draw.
		for _, opt := range opts {
			a, _ := m.NewSession(lat)
			b, _ := m.NewSession(lat)
			one, err := GenerateN(a, prompt, []SampleOptions{opt}, rand.New(rand.NewSource(5)))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := Generate(b, prompt, opt, rand.New(rand.NewSource(5)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(one[0].Tokens, ref.Tokens) {
				t.Fatalf("GenerateN with one option %+v differs from Generate", opt)
			}
		}
	}
}

// logits steps s with tok and returns its logits.
func logits(t *testing.T, s rigmodel.Stepper, tok int) []float32 {
	t.Helper()
	l, err := s.Step(tok)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// logitsLogProb is the log-probability of tok under the masked softmax of
// logits/temp.
func logitsLogProb(l []float32, mask *tokens.Mask, temp float64, tok int) float64 {
	mx := math.Inf(-1)
	for _, a := range mask.Tokens() {
		mx = math.Max(mx, float64(l[a])/temp)
	}
	sum := 0.0
	for _, a := range mask.Tokens() {
		sum += math.Exp(float64(l[a])/temp - mx)
	}
	return float64(l[tok])/temp - mx - math.Log(sum)
}

// TestNucleus compares the nucleus with a full sort of every allowed token, on
// peaked, flat and tied distributions.
func TestNucleus(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, tc := range []struct {
		name  string
		scale float64
		topP  float64
	}{
		{"peaked", 8, 0.95},
		{"peaked, small p", 8, 0.3},
		{"flat", 0.01, 0.95},
		{"medium", 1, 0.9},
		{"tied", 0, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for trial := 0; trial < 50; trial++ {
				allowed := rng.Perm(1000)[:200+rng.Intn(800)]
				probs := make([]float64, 1000)
				sum := 0.0
				for _, a := range allowed {
					probs[a] = math.Exp(rng.NormFloat64() * tc.scale)
					sum += probs[a]
				}
				got := nucleus(allowed, probs, sum, tc.topP)
				// Reference: every allowed token sorted by probability, then id.
				ref := append([]int(nil), allowed...)
				sort.Slice(ref, func(i, j int) bool {
					if probs[ref[i]] != probs[ref[j]] {
						return probs[ref[i]] > probs[ref[j]]
					}
					return ref[i] < ref[j]
				})
				acc, k := 0.0, 0
				for k < len(ref) {
					acc += probs[ref[k]] / sum
					k++
					if acc >= tc.topP {
						break
					}
				}
				if !slices.Equal(got, ref[:k]) {
					t.Fatalf("trial %d: nucleus of %d tokens, want %d (%v vs %v)", trial, len(got), k, got[:min(5, len(got))], ref[:min(5, k)])
				}
			}
		})
	}
}
