package tokens

import (
	"errors"
	"math/bits"
	"slices"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/fuzzbound"
)

// FuzzStream drives the token-stream grammar with arbitrary bytes. Bytes 0 and 1
// pick K and the joint bound; each later byte picks one of the tokens the grammar
// allows next (so most inputs are long valid streams), except 0xFF, which makes the
// next two bytes an arbitrary token id (usually not allowed). It checks that the
// grammar never dead-ends before EOS, that a refused token leaves the state
// unchanged, that a finished stream splits into skeleton and K codes per joint and
// joins back to itself, and that a raw run of the same bytes as token ids never
// panics, all within bounded time and allocation.
func FuzzStream(f *testing.F) {
	f.Add([]byte{12, 0, 1, 5, 9, 7, 3, 0, 2, 8, 1, 1, 1, 0, 0})
	f.Add([]byte{4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 128, 0xFF, 0, 3, 1, 2, 3})
	f.Add([]byte{16, 1, 0, 0xFF, 0xFF, 0xFF, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		bound := fuzzbound.Bound{Alloc: 1<<20 + 256*uint64(len(data)), Time: 10 * time.Second}
		fuzzbound.Check(t, bound, func() { checkGuidedStream(t, int(data[0]), int(data[1]), data[2:]) })
		fuzzbound.Check(t, bound, func() { runRawStream(int(data[0]), data[2:]) })
	})
}

// checkGuidedStream writes the stream the choice bytes pick and checks the
// grammar's invariants along the way and on the finished stream.
func checkGuidedStream(t *testing.T, k, maxJoints int, choices []byte) {
	g := NewGrammar(maxJoints, k)
	s := g.Start()
	var tokens []int
	for i := 0; i < len(choices) && !s.Done(); i++ {
		allowed := s.Allowed()
		if allowed.Count() == 0 {
			t.Fatalf("dead end after %v: no token allowed before EOS", tokens)
		}
		tok := nthAllowed(&allowed, int(choices[i])%allowed.Count())
		if choices[i] == 0xFF && i+2 < len(choices) {
			tok = int(choices[i+1])<<8 | int(choices[i+2]) - 64
			i += 2
		}
		before := *s
		beforeTop := *s.parent()
		err := s.Next(tok)
		if allowed.Has(tok) != (err == nil) {
			t.Fatalf("token %d: allowed %v but Next returned %v", tok, allowed.Has(tok), err)
		}
		if err != nil {
			if !errors.Is(err, ErrNotAllowed) || s.phase != before.phase || s.joints != before.joints ||
				len(s.stack) != len(before.stack) || *s.parent() != beforeTop {
				t.Fatalf("refused token %d changed the state or gave %v", tok, err)
			}
			continue
		}
		tokens = append(tokens, tok)
	}
	if len(tokens) > MaxStreamLen {
		t.Fatalf("the grammar accepted %d tokens, MaxStreamLen is %d", len(tokens), MaxStreamLen)
	}
	if !s.Done() {
		return
	}
	skel, codes, err := Split(tokens, g.K)
	if err != nil {
		t.Fatalf("a stream the grammar finished does not split: %v", err)
	}
	if len(codes) != s.jointCount() {
		t.Fatalf("split gives %d joints' codes, the stream has %d joints", len(codes), s.jointCount())
	}
	joined, err := Join(skel, codes)
	if err != nil || !slices.Equal(joined, tokens) {
		t.Fatalf("join(split(stream)) = %v, %v; want the stream back", joined, err)
	}
}

// runRawStream feeds the bytes as little-endian int16 token ids to the grammar and
// to Split; both may refuse them but must not panic.
func runRawStream(k int, data []byte) {
	tokens := make([]int, len(data)/2)
	for i := range tokens {
		tokens[i] = int(int16(uint16(data[2*i]) | uint16(data[2*i+1])<<8))
	}
	NewGrammar(0, k).Run(tokens)
	Split(tokens, k)
}

// nthAllowed returns the n-th allowed token of m (n < m.Count()) without
// allocating, so that the allocation bound measures the grammar.
func nthAllowed(m *Mask, n int) int {
	for w, word := range m {
		if c := bits.OnesCount64(word); n >= c {
			n -= c
			continue
		}
		for ; n > 0; n-- {
			word &= word - 1 // clear the lowest set bit
		}
		return w*64 + bits.TrailingZeros64(word)
	}
	return -1
}

// TestNthAllowed checks nthAllowed against Mask.Tokens on the start of a skeleton.
func TestNthAllowed(t *testing.T) {
	s := NewGrammar(0, 0).Start()
	s.Next(BOS)
	m := s.Allowed()
	for i, tok := range m.Tokens() {
		if got := nthAllowed(&m, i); got != tok {
			t.Fatalf("nthAllowed(%d) = %d, want %d", i, got, tok)
		}
	}
}
