package rigmodel

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

func TestWarmStartCopiesWeights(t *testing.T) {
	src, err := NewModel(tinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "src.safetensors")
	if err := saveCheckpoint(t, path, src, &TrainState{}); err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig
	cfg.Dropout = 0.1 // dropout may differ
	dst, err := NewModel(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := WarmStart(dst, path); err != nil {
		t.Fatal(err)
	}
	for i, p := range dst.Params() {
		for k, v := range p.Data() {
			if v != src.Params()[i].Data()[k] {
				t.Fatalf("%s[%d] = %v, want %v", p.Name, k, v, src.Params()[i].Data()[k])
			}
		}
	}
	cfg.Layers++
	other, err := NewModel(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := WarmStart(other, path); err == nil {
		t.Error("warm start across different sizes did not fail")
	}
}

func TestStructWeightScalesHierarchyTargets(t *testing.T) {
	c := testRig(t)
	ex, err := MakeExample(c, tinyConfig.Points, nil, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(tinyConfig, 4)
	if err != nil {
		t.Fatal(err)
	}
	_, targets, skel, skin, _, err := m.batchInputs([]*Example{ex})
	if err != nil {
		t.Fatal(err)
	}
	w := lossWeights(targets, skel, skin, 1, 3)
	structural := 0
	for i, tok := range targets {
		want := float32(0)
		switch {
		case skel[i] != 0 && (tok == tokens.POP || tok == tokens.SEP):
			want = 3
			structural++
		case skel[i] != 0:
			want = 1
		}
		if w[i] != want {
			t.Errorf("target %d (%s): weight %v, want %v", i, tokens.TokenString(tok), w[i], want)
		}
	}
	if structural < 2 { // at least one POP and the SEP
		t.Errorf("%d structural targets in the test rig's stream", structural)
	}
	// Training with the weight runs.
	nn.ZeroGrad[float32](m)
	if _, err := m.StepWeighted([]*Example{ex}, true, LossWeights{Struct: 3}); err != nil {
		t.Fatal(err)
	}
}
