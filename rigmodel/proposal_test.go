package rigmodel

import (
	mrand "math/rand"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
)

func TestProposalEncoderGradient(t *testing.T) {
	cfg := Config{DModel: 8, Heads: 2, Fourier: 1, Proposal: 4}
	rng := rand.New(rand.NewPCG(3, 4))
	e := NewProposalEncoder[float64](cfg, rng)
	// Two items: one with 3 of 4 joints (one Empty row), one with all 4.
	props := [][]float32{make([]float32, 3*proposalWidth), make([]float32, 4*proposalWidth)}
	for _, p := range props {
		for i := range p {
			p[i] = float32(rng.Float64()*2 - 1)
		}
	}
	r := make([]float64, 2*cfg.Proposal*cfg.DModel)
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	loss := func() float64 {
		out, err := e.Forward(props)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for i, v := range engine.Data[float64](out) {
			s += r[i] * v
		}
		return s
	}
	loss()
	nn.ZeroGrad[float64](e)
	e.Backward(engine.FromSlice(append([]float64(nil), r...), 2, cfg.Proposal, cfg.DModel))
	checkGradients(t, e.Params(), loss)
	if _, err := e.Forward([][]float32{make([]float32, 5*proposalWidth)}); err == nil {
		t.Error("a proposal of 5 joints fit 4 rows")
	}
}

// proposalPair returns two examples of one mesh with the same surface points and
// different skeletons (the second pulled halfway to the joints' centroid), each
// with its own skeleton as the proposal.
func proposalPair(t *testing.T, cfg Config) []*Example {
	c := testRig(t)
	shrunk := c.Clone()
	var mean character.Vec3
	for j := range shrunk.Skeleton.BindWorld {
		mean = mean.Add(shrunk.Skeleton.Position(j).Scale(1 / float64(shrunk.Skeleton.NumJoints())))
	}
	for j, b := range shrunk.Skeleton.BindWorld {
		p := b.Translation().Add(mean).Scale(0.5)
		b[12], b[13], b[14] = p[0], p[1], p[2]
		shrunk.Skeleton.BindWorld[j] = b
	}
	var out []*Example
	for _, ch := range []*character.Character{c, shrunk} {
		ex, err := MakeExample(ch, cfg.Points, nil, mrand.New(mrand.NewSource(1)))
		if err != nil {
			t.Fatal(err)
		}
		ex.Proposal = ProposalRows(ch.Skeleton, character.NormalizationOf(ch.Mesh), cfg.Proposal)
		out = append(out, ex)
	}
	return out
}

// The two streams share the shape condition, so only the proposal tells them
// apart: a model that reads it writes both greedily, and one shown the same
// proposal for both writes at most one of them.
func TestModelReadsTheProposal(t *testing.T) {
	cfg := tinyConfig
	cfg.Proposal = 24
	written := func(sameProposal bool) int {
		exs := proposalPair(t, cfg)
		if sameProposal {
			exs[1].Proposal = exs[0].Proposal
		}
		m, err := NewModel(cfg, 5)
		if err != nil {
			t.Fatal(err)
		}
		opt := nn.NewAdamW[float32](3e-3)
		opt.WeightDecay = 0
		for step := 0; step < 300; step++ {
			nn.ZeroGrad[float32](m)
			if _, err = m.Step(exs, true, 1); err != nil {
				t.Fatal(err)
			}
			nn.ClipGradNorm(m.Params(), 1)
			opt.Step(m.Params())
		}
		n := 0
		for _, ex := range exs {
			s, _ := greedyStream(t, m, ex, SampleOptions{MaxJoints: cfg.MaxJoint, K: cfg.K(), StopAtSEP: true})
			if slices.Equal(s.Tokens, ex.Tokens) {
				n++
			}
		}
		return n
	}
	read, blind := written(false), written(true)
	if read != 2 || blind > 1 {
		t.Errorf("greedy streams equal to their targets: %d of 2 with the proposals (want 2), %d with one proposal for both (want at most 1)", read, blind)
	}
}

func TestAnchoredProposalFollowsAugmentation(t *testing.T) {
	c := testRig(t)
	a := anchorProposal(c.Skeleton, &c.Mesh)
	opt := AugmentOptions{MaxScale: 0.15, QuarterTurns: true, Jitter: 0.2, MirrorProb: 0.5}
	for seed := int64(0); seed < 4; seed++ {
		aug, m := augment(c, opt, mrand.New(mrand.NewSource(seed)))
		got := a.follow(&aug.Mesh, m)
		// Without re-posing the augmentation is affine, so every joint lands exactly
		// where the map sends it.
		for j := range got.BindWorld {
			want := m.Point(c.Skeleton.Position(j))
			if d := got.Position(j).Sub(want).Len(); d > 1e-9 {
				t.Fatalf("seed %d joint %d: %v, want %v", seed, j, got.Position(j), want)
			}
		}
	}
}

func TestWarmStartAddsAProposalEncoder(t *testing.T) {
	src, err := NewModel(tinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plain.safetensors")
	if err := SaveCheckpointFile(path, src, &TrainState{}); err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig
	cfg.Proposal = 8
	dst, err := NewModel(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := WarmStart(dst, path); err != nil {
		t.Fatal(err)
	}
	from, to := src.Params(), dst.Params()
	for i, p := range from {
		for k, v := range p.Data() {
			if to[i].Data()[k] != v {
				t.Fatalf("%s[%d] not copied", p.Name, k)
			}
		}
	}
	if len(to) != len(from)+len(dst.Proposal.Params()) {
		t.Errorf("%d parameters, want %d + the proposal encoder's %d", len(to), len(from), len(dst.Proposal.Params()))
	}
	// The other way round is refused: the proposal encoder would be dropped.
	path2 := filepath.Join(t.TempDir(), "prop.safetensors")
	if err := SaveCheckpointFile(path2, dst, &TrainState{}); err != nil {
		t.Fatal(err)
	}
	if err := WarmStart(src, path2); err == nil {
		t.Error("a model without a proposal encoder warm-started from one with")
	}
}
