package tokens

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// This file is the token-stream contract shared by the tokenizers, the model, the
// sampler and the RL trainer. Changing a constant here changes the vocabulary and
// invalidates every checkpoint trained on it.
//
// Sequence layout:
//
//	BOS · skeleton · SEP · K skin tokens per joint, in skeleton order · EOS
//
// Skeleton: joints in depth-first pre-order from the root. Each joint is 3 coordinate
// tokens (x, y, z bins of its position in the normalized cube). A joint is the child of
// the joint on top of the stack: after a joint is written it is pushed, and each POP
// token pops one joint, so after k POPs the next joint hangs k levels higher. Popping
// the last joint off the stack makes the next joint a new root (multi-root skeletons).
// Canonical form, enforced by the grammar: siblings (and roots) appear in
// non-decreasing lexicographic order of their (x, y, z) bins; SEP never follows a POP
// (no trailing pops); POP is only written when a joint follows it.

// Special tokens.
const (
	PAD = 0 // padding; never sampled
	BOS = 1 // start of stream
	SEP = 2 // end of skeleton, start of skin tokens
	EOS = 3 // end of stream
	POP = 4 // pop one joint off the hierarchy stack
)

// Vocabulary layout.
const (
	// NumSpecial is the count of special tokens (PAD, BOS, SEP, EOS, POP).
	NumSpecial = 5
	// CoordBins is the number of bins per axis across the normalized cube [-1, 1].
	CoordBins = 256
	// CoordBase is the id of coordinate bin 0; bin b is CoordBase+b.
	CoordBase = NumSpecial
	// SkinBase is the id of skin code 0; code c is SkinBase+c.
	SkinBase = CoordBase + CoordBins
	// SkinCodebookSize is the number of FSQ codes: the product of SkinLevels.
	SkinCodebookSize = 8 * 5 * 5 * 5
	// VocabSize is the number of token ids.
	VocabSize = SkinBase + SkinCodebookSize
)

// Skin-token shape. K, the number of skin codes written for every joint, belongs to
// the skin tokenizer that wrote them (SkinTokenizer.K, stored in its checkpoint): a
// stream is read with the grammar of its tokenizer's K.
const (
	// DefaultK is the K of new skin tokenizers (DefaultCVAEConfig) and of
	// the shipped one.
	DefaultK = 12
	// MaxK bounds K.
	MaxK = 16
	// MaxJoints bounds the joint count of a stream.
	MaxJoints = 128
	// MaxStreamLen bounds the length of any stream a grammar accepts: BOS, at most
	// 3 coordinates and 1 POP per joint, SEP, at most MaxK codes
	// per joint, EOS.
	MaxStreamLen = 3 + MaxJoints*(3+1+MaxK)
)

// SkinLevels are the FSQ levels of one skin code: each of the 4 latent channels is
// rounded to this many values, and a code is their mixed-radix index (channel 0 is
// the least significant digit). 8·5·5·5 = 1000 codes (≈10 bits) per token.
var SkinLevels = [4]int{8, 5, 5, 5}

// SkinBitsPerJoint is the information carried by one joint's k skin tokens, in bits.
func SkinBitsPerJoint(k int) float64 {
	return float64(k) * math.Log2(float64(SkinCodebookSize))
}

// IsCoord reports whether tok is a coordinate bin token.
func IsCoord(tok int) bool { return tok >= CoordBase && tok < CoordBase+CoordBins }

// isSkin reports whether tok is a skin code token.
func isSkin(tok int) bool { return tok >= SkinBase && tok < SkinBase+SkinCodebookSize }

// CoordToken returns the token of coordinate bin b (0..CoordBins-1).
func CoordToken(b int) int { return CoordBase + b }

// SkinToken returns the token of skin code c (0..SkinCodebookSize-1).
func SkinToken(c int) int { return SkinBase + c }

// Bin returns the bin of a cube coordinate in [-1, 1]; values outside are clamped.
func Bin(x float64) int {
	b := int((x + 1) / 2 * CoordBins)
	if x != x || b < 0 { // NaN or below
		return 0
	}
	if b >= CoordBins {
		return CoordBins - 1
	}
	return b
}

// BinCenter returns the cube coordinate at the center of bin b.
func BinCenter(b int) float64 { return -1 + (float64(b)+0.5)*2/CoordBins }

// TokenString returns a readable form of one token: "<BOS>", "POP", "c128" for a
// coordinate bin, "s0421" for a skin code, "?17" for an id outside the vocabulary.
func TokenString(tok int) string {
	switch {
	case tok == PAD:
		return "<PAD>"
	case tok == BOS:
		return "<BOS>"
	case tok == SEP:
		return "<SEP>"
	case tok == EOS:
		return "<EOS>"
	case tok == POP:
		return "POP"
	case IsCoord(tok):
		return "c" + strconv.Itoa(tok-CoordBase)
	case isSkin(tok):
		return fmt.Sprintf("s%04d", tok-SkinBase)
	}
	return "?" + strconv.Itoa(tok)
}

