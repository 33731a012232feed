package skincodec

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/synth"
)

// TestInferDecoderMatchesNetwork runs the inference decoder and cvae.decode (nn's
// layers, one bone at a time) on the same random inputs: bones with 1 to 2,500
// rows, so segments cross chunk boundaries, decoded by one and by three workers.
func TestInferDecoderMatchesNetwork(t *testing.T) {
	m, err := newCVAE[float32](DefaultCVAEConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(4))
	fill := func(n int, s float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * s)
		}
		return x
	}
	// Larger weights than at initialization, so activations reach GELU's tails.
	for _, p := range m.Params() {
		for i, v := range p.Data() {
			p.Data()[i] = v * 1.5
		}
	}
	counts := []int{700, 1, 2500, 33, 1300}
	nJ, K, nl, M, d := len(counts), m.cfg.K, len(m.cfg.Levels), m.cfg.Latents, m.cfg.D
	codes := fill(nJ*K*nl, 0.6)
	bones := fill(nJ*boneFeatures, 0.5)
	lat := fill(M*d, 1)
	qry := make([][]float32, nJ)
	var rows []decodeRow
	for j, n := range counts {
		qry[j] = fill(n*m.cfg.queryDim(), 0.7)
		for u := 0; u < n; u++ {
			rows = append(rows, decodeRow{int32(j), int32(u)})
		}
	}
	dec := newInferDecoder(m, codes, bones, lat, nJ, nil)
	for _, workers := range []int{1, 3} {
		got := make([][]float32, nJ)
		for j, n := range counts {
			got[j] = make([]float32, n)
		}
		dec.run(rows, workers, func(r decodeRow, dst []float32) {
			qd := m.cfg.queryDim()
			copy(dst, qry[r.j][int(r.u)*qd:int(r.u+1)*qd])
		}, func(r decodeRow, logit float32) { got[r.j][r.u] = logit })
		worst, scale := 0.0, 0.0
		for j, n := range counts {
			want := m.decode(codes[j*K*nl:(j+1)*K*nl], bones[j*boneFeatures:(j+1)*boneFeatures], lat, []int{0}, qry[j], 1, n)
			for i := range want {
				worst = max(worst, math.Abs(float64(got[j][i]-want[i])))
				scale = max(scale, math.Abs(float64(want[i])))
			}
		}
		t.Logf("%d workers: worst logit difference %.3g (logits up to %.1f)", workers, worst, scale)
		if worst > 1e-4*max(1, scale) {
			t.Fatalf("%d workers: inference decoder differs from the network by %.3g", workers, worst)
		}
	}
}

