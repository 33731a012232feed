package tokens

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// randomSkeleton returns a world-space skeleton of n joints with random parents
// (parents precede children; a few extra roots) and positions inside the box
// center ± half, plus the normalization of that box.
func randomSkeleton(rng *rand.Rand, n int) (*character.Skeleton, character.Normalization) {
	center := vecmath.Vec3{rng.NormFloat64() * 10, rng.NormFloat64() * 10, rng.NormFloat64() * 10}
	half := 0.1 + rng.Float64()*50
	sk := &character.Skeleton{}
	for j := 0; j < n; j++ {
		p := -1
		if j > 0 && rng.Intn(20) != 0 {
			p = rng.Intn(j)
			if rng.Intn(3) == 0 { // deep chains
				p = j - 1
			}
		}
		var pos vecmath.Vec3
		for a := range pos {
			pos[a] = center[a] + (2*rng.Float64()-1)*half
		}
		if j > 0 && rng.Intn(10) == 0 { // duplicate positions exercise ties
			pos = sk.Position(rng.Intn(j))
		}
		sk.Names = append(sk.Names, fmt.Sprintf("bone%d", j))
		sk.Parents = append(sk.Parents, p)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(pos))
	}
	// The cube of the box: largest extent 2·half → scale 1/half.
	return sk, character.Normalization{Center: center, Scale: 1 / half}
}

var identityNorm = character.Normalization{Scale: 1}

func TestSkeletonRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.Intn(MaxJoints)
		if trial%3 == 0 {
			n = 1 + rng.Intn(8)
		}
		sk, norm := randomSkeleton(rng, n)
		tok, order, err := EncodeSkeleton(sk, norm)
		if err != nil {
			t.Fatalf("trial %d: encode: %v", trial, err)
		}
		dec, err := DecodeSkeleton(tok)
		if err != nil {
			t.Fatalf("trial %d: decode: %v", trial, err)
		}
		if err := dec.Validate(); err != nil {
			t.Fatalf("trial %d: decoded skeleton invalid: %v", trial, err)
		}
		if dec.NumJoints() != n || len(order) != n {
			t.Fatalf("trial %d: %d joints decoded, order %d, want %d", trial, dec.NumJoints(), len(order), n)
		}
		// encode∘decode∘encode = encode
		tok2, order2, err := EncodeSkeleton(dec, identityNorm)
		if err != nil {
			t.Fatalf("trial %d: re-encode: %v", trial, err)
		}
		if !slices.Equal(tok, tok2) {
			t.Fatalf("trial %d: re-encoded tokens differ:\n%v\n%v", trial, tok, tok2)
		}
		for i, j := range order2 {
			if i != j {
				t.Fatalf("trial %d: decoded skeleton is not in canonical order: %v", trial, order2)
			}
		}
		// Positions within half a bin, hierarchy exact.
		inv := order.inverse()
		halfBin := 1.0 / CoordBins
		for i, j := range order {
			want := norm.Point(sk.Position(j))
			got := dec.Position(i)
			for a := 0; a < 3; a++ {
				if d := math.Abs(got[a] - want[a]); d > halfBin+1e-9 {
					t.Fatalf("trial %d: joint %d axis %d off by %g (> half bin %g)", trial, j, a, d, halfBin)
				}
			}
			wantParent := -1
			if p := sk.Parents[j]; p >= 0 {
				wantParent = inv[p]
			}
			if dec.Parents[i] != wantParent {
				t.Fatalf("trial %d: joint %d parent %d, want %d", trial, i, dec.Parents[i], wantParent)
			}
		}
		// Back to world space within half a bin (scaled).
		world := SkeletonToWorld(dec, norm)
		for i, j := range order {
			if d := world.Position(i).Dist(sk.Position(j)); d > math.Sqrt(3)*halfBin/norm.Scale*(1+1e-9) {
				t.Fatalf("trial %d: world joint %d off by %g", trial, j, d)
			}
		}
	}
}