// Mask is a bitset over the vocabulary: bit t set means token t is allowed.
type Mask [(VocabSize + 63) / 64]uint64

// Has reports whether tok is allowed.
func (m *Mask) Has(tok int) bool {
	return tok >= 0 && tok < VocabSize && m[tok>>6]&(1<<(uint(tok)&63)) != 0
}

// Count returns the number of allowed tokens.
func (m *Mask) Count() int {
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	return n
}

// Tokens returns the allowed tokens in increasing order.
func (m *Mask) Tokens() []int {
	var out []int
	for i, w := range m {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &= w - 1
		}
	}
	return out
}

// Apply sets every disallowed entry of logits (length VocabSize) to negInf, in
// O(VocabSize); pass float32(math.Inf(-1)) or a large negative number.
func (m *Mask) Apply(logits []float32, negInf float32) {
	for t := range logits {
		if m[t>>6]&(1<<(uint(t)&63)) == 0 {
			logits[t] = negInf
		}
	}
}

func (m *Mask) set(tok int) { m[tok>>6] |= 1 << (uint(tok) & 63) }
func (m *Mask) setRange(lo, hi int) { // [lo, hi)
	for t := lo; t < hi; t++ {
		m.set(t)
	}
}

// Grammar is the token-stream grammar. Every stream it accepts (from BOS through
// EOS) decodes to a valid rig: parents precede children, coordinates are in range,
// at most MaxJoints joints, exactly K skin tokens per joint, and
// the skeleton is in canonical order (so re-encoding the decoded rig gives the same
// tokens).
type Grammar struct {
	// MaxJoints bounds the joint count (1..MaxJoints).
	MaxJoints int
	// K is the number of skin tokens per joint (1..MaxK).
	K int
}

// NewGrammar returns the grammar with a joint bound maxJoints (0 or anything above
// MaxJoints means MaxJoints) and k skin tokens per joint (the K of the skin
// tokenizer the stream is for; 0 means DefaultK, anything above
// MaxK means MaxK).
func NewGrammar(maxJoints, k int) *Grammar {
	if maxJoints <= 0 || maxJoints > MaxJoints {
		maxJoints = MaxJoints
	}
	if k <= 0 {
		k = DefaultK
	}
	return &Grammar{MaxJoints: maxJoints, K: min(k, MaxK)}
}

// Phase is where a State is in the stream.
type Phase int

// Phases of a stream.
const (
	PhaseStart    Phase = iota // nothing read; BOS expected
	PhaseSkeleton              // inside the skeleton
	PhaseSkin                  // after SEP, reading skin codes
	PhaseDone                  // EOS read
)

// frame is one joint on the hierarchy stack (or the virtual root level).
type frame struct {
	hasChild  bool
	lastChild [3]int // bins of the most recent child, for the canonical sibling order
}

// State is the grammar's state after a prefix. The zero State is not usable: get one
// from Grammar.Start. States are values; copy one to branch (Clone copies the stack).
type State struct {
	g      *Grammar
	phase  Phase
	joints int // joints started so far (including one being written)
	coord  int // coordinates of the current joint written so far (0..2)
	cur    [3]int
	// tight: the current joint's coordinates so far equal its previous sibling's, so
	// the next coordinate must not be smaller.
	tight   bool
	lastPop bool
	// stack[0] is the virtual level above the roots; stack[i>0] are joints.
	stack []frame
	skin  int // skin tokens read
}

// Start returns the state before any token.
func (g *Grammar) Start() *State {
	return &State{g: g, phase: PhaseStart, stack: make([]frame, 1, 16)}
}

// Clone returns an independent copy of s.
func (s *State) Clone() *State {
	c := *s
	c.stack = append(make([]frame, 0, cap(s.stack)), s.stack...)
	return &c
}

// Phase returns where the state is in the stream.
func (s *State) Phase() Phase { return s.phase }

// jointCount returns the number of joints read (a joint counts from its first coordinate).
func (s *State) jointCount() int { return s.joints }

// Done reports whether EOS has been read.
func (s *State) Done() bool { return s.phase == PhaseDone }

// parent returns the frame new joints hang under.
func (s *State) parent() *frame { return &s.stack[len(s.stack)-1] }