// TestProbabilitiesMatchNetwork decodes a synthetic creature with the shipped
// checkpoint through Probabilities (exhaustive, so every vertex is a decoder row)
// and through cvae.decode bone by bone.
func TestProbabilitiesMatchNetwork(t *testing.T) {
	tok, err := Load("")
	if err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	nc, codes := encodeCreature(t, tok, tok.Options(), "biped", 3, 600)
	got, err := tok.Probabilities(nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	// Reference: nn's layers on every vertex, one bone at a time.
	cc := *nc
	cc.Skin = nil
	p, err := prepare(&cc, tok.Seed, tok.Config.Geodesic > 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := tok.replica()
	defer tok.release(m)
	var flat []int
	for _, cs := range codes {
		flat = append(flat, cs...)
	}
	cv, err := m.fsq.Codes(flat)
	if err != nil {
		t.Fatal(err)
	}
	vecs := engine.Data[float32](cv)
	lat := append([]float32(nil), m.meshLatents(p.mesh, 1)...)
	pos := nc.Mesh.Positions
	nJ, K, nl := p.nJ, m.cfg.K, len(m.cfg.Levels)
	dists := make([]float32, len(pos)*nJ)
	for v, x := range pos {
		p.geo.jointDists(x, dists[v*nJ:(v+1)*nJ])
	}
	bone := make([]float32, boneFeatures)
	qd := m.cfg.queryDim()
	qry := make([]float32, len(pos)*qd)
	worst := 0.0
	for j := 0; j < nJ; j++ {
		p.geo.boneVec(j, bone)
		for v := range pos {
			p.queryVec(j, v, dists[v*nJ:(v+1)*nJ], qry[v*qd:(v+1)*qd])
		}
		logits := m.decode(vecs[j*K*nl:(j+1)*K*nl], bone, lat, []int{0}, qry, 1, len(pos))
		for v, l := range logits {
			want := 1 / (1 + math.Exp(-float64(l)))
			worst = max(worst, math.Abs(float64(got[v*nJ+j])-want))
		}
	}
	t.Logf("%d vertices × %d bones: worst probability difference %.3g", len(pos), nJ, worst)
	if worst > 2e-5 {
		t.Fatalf("Probabilities differ from the network by %.3g", worst)
	}
}

// TestEncodeInferMatchesNetwork compares the inference encoder with cvae.encode: the
// latents on random inputs, and the codes of a synthetic creature with the shipped
// checkpoint (a latent within rounding noise of an FSQ boundary may flip a code).
func TestEncodeInferMatchesNetwork(t *testing.T) {
	m, err := newCVAE[float32](DefaultCVAEConfig(), 5)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(6))
	const B = 7
	enc := make([]float32, B*encPoints*m.cfg.encDim())
	bone := make([]float32, B*boneFeatures)
	for i := range enc {
		enc[i] = float32(rng.NormFloat64())
	}
	for i := range bone {
		bone[i] = float32(rng.NormFloat64())
	}
	want := append([]float32(nil), m.encode(enc, bone, B)...)
	got := encodeInfer(m, enc, bone, B, decodeWorkers())
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(float64(got[i]-want[i])))
	}
	t.Logf("random inputs: worst latent difference %.3g", worst)
	if worst > 1e-4 {
		t.Fatalf("inference encoder differs from the network by %.3g", worst)
	}

	// The shipped tokenizer without code refinement: the encoder's own codes are
	// compared.
	tok, err := Load("")
	if err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	noSearch := tok.Options()
	noSearch.RefineRounds = 0
	nc, codes := encodeCreature(t, tok, noSearch, "quadruped", 4, 1500)
	p, err := prepare(nc, tok.Seed, tok.Config.Geodesic > 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	nJ := p.nJ
	ed := tok.Config.encDim()
	enc = make([]float32, nJ*encPoints*ed)
	bone = make([]float32, nJ*boneFeatures)
	for j := 0; j < nJ; j++ {
		p.encoderInput(j, rand.New(rand.NewSource(tok.Seed*7919+int64(j))), enc[j*encPoints*ed:])
		p.geo.boneVec(j, bone[j*boneFeatures:])
	}
	r := tok.replica()
	defer tok.release(r)
	idx, err := r.fsq.Indices(engine.FromSlice(r.quantize(r.encode(enc, bone, nJ), nJ), nJ*r.cfg.K, len(r.cfg.Levels)))
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for j, cs := range codes {
		for k, c := range cs {
			if c != idx[j*r.cfg.K+k] {
				differ++
			}
		}
	}
	t.Logf("%d of %d codes differ from the network's", differ, len(idx))
	if differ*50 > len(idx) {
		t.Fatalf("%d of %d codes differ from the network's", differ, len(idx))
	}
}

// encodeCreature generates a synthetic creature, normalizes it into the cube and
// encodes all its bones with tok.
func encodeCreature(t *testing.T, tok *SkinTokenizer, opt Options, kind string, seed int64, vertices int) (*character.Character, [][]int) {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: vertices})
	if err != nil {
		t.Fatal(err)
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	codes, err := tok.EncodeAllWith(nc, opt)
	if err != nil {
		t.Fatal(err)
	}
	return nc, codes
}

// TestWorkersKeepResults encodes and decodes a creature with one worker per call
// and with the default engine's workers: codes and weights must be the same (each
// decoder row and encoder product is computed whole by one goroutine either way).
func TestWorkersKeepResults(t *testing.T) {
	tok, err := Load("")
	if err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	nc, codes := encodeCreature(t, tok, tok.Options(), "quadruped", 2, 700)
	p, err := tok.Probabilities(nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	one := tok.Options()
	one.Workers = 1
	codes1, err := tok.EncodeAllWith(nc, one)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(codes, codes1, slices.Equal[[]int]) {
		t.Fatalf("codes with 1 worker %v, default %v", codes1, codes)
	}
	p1, err := tok.probabilitiesWith(context.Background(), nc, nc.Skeleton, [][][]int{codes}, one)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p, p1) {
		t.Fatal("decoded weights differ between 1 worker and the default")
	}
}
