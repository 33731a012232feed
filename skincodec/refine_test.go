package skincodec

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/tokens"
)

// TestRefineCodes checks code refinement on the tube with an untrained geodesic
// tokenizer: refined codes are valid, never score worse than the encoder's on the
// refinement objective, differ from them somewhere (a random decoder is far from
// its optimum), and zero rounds keep the encoder's codes.
func TestRefineCodes(t *testing.T) {
	tok, c := untrainedGeodesicTube(t)
	opt := tok.Options()
	opt.RefineRounds, opt.MinePasses = 0, 0 // mining changes the objective; see TestMineQueries
	plain, err := tok.EncodeAllWith(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.RefineRounds = 3
	refined, err := tok.EncodeAllWith(c.Clone(), opt)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prepare(c, tok.Seed, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := tok.replica()
	defer tok.release(m)
	lat := append([]float32(nil), m.meshLatents(p.mesh, 1)...)
	var qs []refineQueries
	var cands [][]int
	var owner []int
	for j := range plain {
		qs = append(qs, tok.newRefineQueries(p, j))
		cands = append(cands, plain[j], refined[j])
		owner = append(owner, j, j)
	}
	score, err := tok.scoreCodes(m, qs, lat, cands, owner, opt)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for j := range plain {
		before, after := score[2*j], score[2*j+1]
		t.Logf("joint %d: %v → %v, loss %.4f → %.4f", j, plain[j], refined[j], before, after)
		if after > before+1e-3*math.Abs(before) {
			t.Errorf("joint %d: refinement raised the loss from %.5f to %.5f", j, before, after)
		}
		for _, x := range refined[j] {
			if x < 0 || x >= tokens.SkinCodebookSize {
				t.Fatalf("joint %d: refined code %d out of range", j, x)
			}
		}
		if !slices.Equal(plain[j], refined[j]) {
			changed++
		}
	}
	if changed == 0 {
		t.Error("refinement changed no joint's codes")
	}
}

// TestGeodesicFeatures checks the geodesic features of the tube: each vertex's
// prior weights sum to 1, margins are clipped, the nearest bone has a non-positive
// margin, and the prior logit follows the weight.
func TestGeodesicFeatures(t *testing.T) {
	c := tube()
	p, err := prepare(c, 1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.qd != queryFeatures+geoFeatures {
		t.Fatalf("query features %d", p.qd)
	}
	nJ := p.nJ
	for v := range c.Mesh.Positions {
		var sum float64
		minD, arg := math.Inf(1), -1
		for j := 0; j < nJ; j++ {
			w, d := p.gW[v*nJ+j], p.gD[v*nJ+j]
			if w < 0 || w > 1 || math.IsNaN(float64(w)) {
				t.Fatalf("vertex %d joint %d: weight %v", v, j, w)
			}
			if d < -geoMarginClip || d > geoMarginClip || math.IsNaN(float64(d)) {
				t.Fatalf("vertex %d joint %d: margin %v", v, j, d)
			}
			sum += float64(w)
			if float64(d) < minD {
				minD, arg = float64(d), j
			}
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Fatalf("vertex %d: prior weights sum to %v", v, sum)
		}
		if minD > 0 {
			t.Fatalf("vertex %d: smallest margin %v (joint %d) should be ≤ 0", v, minD, arg)
		}
	}
	cfg := CVAEConfig{Geodesic: 1}
	row := make([]float32, queryFeatures+geoFeatures)
	lo, mid, hi := func() float32 { row[queryFeatures] = 0; return cfg.priorLogit(row) }(),
		func() float32 { row[queryFeatures] = 0.5; return cfg.priorLogit(row) }(),
		func() float32 { row[queryFeatures] = 1; return cfg.priorLogit(row) }()
	if !(lo < mid && mid < hi) || math.Abs(float64(mid)) > 1e-6 || math.IsInf(float64(hi), 0) {
		t.Fatalf("prior logits %v %v %v", lo, mid, hi)
	}
}

// TestMeanProbabilities checks that the mean decode of several code sets is the
// mean of their single decodes, that one set is Probabilities itself, and that bad
// code sets are refused.
func TestMeanProbabilities(t *testing.T) {
	tok, c, a, b := twoCodeSets(t)
	pa, err := tok.Probabilities(c, c.Skeleton, a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := tok.Probabilities(c, c.Skeleton, b)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sets [][][]int
		want func(i int) float32
	}{
		{"one set", [][][]int{a}, func(i int) float32 { return pa[i] }},
		{"two sets", [][][]int{a, b}, func(i int) float32 { return (pa[i] + pb[i]) / 2 }},
		{"weighted by repetition", [][][]int{b, a, b}, func(i int) float32 { return (pa[i] + 2*pb[i]) / 3 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tok.MeanProbabilities(c, c.Skeleton, tc.sets)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(pa) {
				t.Fatalf("%d values, want %d", len(got), len(pa))
			}
			for i, g := range got {
				if math.Abs(float64(g-tc.want(i))) > 1e-5 {
					t.Fatalf("value %d: %v, want %v", i, g, tc.want(i))
				}
			}
		})
	}
	bad := [][][][]int{nil, {a[:1]}, {a, {{1, 2}}}}
	for i, sets := range bad {
		if _, err := tok.MeanProbabilities(c, c.Skeleton, sets); err == nil {
			t.Errorf("bad code sets %d: no error", i)
		}
	}
	if s, err := tok.DecodeMean(c, c.Skeleton, [][][]int{a, b}); err != nil || s.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6) != nil {
		t.Errorf("DecodeMean: %v", err)
	}
}

// TestMineQueries checks mining on the tube with an untrained geodesic tokenizer:
// each bone gains exactly the vertices whose decoded weight for it is off by more
// than mineMargin, with their true weights as targets and one more loss weight, and
// EncodeAll with mining passes returns valid codes.
func TestMineQueries(t *testing.T) {
	tok, c := untrainedGeodesicTube(t)
	opt := tok.Options()
	opt.RefineRounds, opt.MinePasses = 2, 0
	codes, err := tok.EncodeAllWith(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	skin, err := tok.Decode(c, c.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prepare(c, tok.Seed, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	qs := make([]refineQueries, len(codes))
	for j, cs := range codes {
		idx = append(idx, cs...)
		qs[j] = tok.newRefineQueries(p, j)
	}
	before := make([]int, len(qs))
	for j := range qs {
		before[j] = len(qs[j].target)
	}
	m := tok.replica()
	defer tok.release(m)
	added, err := tok.mineQueries(m, p, append([]float32(nil), m.meshLatents(p.mesh, 1)...), qs, idx, 0, make([]bool, len(qs)), opt)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for j := range qs {
		var want []float32
		for v, infl := range skin.Weights {
			truth := weightOf(c.Skin.Weights[v], j)
			if d := weightOf(infl, j) - truth; d > mineMargin || d < -mineMargin {
				want = append(want, truth)
			}
		}
		want = want[:min(len(want), mineMax)]
		got := qs[j].target[before[j]:]
		if len(got) != len(want) {
			t.Fatalf("joint %d: mined %d vertices, want %d", j, len(got), len(want))
		}
		if len(want) < mineMax && !slices.Equal(got, want) {
			t.Errorf("joint %d: mined targets %v, want %v", j, got, want)
		}
		for i, w := range qs[j].lossW[before[j]:] {
			if wantW := 2 + b2f(got[i] > 0); w != wantW {
				t.Fatalf("joint %d: mined loss weight %v, want %v", j, w, wantW)
			}
		}
		if len(qs[j].feat) != len(qs[j].target)*p.qd || qs[j].h != nil {
			t.Fatalf("joint %d: %d features for %d queries (prefix cached: %v)", j, len(qs[j].feat), len(qs[j].target), qs[j].h != nil)
		}
		total += len(got)
	}
	if added != total || added == 0 {
		t.Fatalf("mineQueries reported %d, the queries grew by %d (an untrained decoder must get something wrong)", added, total)
	}
	opt.MinePasses = 2
	mined, err := tok.EncodeAllWith(c.Clone(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for j, cs := range mined {
		for _, x := range cs {
			if x < 0 || x >= tokens.SkinCodebookSize {
				t.Fatalf("joint %d: mined code %d out of range", j, x)
			}
		}
	}
}

// untrainedGeodesicTube returns an untrained geodesic-prior tokenizer (seed 11) and
// the tube.
func untrainedGeodesicTube(t *testing.T) (*SkinTokenizer, *character.Character) {
	t.Helper()
	cfg := DefaultCVAEConfig()
	cfg.Prior, cfg.Geodesic = 0, 1
	tok, err := NewSkinTokenizer(cfg, 11)
	if err != nil {
		t.Fatal(err)
	}
	return tok, tube()
}

// TestMeanCodes checks Options.MeanCodesFrom: on a mesh of at least that many
// vertices DecodeWith decodes the mean of the sets' code vectors once, so that
// two copies of one set give that set's skin bit for bit and two different sets
// give another skin than the mean of their decoded fields; below it, or at 0, the
// fields are averaged; MeanProbabilities always averages the fields.
func TestMeanCodes(t *testing.T) {
	tok, c, a, b := twoCodeSets(t)
	decode := func(from int, sets ...[][]int) *character.Skin {
		o := tok.Options()
		o.MeanCodesFrom = from
		k, err := tok.DecodeWith(context.Background(), c, c.Skeleton, sets, o)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	n := len(c.Mesh.Positions)
	one := decode(0, a)
	if !reflect.DeepEqual(decode(n, a, a), one) {
		t.Error("the mean code of two copies of a set does not decode as the set")
	}
	fields, codes := decode(0, a, b), decode(n, a, b)
	if reflect.DeepEqual(fields, codes) {
		t.Error("the mean code of two sets decodes as the mean of their fields")
	}
	if !reflect.DeepEqual(decode(n+1, a, b), fields) {
		t.Error("a mesh below MeanCodesFrom does not average the fields")
	}
	if tok.Options().MeanCodesFrom != defaultMeanCodesFrom {
		t.Errorf("Options().MeanCodesFrom = %d, want %d", tok.Options().MeanCodesFrom, defaultMeanCodesFrom)
	}
}

// twoCodeSets returns an untrained tokenizer, the tube, the tube's encoded codes
// (a) and a made-up code set of the same shape (b), for the mean-decode tests.
func twoCodeSets(t *testing.T) (tok *SkinTokenizer, c *character.Character, a, b [][]int) {
	t.Helper()
	tok, err := NewSkinTokenizer(DefaultCVAEConfig(), 5)
	if err != nil {
		t.Fatal(err)
	}
	opt := tok.Options()
	opt.RefineRounds = 0
	c = tube()
	if a, err = tok.EncodeAllWith(c, opt); err != nil {
		t.Fatal(err)
	}
	b = make([][]int, len(a))
	for j := range b {
		b[j] = make([]int, tok.K())
		for k := range b[j] {
			b[j][k] = (j*37 + k*101 + 999*(k%2)) % tokens.SkinCodebookSize
		}
	}
	return tok, c, a, b
}