// Allowed returns the tokens that may follow the prefix read so far. After EOS the
// mask is empty.
func (s *State) Allowed() Mask {
	var m Mask
	switch s.phase {
	case PhaseStart:
		m.set(BOS)
	case PhaseSkeleton:
		if s.coord > 0 {
			lo := 0
			if s.tight {
				lo = s.parent().lastChild[s.coord]
			}
			m.setRange(CoordBase+lo, CoordBase+CoordBins)
			break
		}
		if s.joints < s.g.MaxJoints {
			lo := 0
			if p := s.parent(); p.hasChild {
				lo = p.lastChild[0]
			}
			m.setRange(CoordBase+lo, CoordBase+CoordBins)
			if len(s.stack) > 1 {
				m.set(POP)
			}
		}
		if s.joints > 0 && !s.lastPop {
			m.set(SEP)
		}
	case PhaseSkin:
		if s.skin < s.joints*s.g.K {
			m.setRange(SkinBase, SkinBase+SkinCodebookSize)
		} else {
			m.set(EOS)
		}
	}
	return m
}

// ErrNotAllowed is wrapped by Next when a token breaks the grammar.
var ErrNotAllowed = errors.New("token not allowed here")

// Next reads one token, or returns an error wrapping ErrNotAllowed and leaves the
// state unchanged.
func (s *State) Next(tok int) error {
	if m := s.Allowed(); !m.Has(tok) {
		return fmt.Errorf("tokenizer: %s after %d joints (phase %d): %w", TokenString(tok), s.joints, s.phase, ErrNotAllowed)
	}
	switch s.phase {
	case PhaseStart:
		s.phase = PhaseSkeleton
	case PhaseSkeleton:
		switch {
		case tok == SEP:
			s.phase = PhaseSkin
		case tok == POP:
			s.stack = s.stack[:len(s.stack)-1]
			s.lastPop = true
		default: // coordinate
			b := tok - CoordBase
			p := s.parent()
			if s.coord == 0 {
				s.joints++
				s.tight = p.hasChild && b == p.lastChild[0]
			} else if s.tight {
				s.tight = b == p.lastChild[s.coord]
			}
			s.cur[s.coord] = b
			s.coord++
			s.lastPop = false
			if s.coord == 3 {
				p.hasChild = true
				p.lastChild = s.cur
				s.stack = append(s.stack, frame{})
				s.coord = 0
				s.tight = false
			}
		}
	case PhaseSkin:
		if tok == EOS {
			s.phase = PhaseDone
		} else {
			s.skin++
		}
	}
	return nil
}

// Run feeds tokens to a fresh state and returns it, or the first grammar error with
// its position.
func (g *Grammar) Run(tokens []int) (*State, error) {
	s := g.Start()
	for i, t := range tokens {
		if err := s.Next(t); err != nil {
			return s, fmt.Errorf("token %d: %w", i, err)
		}
	}
	return s, nil
}

// Split cuts a complete stream of k skin tokens per joint into its skeleton part
// (BOS through SEP, what EncodeSkeleton returns) and the skin codes per joint (code
// values, not token ids), after checking it against the grammar of k.
func Split(tokens []int, k int) (skeleton []int, codes [][]int, err error) {
	g := NewGrammar(MaxJoints, k)
	s, err := g.Run(tokens)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenizer: split: %w", err)
	}
	if !s.Done() {
		return nil, nil, errors.New("tokenizer: split: stream ends before EOS")
	}
	sep := 0
	for tokens[sep] != SEP {
		sep++
	}
	skeleton = tokens[:sep+1]
	skin := tokens[sep+1 : len(tokens)-1]
	k = g.K
	codes = make([][]int, s.joints)
	for j := range codes {
		codes[j] = make([]int, k)
		for i := range codes[j] {
			codes[j][i] = skin[j*k+i] - SkinBase
		}
	}
	return skeleton, codes, nil
}

// Join appends each joint's skin codes (code values 0..SkinCodebookSize-1) and EOS
// to a skeleton part (BOS through SEP); the skeleton tokens are kept as they are.
// Every joint must have the same number of codes, K (1..MaxK).
func Join(skeleton []int, codes [][]int) ([]int, error) {
	k := 0
	if len(codes) > 0 {
		k = len(codes[0])
	}
	if len(codes) > 0 && (k < 1 || k > MaxK) {
		return nil, fmt.Errorf("tokenizer: %d skin codes per joint, want 1..%d", k, MaxK)
	}
	out := make([]int, 0, len(skeleton)+len(codes)*k+1)
	out = append(out, skeleton...)
	for j, cs := range codes {
		if len(cs) != k {
			return nil, fmt.Errorf("tokenizer: joint %d has %d skin codes, joint 0 has %d", j, len(cs), k)
		}
		for _, c := range cs {
			if c < 0 || c >= SkinCodebookSize {
				return nil, fmt.Errorf("tokenizer: joint %d skin code %d out of range", j, c)
			}
			out = append(out, SkinToken(c))
		}
	}
	return append(out, EOS), nil
}