func TestPrefixPreservation(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 100; trial++ {
		sk, norm := randomSkeleton(rng, 1+rng.Intn(40))
		skel, _, err := EncodeSkeleton(sk, norm)
		if err != nil {
			t.Fatal(err)
		}
		want, err := DecodeSkeleton(skel)
		if err != nil {
			t.Fatal(err)
		}
		K := []int{1, 4, DefaultK, MaxK}[trial%4]
		codes := make([][]int, sk.NumJoints())
		for j := range codes {
			for k := 0; k < K; k++ {
				codes[j] = append(codes[j], rng.Intn(SkinCodebookSize))
			}
		}
		full, err := Join(skel, codes)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(full[:len(skel)], skel) {
			t.Fatalf("trial %d: skin tokens changed the skeleton prefix", trial)
		}
		gotSkel, gotCodes, err := Split(full, K)
		if err != nil {
			t.Fatalf("trial %d: split: %v", trial, err)
		}
		if !slices.Equal(gotSkel, skel) || !slices.EqualFunc(gotCodes, codes, slices.Equal[[]int]) {
			t.Fatalf("trial %d: split does not give back the parts", trial)
		}
		got, err := DecodeSkeleton(full)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Parents, want.Parents) || !slices.Equal(got.BindWorld, want.BindWorld) {
			t.Fatalf("trial %d: full stream decodes to a different skeleton", trial)
		}
	}
}

// walk samples a random stream from the grammar: SEP and POP with fixed odds when
// allowed, otherwise a uniform coordinate or skin code.
func walk(rng *rand.Rand, g *Grammar, pSep, pPop float64) []int {
	s := g.Start()
	var out []int
	for !s.Done() {
		m := s.Allowed()
		allowed := m.Tokens()
		if len(allowed) == 0 {
			panic(fmt.Sprintf("dead end after %v", out))
		}
		tok := allowed[rng.Intn(len(allowed))]
		switch {
		case m.Has(SEP) && rng.Float64() < pSep:
			tok = SEP
		case m.Has(POP) && rng.Float64() < pPop:
			tok = POP
		}
		if err := s.Next(tok); err != nil {
			panic(err)
		}
		out = append(out, tok)
	}
	return out
}

func TestGrammarWalksDecode(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 400; trial++ {
		maxJ := []int{1, 3, 8, 40, MaxJoints}[trial%5]
		K := []int{1, 4, DefaultK, MaxK}[trial%4]
		g := NewGrammar(maxJ, K)
		stream := walk(rng, g, []float64{0.02, 0.1, 0.3}[trial%3], []float64{0.1, 0.4, 0.7}[trial%3])
		if len(stream) > MaxStreamLen {
			t.Fatalf("trial %d: stream of %d tokens exceeds MaxStreamLen %d", trial, len(stream), MaxStreamLen)
		}
		skel, codes, err := Split(stream, K)
		if err != nil {
			t.Fatalf("trial %d: split: %v", trial, err)
		}
		sk, err := DecodeSkeleton(stream)
		if err != nil {
			t.Fatalf("trial %d: decode: %v", trial, err)
		}
		if err := sk.Validate(); err != nil {
			t.Fatalf("trial %d: invalid skeleton: %v", trial, err)
		}
		if n := sk.NumJoints(); n < 1 || n > maxJ || len(codes) != n {
			t.Fatalf("trial %d: %d joints, %d code lists, bound %d", trial, n, len(codes), maxJ)
		}
		for j, p := range sk.Positions() {
			for a := 0; a < 3; a++ {
				if p[a] < -1 || p[a] > 1 {
					t.Fatalf("trial %d: joint %d out of the cube: %v", trial, j, p)
				}
			}
		}
		// Accepted streams are canonical: re-encoding gives the same tokens.
		again, _, err := EncodeSkeleton(sk, identityNorm)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again, skel) {
			t.Fatalf("trial %d: accepted stream is not canonical:\n%v\n%v", trial, skel, again)
		}
	}
}

