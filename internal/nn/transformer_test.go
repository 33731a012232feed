package nn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
)

func testModel[F Float](t *testing.T, cross bool) (*Transformer[F], Config) {
	t.Helper()
	cfg := Config{Vocab: 13, DModel: 16, Layers: 2, Heads: 4, MaxSeq: 80, CrossAttention: cross, LatentDim: 6}
	m, err := NewTransformer[F](cfg, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	return m, cfg
}

// TestCausality changes one token and checks that no earlier position's logits move
// while the changed position's do.
func TestCausality(t *testing.T) {
	m, cfg := testModel[float64](t, true)
	const B, T = 2, 70
	rng := rand.New(rand.NewPCG(1, 2))
	tokens := make([]int, B*T)
	for i := range tokens {
		tokens[i] = rng.IntN(cfg.Vocab)
	}
	lat := randTensor(rng, B, 3, cfg.LatentDim)
	base, _ := m.Forward(tokens, B, T, lat)
	ref := append([]float64(nil), engine.Data[float64](base)...)
	for _, changed := range []int{0, 33, 64, T - 1} {
		mod := append([]int(nil), tokens...)
		mod[T+changed] = (mod[T+changed] + 1) % cfg.Vocab // sequence 1 only
		out, _ := m.Forward(mod, B, T, lat)
		got := engine.Data[float64](out)
		V := cfg.Vocab
		for p := 0; p < T; p++ {
			row := (T + p) * V
			d := maxAbsDiff(got[row:row+V], ref[row:row+V])
			if p < changed && d != 0 {
				t.Fatalf("changing position %d moved logits at earlier position %d by %g", changed, p, d)
			}
			if p == changed && d == 0 {
				t.Fatalf("changing position %d did not change its own logits", changed)
			}
		}
		if d := maxAbsDiff(got[:T*V], ref[:T*V]); d != 0 {
			t.Fatalf("changing sequence 1 moved sequence 0 by %g", d)
		}
	}
}

// TestDecoderMatchesForward feeds a sequence one token at a time through the KV
// cache and compares each step's logits with the full forward pass.
func TestDecoderMatchesForward(t *testing.T) {
	for _, cross := range []bool{false, true} {
		m, cfg := testModel[float64](t, cross)
		const B, T = 3, 70
		rng := rand.New(rand.NewPCG(2, 3))
		tokens := make([]int, B*T)
		for i := range tokens {
			tokens[i] = rng.IntN(cfg.Vocab)
		}
		var lat = randTensor(rng, B, 4, cfg.LatentDim)
		if !cross {
			lat = nil
		}
		full, err := m.Forward(tokens, B, T, lat)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.Data[float64](full)
		dec, err := m.NewDecoder(B, lat)
		if err != nil {
			t.Fatal(err)
		}
		V := cfg.Vocab
		for p := 0; p < T; p++ {
			step := column(tokens, B, T, p)
			logits, err := dec.Step(step)
			if err != nil {
				t.Fatal(err)
			}
			got := engine.Data[float64](logits)
			for b := 0; b < B; b++ {
				if d := maxAbsDiff(got[b*V:(b+1)*V], want[(b*T+p)*V:(b*T+p+1)*V]); d > 1e-10 {
					t.Fatalf("cross=%v position %d sequence %d: decoder differs from forward by %g", cross, p, b, d)
				}
			}
		}
	}
}

// TestDecoderFork decodes a shared prefix once, forks it into three sequences with
// different continuations, and compares every forked step with the full forward
// pass of the whole sequence; the original decoder must be unaffected.
func TestDecoderFork(t *testing.T) {
	for _, cross := range []bool{false, true} {
		m, cfg := testModel[float64](t, cross)
		const n, prefix, T = 3, 20, 45
		rng := rand.New(rand.NewPCG(4, 9))
		tokens := sharedPrefixTokens(rng, n, prefix, T, cfg.Vocab)
		one := randTensor(rng, 1, 4, cfg.LatentDim)
		var lat, lat1 = randTensor(rng, n, 4, cfg.LatentDim), one
		copy(engine.Data[float64](lat)[:], repeat(engine.Data[float64](one), n))
		if !cross {
			lat, lat1 = nil, nil
		}
		full, err := m.Forward(tokens, n, T, lat)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.Data[float64](full)
		dec, err := m.NewDecoder(1, lat1)
		if err != nil {
			t.Fatal(err)
		}
		for p := 0; p < prefix; p++ {
			if _, err := dec.Step([]int{tokens[p]}); err != nil {
				t.Fatal(err)
			}
		}
		fork, err := dec.Fork(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fork.Fork(2); err == nil {
			t.Fatal("forking a batch of 3 did not fail")
		}
		V := cfg.Vocab
		for p := prefix; p < T; p++ {
			step := column(tokens, n, T, p)
			logits, err := fork.Step(step)
			if err != nil {
				t.Fatal(err)
			}
			got := engine.Data[float64](logits)
			for b := 0; b < n; b++ {
				if d := maxAbsDiff(got[b*V:(b+1)*V], want[(b*T+p)*V:(b*T+p+1)*V]); d > 1e-10 {
					t.Fatalf("cross=%v position %d sequence %d: forked decoder differs from forward by %g", cross, p, b, d)
				}
			}
			// The parent goes on with sequence 0's tokens, untouched by the fork.
			l0, err := dec.Step([]int{tokens[p]})
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(engine.Data[float64](l0), want[p*V:(p+1)*V]); d > 1e-10 {
				t.Fatalf("cross=%v position %d: parent decoder differs from forward by %g after the fork", cross, p, d)
			}
		}
	}
}

// TestDecoderForkOfFork: a fork of one sequence shares its prompt with its
// parent; forking it again must hand on both the shared prompt and the positions
// it decoded itself.
func TestDecoderForkOfFork(t *testing.T) {
	m, cfg := testModel[float64](t, true)
	const n, first, second, T = 3, 7, 19, 30
	rng := rand.New(rand.NewPCG(5, 2))
	tokens := sharedPrefixTokens(rng, n, second, T, cfg.Vocab)
	one := randTensor(rng, 1, 4, cfg.LatentDim)
	lat := randTensor(rng, n, 4, cfg.LatentDim)
	copy(engine.Data[float64](lat), repeat(engine.Data[float64](one), n))
	full, err := m.Forward(tokens, n, T, lat)
	if err != nil {
		t.Fatal(err)
	}
	want := engine.Data[float64](full)
	dec, err := m.NewDecoder(1, one)
	if err != nil {
		t.Fatal(err)
	}
	step := func(d *Decoder[float64], toks []int) []float64 {
		l, err := d.Step(toks)
		if err != nil {
			t.Fatal(err)
		}
		return engine.Data[float64](l)
	}
	for p := 0; p < first; p++ {
		step(dec, []int{tokens[p]})
	}
	mid, err := dec.Fork(1)
	if err != nil {
		t.Fatal(err)
	}
	for p := first; p < second; p++ {
		step(mid, []int{tokens[p]})
	}
	fork, err := mid.Fork(n)
	if err != nil {
		t.Fatal(err)
	}
	V := cfg.Vocab
	for p := second; p < T; p++ {
		toks := column(tokens, n, T, p)
		got := step(fork, toks)
		for b := 0; b < n; b++ {
			if d := maxAbsDiff(got[b*V:(b+1)*V], want[(b*T+p)*V:(b*T+p+1)*V]); d > 1e-10 {
				t.Fatalf("position %d sequence %d: fork of a fork differs from forward by %g", p, b, d)
			}
		}
	}
}

// sharedPrefixTokens returns n random sequences of T tokens (n·T, row-major)
// that agree on their first shared positions and differ after them.
func sharedPrefixTokens(rng *rand.Rand, n, shared, T, vocab int) []int {
	tokens := make([]int, n*T)
	for p := 0; p < T; p++ {
		tok := rng.IntN(vocab)
		for b := 0; b < n; b++ {
			if p >= shared {
				tok = rng.IntN(vocab)
			}
			tokens[b*T+p] = tok
		}
	}
	return tokens
}

func repeat(x []float64, n int) []float64 {
	var out []float64
	for range n {
		out = append(out, x...)
	}
	return out
}

func TestTransformerRejectsBadInput(t *testing.T) {
	m, cfg := testModel[float32](t, true)
	lat := engine.New[float32](1, 2, cfg.LatentDim)
	for _, tc := range []struct {
		name   string
		tokens []int
		B, T   int
		lat    bool
		want   string
	}{
		{"token out of range", []int{1, 99}, 1, 2, true, "outside"},
		{"too long", make([]int, 81), 1, 81, true, "MaxSeq"},
		{"count mismatch", []int{1, 2, 3}, 1, 2, true, "tokens for batch"},
		{"missing latents", []int{1, 2}, 1, 2, false, "no latents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := lat
			if !tc.lat {
				l = nil
			}
			_, err := m.Forward(tc.tokens, tc.B, tc.T, l)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestTinyLMLearnsReversal trains a small model to reverse a sequence of digits and
// decodes held-out sequences greedily through the KV cache.
func TestTinyLMLearnsReversal(t *testing.T) {
	const k, digits, sep = 5, 8, 8 // tokens 0..7 digits, 8 separator
	const T = 2 * k                // input: k digits, sep, first k-1 reversed digits
	cfg := Config{Vocab: digits + 1, DModel: 32, Layers: 2, Heads: 4, MaxSeq: T}
	rng := rand.New(rand.NewPCG(11, 12))
	m, err := NewTransformer[float32](cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	sample := func(rng *rand.Rand) []int {
		s := make([]int, 2*k+1)
		for i := 0; i < k; i++ {
			s[i] = rng.IntN(digits)
			s[2*k-i] = s[i]
		}
		s[k] = sep
		return s
	}
	const B, steps = 32, 400
	opt := NewAdamW[float32](3e-3)
	opt.Warmup, opt.TotalSteps, opt.MinLR, opt.WeightDecay = 20, steps, 3e-4, 0
	ce := NewSoftmaxCrossEntropy[float32]()
	tokens, targets, mask := make([]int, B*T), make([]int, B*T), make([]float32, B*T)
	var loss float64
	for step := 0; step < steps; step++ {
		for b := 0; b < B; b++ {
			s := sample(rng)
			copy(tokens[b*T:], s[:T])
			copy(targets[b*T:], s[1:])
			for p := 0; p < T; p++ {
				mask[b*T+p] = 0
				if p >= k { // learn only the reversed half
					mask[b*T+p] = 1
				}
			}
		}
		logits, err := m.Forward(tokens, B, T, nil)
		if err != nil {
			t.Fatal(err)
		}
		if loss, err = ce.Forward(logits, targets, mask); err != nil {
			t.Fatal(err)
		}
		ZeroGrad[float32](m)
		if _, err := m.Backward(ce.Backward()); err != nil {
			t.Fatal(err)
		}
		ClipGradNorm(m.Params(), 1)
		opt.Step(m.Params())
	}
	if loss > 0.05 {
		t.Fatalf("final training loss %.4f, want < 0.05", loss)
	}
	// Greedy decoding of fresh sequences.
	test := rand.New(rand.NewPCG(99, 99))
	correct := 0
	const trials = 50
	for n := 0; n < trials; n++ {
		s := sample(test)
		dec, _ := m.NewDecoder(1, nil)
		var logits []float32
		for p := 0; p <= k; p++ {
			l, err := dec.Step([]int{s[p]})
			if err != nil {
				t.Fatal(err)
			}
			logits = engine.Data[float32](l)
		}
		ok := true
		for p := k + 1; p <= 2*k; p++ {
			next := argmax(logits)
			if next != s[p] {
				ok = false
				break
			}
			if p < 2*k {
				l, _ := dec.Step([]int{next})
				logits = engine.Data[float32](l)
			}
		}
		if ok {
			correct++
		}
	}
	t.Logf("final loss %.4f, %d/%d held-out sequences reversed exactly", loss, correct, trials)
	if correct < trials*9/10 {
		t.Fatalf("only %d/%d held-out sequences reversed", correct, trials)
	}
}

func argmax[F Float](x []F) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func TestCheckpointRoundTrip(t *testing.T) {
	m, cfg := testModel[float32](t, true)
	var buf bytes.Buffer
	if err := SaveCheckpoint(&buf, m.Params(), cfg); err != nil {
		t.Fatal(err)
	}
	// Load into a float64 model with other weights: values and config come back.
	m2, err := NewTransformer[float64](cfg, rand.New(rand.NewPCG(77, 77)))
	if err != nil {
		t.Fatal(err)
	}
	cj, err := LoadCheckpoint(bytes.NewReader(buf.Bytes()), m2.Params())
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := json.Unmarshal(cj, &got); err != nil || got != cfg {
		t.Fatalf("config %+v (%v), want %+v", got, err, cfg)
	}
	for i, p := range m.Params() {
		q := m2.Params()[i]
		for j := range p.w {
			if float64(p.w[j]) != q.w[j] {
				t.Fatalf("%s[%d]: %v after load, want %v", p.Name, j, q.w[j], p.w[j])
			}
		}
	}
}

func TestCheckpointRejects(t *testing.T) {
	m, cfg := testModel[float32](t, true)
	var good bytes.Buffer
	if err := SaveCheckpoint(&good, m.Params(), cfg); err != nil {
		t.Fatal(err)
	}
	hostile := func(n uint64, body string) []byte {
		b := binary.LittleEndian.AppendUint64(nil, n)
		return append(b, body...)
	}
	header := func(h string) []byte { return append(hostile(uint64(len(h)), h), make([]byte, 64)...) }
	wider := cfg
	wider.DModel = 20
	mw, _ := NewTransformer[float32](wider, rand.New(rand.NewPCG(1, 1)))
	small, _ := NewTransformer[float32](Config{Vocab: 13, DModel: 16, Layers: 1, Heads: 4, MaxSeq: 80, CrossAttention: true, LatentDim: 6}, rand.New(rand.NewPCG(1, 1)))
	for _, tc := range []struct {
		name   string
		data   []byte
		params []*Param[float32]
		want   string
	}{
		{"shape mismatch", good.Bytes(), mw.Params(), `tensor "tok_emb.weight" has shape [13 16] in the file, the model expects [13 20]`},
		{"extra tensor", good.Bytes(), small.Params(), "that the model does not have"},
		{"huge header", hostile(1<<62, "{}"), m.Params(), "exceeds"},
		{"header longer than file", hostile(1<<20, `{"a":1}`), m.Params(), "truncated"},
		{"truncated data", good.Bytes()[:good.Len()-10], m.Params(), "data"},
		{"bad json", hostile(4, "{{{{"), m.Params(), "JSON"},
		{"offsets with a hole", header(`{"tok_emb.weight":{"dtype":"F32","shape":[13,16],"data_offsets":[4,836]}}`), nil, "starts at byte 4"},
		{"offsets not matching shape", header(`{"tok_emb.weight":{"dtype":"F32","shape":[13,16],"data_offsets":[0,1<<40]}}`), nil, "JSON"},
		{"offsets too long", header(`{"tok_emb.weight":{"dtype":"F32","shape":[13,16],"data_offsets":[0,1099511627776]}}`), nil, "do not hold"},
		{"wrong dtype", header(`{"tok_emb.weight":{"dtype":"I8","shape":[13,16],"data_offsets":[0,208]}}`), nil, "dtype"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := tc.params
			if params == nil {
				params = m.Params()[:1]
			}
			_, err := LoadCheckpoint(bytes.NewReader(tc.data), params)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestFSQCodes(t *testing.T) {
	q, err := NewFSQ[float32]([]int{8, 8, 8, 8, 8})
	if err != nil {
		t.Fatal(err)
	}
	if q.codebookSize() != 32768 {
		t.Fatalf("codebook %d", q.codebookSize())
	}
	rng := rand.New(rand.NewPCG(1, 1))
	z := engine.New[float32](200, 5)
	for i := range engine.Data[float32](z) {
		engine.Data[float32](z)[i] = float32(3 * rng.NormFloat64())
	}
	codes := q.Forward(z)
	idx, err := q.Indices(codes)
	if err != nil {
		t.Fatal(err)
	}
	back, err := q.Codes(idx)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(engine.Data[float32](back), engine.Data[float32](codes)); d != 0 {
		t.Fatalf("codes → indices → codes differs by %g", d)
	}
	seen := map[float32]bool{}
	for _, v := range engine.Data[float32](codes) {
		if v < -1 || v > 1 {
			t.Fatalf("code value %v outside [-1, 1]", v)
		}
		seen[v] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d distinct values in one dimension's codes, want 8 levels", len(seen))
	}
	all := make([]int, q.codebookSize())
	for i := range all {
		all[i] = i
	}
	c, _ := q.Codes(all)
	again, _ := q.Indices(c)
	for i, v := range again {
		if v != i {
			t.Fatalf("index %d round-trips to %d", i, v)
		}
	}
	if _, err := q.Codes([]int{32768}); err == nil {
		t.Fatal("out-of-range code number accepted")
	}
	if _, err := NewFSQ[float32]([]int{8, 1}); err == nil {
		t.Fatal("1-level dimension accepted")
	}
}

func TestAdamWSchedule(t *testing.T) {
	o := NewAdamW[float64](1)
	o.Warmup, o.TotalSteps, o.MinLR = 10, 110, 0.1
	for _, tc := range []struct {
		step int
		want float64
	}{{0, 0.1}, {9, 1}, {10, 1}, {60, 0.55}, {110, 0.1}, {500, 0.1}} {
		if got := o.lrAt(tc.step); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("LRAt(%d) = %g, want %g", tc.step, got, tc.want)
		}
	}
}

func TestAdamWMinimizesQuadratic(t *testing.T) {
	p := NewParam[float64]("w", 2, 2)
	copy(p.w, []float64{3, -2, 1, 5})
	o := NewAdamW[float64](0.05)
	for i := 0; i < 500; i++ {
		for j, v := range p.w { // gradient of ½‖w‖²
			p.g[j] = v
		}
		o.Step([]*Param[float64]{p})
	}
	for _, v := range p.w {
		if math.Abs(v) > 1e-2 {
			t.Fatalf("w = %v, want near 0", p.w)
		}
	}
}

func TestClipGradNorm(t *testing.T) {
	p := NewParam[float32]("a", 2)
	q := NewParam[float32]("b", 1)
	copy(p.g, []float32{3, 0})
	copy(q.g, []float32{4})
	if n := ClipGradNorm([]*Param[float32]{p, q}, 1); math.Abs(n-5) > 1e-6 {
		t.Fatalf("norm %g, want 5", n)
	}
	if math.Abs(float64(p.g[0])-0.6) > 1e-6 || math.Abs(float64(q.g[0])-0.8) > 1e-6 {
		t.Fatalf("clipped grads %v %v", p.g, q.g)
	}
}

func TestDropout(t *testing.T) {
	d := newDropout[float64](0.25, rand.New(rand.NewPCG(1, 1)))
	x := make([]float64, 10000)
	for i := range x {
		x[i] = 1
	}
	y := d.forward(x)
	var zeros int
	var sum float64
	for _, v := range y {
		if v == 0 {
			zeros++
		}
		sum += v
	}
	if zeros < 2200 || zeros > 2800 || math.Abs(sum/10000-1) > 0.05 {
		t.Fatalf("%d zeros, mean %g", zeros, sum/10000)
	}
	dx := d.backward(x)
	for i := range dx {
		if dx[i] != y[i] { // x is all ones, so dx equals the mask scale
			t.Fatalf("backward does not reuse the mask at %d", i)
		}
	}
	d.Train = false
	if y := d.forward(x); &y[0] != &x[0] {
		t.Fatal("dropout in eval mode is not the identity")
	}
}

// TestDecoderPrefill reads a prompt in one pass, then steps on, and compares the
// prompt's last logits and every later step with the full forward pass; prefill
// wants a fresh decoder of one sequence.
func TestDecoderPrefill(t *testing.T) {
	for _, cross := range []bool{false, true} {
		m, cfg := testModel[float64](t, cross)
		const prompt, T = 23, 40
		rng := rand.New(rand.NewPCG(6, 1))
		tokens := make([]int, T)
		for i := range tokens {
			tokens[i] = rng.IntN(cfg.Vocab)
		}
		lat := randTensor(rng, 1, 4, cfg.LatentDim)
		if !cross {
			lat = nil
		}
		full, err := m.Forward(tokens, 1, T, lat)
		if err != nil {
			t.Fatal(err)
		}
		want, V := engine.Data[float64](full), cfg.Vocab
		dec, err := m.NewDecoder(1, lat)
		if err != nil {
			t.Fatal(err)
		}
		logits, err := dec.Prefill(tokens[:prompt])
		if err != nil {
			t.Fatal(err)
		}
		for p := prompt - 1; p < T; p++ {
			if d := maxAbsDiff(engine.Data[float64](logits), want[p*V:(p+1)*V]); d > 1e-10 {
				t.Fatalf("cross=%v position %d: prefilled decoder differs from forward by %g", cross, p, d)
			}
			if p+1 < T {
				if logits, err = dec.Step([]int{tokens[p+1]}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := dec.Prefill(tokens[:2]); err == nil {
			t.Error("prefill of a decoder past position 0: no error")
		}
		two, err := m.NewDecoder(2, nil)
		if err == nil {
			if _, err := two.Prefill(tokens[:2]); err == nil {
				t.Error("prefill of two sequences: no error")
			}
		}
	}
}

// TestForkedStepsMatchOneByOne decodes three float32 sequences after a shared
// prompt as a fork, whose own positions go through fastmath.OwnScores and
// OwnValues, and each alone through the ordinary KV-cache step (GEMMs), past
// the blocks in which the inner dimension is summed (320 and 640 own
// positions), with heads of 32 channels (the kernels' fast path) and of 12.
func TestForkedStepsMatchOneByOne(t *testing.T) {
	for _, tc := range []struct{ c, heads int }{{64, 2}, {24, 2}} {
		cfg := Config{Vocab: 11, DModel: tc.c, Layers: 2, Heads: tc.heads, MaxSeq: 720, CrossAttention: true, LatentDim: 5}
		m, err := NewTransformer[float32](cfg, rand.New(rand.NewPCG(8, 1)))
		if err != nil {
			t.Fatal(err)
		}
		const n, prompt, T = 3, 30, 720
		rng := rand.New(rand.NewPCG(6, 6))
		tokens := sharedPrefixTokens(rng, n, prompt, T, cfg.Vocab)
		lat := engine.New[float32](1, 4, cfg.LatentDim)
		for i, d := range engine.Data[float32](lat) {
			engine.Data[float32](lat)[i] = float32(math.Sin(float64(i))) + d
		}
		fork, err := m.NewDecoder(1, lat)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fork.Prefill(tokens[:prompt]); err != nil {
			t.Fatal(err)
		}
		if fork, err = fork.Fork(n); err != nil {
			t.Fatal(err)
		}
		alone := make([]*Decoder[float32], n)
		for b := range alone {
			if alone[b], err = m.NewDecoder(1, lat); err != nil {
				t.Fatal(err)
			}
			if _, err := alone[b].Prefill(tokens[b*T : b*T+prompt]); err != nil {
				t.Fatal(err)
			}
		}
		worst, V := 0.0, cfg.Vocab
		for p := prompt; p < T; p++ {
			step := column(tokens, n, T, p)
			logits, err := fork.Step(step)
			if err != nil {
				t.Fatal(err)
			}
			got := engine.Data[float32](logits)
			for b := range alone {
				want, err := alone[b].Step(step[b : b+1])
				if err != nil {
					t.Fatal(err)
				}
				worst = math.Max(worst, maxAbsDiff(got[b*V:(b+1)*V], engine.Data[float32](want)))
			}
		}
		t.Logf("C %d, %d heads: forked and lone logits differ by at most %g", tc.c, tc.heads, worst)
		if worst > 1e-4 {
			t.Fatalf("C %d, %d heads: forked decoder differs from lone ones by %g", tc.c, tc.heads, worst)
		}
	}
}

// column is position p of each of n sequences of length T laid end to end in
// tokens: what one step of a batch decoder reads.
func column(tokens []int, n, T, p int) []int {
	out := make([]int, n)
	for b := range out {
		out[b] = tokens[b*T+p]
	}
	return out
}
