package rigmodel

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

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

func TestWarmStartAddsAProposalEncoder(t *testing.T) {
	src, err := NewModel(tinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plain.safetensors")
	if err := saveCheckpoint(t, path, src, &TrainState{}); err != nil {
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
	if err := saveCheckpoint(t, path2, dst, &TrainState{}); err != nil {
		t.Fatal(err)
	}
	if err := WarmStart(src, path2); err == nil {
		t.Error("a model without a proposal encoder warm-started from one with")
	}
}