func TestGrammarRejects(t *testing.T) {
	c := CoordToken
	j := func(x, y, z int) []int { return []int{c(x), c(y), c(z)} }
	cat := func(parts ...[]int) []int { return slices.Concat(parts...) }
	skin := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = SkinToken(i)
		}
		return out
	}
	tests := []struct {
		name   string
		tokens []int
		bad    int // index of the first rejected token, -1 if all accepted
	}{
		{"valid one joint", cat([]int{BOS}, j(1, 2, 3), []int{SEP}, skin(4), []int{EOS}), -1},
		{"valid branch", cat([]int{BOS}, j(5, 5, 5), j(1, 1, 1), []int{POP}, j(9, 0, 0), []int{SEP}, skin(12), []int{EOS}), -1},
		{"no BOS", cat(j(1, 2, 3)), 0},
		{"empty skeleton", []int{BOS, SEP}, 1},
		{"partial joint", cat([]int{BOS, c(1), c(2), SEP}), 3},
		{"pop at start", []int{BOS, POP}, 1},
		{"trailing pop", cat([]int{BOS}, j(1, 1, 1), j(2, 2, 2), []int{POP, SEP}), 8},
		{"pop past the roots", cat([]int{BOS}, j(1, 1, 1), []int{POP, POP}), 5},
		{"siblings out of order", cat([]int{BOS}, j(5, 5, 5), j(3, 3, 3), []int{POP}, j(3, 2, 9)), 9},
		{"roots out of order", cat([]int{BOS}, j(5, 5, 5), []int{POP}, j(4, 9, 9)), 5},
		{"tie allowed", cat([]int{BOS}, j(5, 5, 5), []int{POP}, j(5, 5, 5), []int{SEP}), -1},
		{"too few skin tokens", cat([]int{BOS}, j(1, 1, 1), []int{SEP}, skin(3), []int{EOS}), 8},
		{"too many skin tokens", cat([]int{BOS}, j(1, 1, 1), []int{SEP}, skin(5)), 9},
		{"coordinate in skin", cat([]int{BOS}, j(1, 1, 1), []int{SEP, c(0)}), 5},
		{"skin in skeleton", []int{BOS, SkinToken(0)}, 1},
		{"after EOS", cat([]int{BOS}, j(1, 1, 1), []int{SEP}, skin(4), []int{EOS, PAD}), 10},
		{"out of vocabulary", []int{BOS, VocabSize}, 1},
		{"negative", []int{-1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewGrammar(MaxJoints, 4).Start()
			bad := -1
			for i, tok := range tt.tokens {
				if err := s.Next(tok); err != nil {
					if !errors.Is(err, ErrNotAllowed) {
						t.Fatalf("error %v does not wrap ErrNotAllowed", err)
					}
					bad = i
					break
				}
			}
			if bad != tt.bad {
				t.Fatalf("first rejected token %d, want %d", bad, tt.bad)
			}
		})
	}
}

func TestGrammarJointBound(t *testing.T) {
	g := NewGrammar(2, 0)
	s, err := g.Run(slices.Concat([]int{BOS}, []int{CoordToken(0), CoordToken(0), CoordToken(0)}, []int{CoordToken(1), CoordToken(1), CoordToken(1)}))
	if err != nil {
		t.Fatal(err)
	}
	m := s.Allowed()
	if got := m.Tokens(); !slices.Equal(got, []int{SEP}) {
		t.Fatalf("at the joint bound allowed %v, want only SEP", got)
	}
}

func TestMask(t *testing.T) {
	var m Mask
	m.set(3)
	m.setRange(SkinBase, VocabSize)
	if !m.Has(3) || m.Has(4) || !m.Has(VocabSize-1) || m.Has(VocabSize) || m.Has(-1) {
		t.Fatal("Has disagrees with set bits")
	}
	if m.Count() != 1+SkinCodebookSize || len(m.Tokens()) != m.Count() {
		t.Fatalf("Count %d, Tokens %d, want %d", m.Count(), len(m.Tokens()), 1+SkinCodebookSize)
	}
	logits := make([]float32, VocabSize)
	m.Apply(logits, -1e9)
	for tok, l := range logits {
		if (l == 0) != m.Has(tok) {
			t.Fatalf("Apply left token %d at %v", tok, l)
		}
	}
}

