package train

import (
	"math"
	mrand "math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
	"gorgonia.org/tensor"
)

// examples returns n small training examples from the classical rig of the box
// quadruped, with made-up skin codes so the whole stream is exercised.
func tinyExamples(t testing.TB, n int) []*rigmodel.Example {
	c := modeltest.Rig(t)
	var out []*rigmodel.Example
	for i := 0; i < n; i++ {
		rng := mrand.New(mrand.NewSource(int64(i)))
		a, _ := augment(c, AugmentOptions{Rotate: true}, rng)
		ex, err := rigmodel.MakeExample(a, modeltest.TinyConfig.Points, modeltest.FakeSkin{Seed: i}, rng)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ex)
	}
	return out
}

func TestModelOverfitsTinyRigsAndKVCacheMatches(t *testing.T) {
	exs := tinyExamples(t, 2)
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 7)
	if err != nil {
		t.Fatal(err)
	}
	opt := nn.NewAdamW[float32](3e-3)
	opt.WeightDecay = 0
	first := rigmodel.Losses{}
	var last rigmodel.Losses
	for step := 0; step < 1000; step++ {
		nn.ZeroGrad[float32](m)
		ls, err := m.Step(exs, true, 1)
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = ls
		}
		last = ls
		nn.ClipGradNorm(m.Params(), 1)
		opt.Step(m.Params())
		if ls.Total() < 0.002 {
			break
		}
	}
	t.Logf("loss skeleton %.3f → %.4f, skin %.3f → %.4f", first.Skeleton, last.Skeleton, first.Skin, last.Skin)
	if last.Skeleton > 0.01 || last.Skin > 0.01 {
		t.Fatalf("did not overfit two rigs: skeleton %.3f, skin %.3f", last.Skeleton, last.Skin)
	}
	// Greedy KV-cached generation reproduces the memorized streams, and equals the
	// argmax of a full forward pass over its own output at every position.
	for _, ex := range exs {
		s, lat := greedyStream(t, m, ex, sampler.SampleOptions{MaxJoints: modeltest.TinyConfig.MaxJoint, K: modeltest.TinyConfig.K()})
		if !slices.Equal(s.Tokens, ex.Tokens) {
			t.Errorf("greedy stream differs from the memorized one:\n got %v\nwant %v", s.Tokens, ex.Tokens)
		}
		T := len(s.Tokens) - 1
		logits, err := m.Decoder.Forward(s.Tokens[:T], 1, T, lat)
		if err != nil {
			t.Fatal(err)
		}
		full := engine.Data[float32](logits)
		g := tokens.NewGrammar(modeltest.TinyConfig.MaxJoint, modeltest.TinyConfig.K()).Start()
		for i := 0; i < T; i++ {
			g.Next(s.Tokens[i])
			mask := g.Allowed()
			row := append([]float32(nil), full[i*tokens.VocabSize:(i+1)*tokens.VocabSize]...)
			mask.Apply(row, float32(math.Inf(-1)))
			best := 0
			for j, v := range row {
				if v > row[best] {
					best = j
				}
			}
			if best != s.Tokens[i+1] {
				t.Fatalf("position %d: cached greedy %s, full forward argmax %s", i+1, tokens.TokenString(s.Tokens[i+1]), tokens.TokenString(best))
			}
		}
	}
}

// greedyStream generates m's greedy stream for an example's condition (points and
// proposal) with the KV cache, and returns it with the encoded condition.
func greedyStream(t *testing.T, m *rigmodel.Model, ex *rigmodel.Example, opt sampler.SampleOptions) (*sampler.Sampled, *tensor.Dense) {
	t.Helper()
	lat, err := m.Encode(ex.Points, ex.Proposal)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := m.NewSession(lat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sampler.Generate(sess, nil, opt, mrand.New(mrand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	return s, lat
}

// proposalPair returns two examples of one mesh with the same surface points and
// different skeletons (the second pulled halfway to the joints' centroid), each
// with its own skeleton as the proposal.
func proposalPair(t *testing.T, cfg rigmodel.Config) []*rigmodel.Example {
	c := modeltest.Rig(t)
	shrunk := c.Clone()
	var mean vecmath.Vec3
	for j := range shrunk.Skeleton.BindWorld {
		mean = mean.Add(shrunk.Skeleton.Position(j).Scale(1 / float64(shrunk.Skeleton.NumJoints())))
	}
	for j, b := range shrunk.Skeleton.BindWorld {
		p := b.Translation().Add(mean).Scale(0.5)
		b[12], b[13], b[14] = p[0], p[1], p[2]
		shrunk.Skeleton.BindWorld[j] = b
	}
	var out []*rigmodel.Example
	for _, ch := range []*character.Character{c, shrunk} {
		ex, err := rigmodel.MakeExample(ch, cfg.Points, nil, mrand.New(mrand.NewSource(1)))
		if err != nil {
			t.Fatal(err)
		}
		ex.Proposal = rigmodel.ProposalRows(ch.Skeleton, character.NormalizationOf(ch.Mesh), cfg.Proposal)
		out = append(out, ex)
	}
	return out
}

// The two streams share the shape condition, so only the proposal tells them
// apart: a model that reads it writes both greedily, and one shown the same
// proposal for both writes at most one of them.
func TestModelReadsTheProposal(t *testing.T) {
	cfg := modeltest.TinyConfig
	cfg.Proposal = 24
	written := func(sameProposal bool) int {
		exs := proposalPair(t, cfg)
		if sameProposal {
			exs[1].Proposal = exs[0].Proposal
		}
		m, err := rigmodel.NewModel(cfg, 5)
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
			s, _ := greedyStream(t, m, ex, sampler.SampleOptions{MaxJoints: cfg.MaxJoint, K: cfg.K(), StopAtSEP: true})
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