func TestBins(t *testing.T) {
	for b := 0; b < CoordBins; b++ {
		if got := Bin(BinCenter(b)); got != b {
			t.Fatalf("Bin(BinCenter(%d)) = %d", b, got)
		}
	}
	for _, tt := range []struct {
		x    float64
		want int
	}{{-1, 0}, {1, CoordBins - 1}, {-5, 0}, {5, CoordBins - 1}, {math.NaN(), 0}, {0, CoordBins / 2}} {
		if got := Bin(tt.x); got != tt.want {
			t.Errorf("Bin(%v) = %d, want %d", tt.x, got, tt.want)
		}
	}
}

func TestEncodeSkeletonErrors(t *testing.T) {
	big, norm := randomSkeleton(rand.New(rand.NewSource(4)), MaxJoints+1)
	cyc := &character.Skeleton{Names: []string{"a", "b"}, Parents: []int{1, 0}, BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Identity4()}}
	tests := []struct {
		name string
		sk   *character.Skeleton
	}{
		{"empty", &character.Skeleton{}},
		{"too many joints", big},
		{"cycle", cyc},
	}
	for _, tt := range tests {
		if _, _, err := EncodeSkeleton(tt.sk, norm); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func ExampleEncodeSkeleton() {
	// A root with two children, in a cube of half-size 1 around the origin.
	sk := &character.Skeleton{
		Names:   []string{"hips", "leg_r", "leg_l"},
		Parents: []int{-1, 0, 0},
		BindWorld: []vecmath.Mat4{
			vecmath.Translate4(vecmath.Vec3{0, 0, 0}),
			vecmath.Translate4(vecmath.Vec3{0.5, -0.5, 0}),
			vecmath.Translate4(vecmath.Vec3{-0.5, -0.5, 0}),
		},
	}
	tokens, order, _ := EncodeSkeleton(sk, character.Normalization{Scale: 1})
	words := make([]string, len(tokens))
	for i, t := range tokens {
		words[i] = TokenString(t)
	}
	fmt.Println(strings.Join(words, " "))
	fmt.Println(order.Names(sk.Names))
	// Output:
	// <BOS> c128 c128 c128 c64 c64 c128 POP c192 c64 c128 <SEP>
	// [hips leg_l leg_r]
}

func FuzzDecodeSkeleton(f *testing.F) {
	f.Add([]byte{BOS, 10, 10, 10, POP, 20, 20, 20, SEP})
	f.Add([]byte{BOS, SEP})
	f.Fuzz(func(t *testing.T, data []byte) {
		tokens := make([]int, len(data))
		for i, b := range data {
			tokens[i] = int(b)
		}
		sk, err := DecodeSkeleton(tokens)
		if err != nil {
			return
		}
		if err := sk.Validate(); err != nil {
			t.Fatalf("decoded an invalid skeleton from %v: %v", tokens, err)
		}
	})
}

func ExampleGrammar() {
	// A sampler asks the grammar which tokens may come next and masks the rest.
	g := NewGrammar(MaxJoints, 4) // the K of the skin tokenizer the stream is for
	s := g.Start()
	for _, tok := range []int{BOS, CoordToken(128), CoordToken(200), CoordToken(128)} {
		if err := s.Next(tok); err != nil {
			panic(err)
		}
	}
	m := s.Allowed()
	fmt.Println(m.Has(SEP), m.Has(POP), m.Has(CoordToken(0)), m.Has(SkinToken(0)))
	if err := s.Next(SEP); err != nil {
		panic(err)
	}
	m = s.Allowed()
	fmt.Println(m.Count() == SkinCodebookSize, s.Phase() == PhaseSkin)
	// Output:
	// true true true false
	// true true
}
