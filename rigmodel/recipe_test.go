package rigmodel

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

func TestAugmentQuarterTurns(t *testing.T) {
	c := testRig(t)
	opt := AugmentOptions{QuarterTurns: true, Jitter: 0.1}
	seen := map[int]bool{}
	for seed := int64(0); seed < 40; seed++ {
		a := Augment(c, opt, rand.New(rand.NewSource(seed)))
		// The turn about +Y, from any vertex away from the axis.
		var angle float64
		for i, p := range c.Mesh.Positions {
			q := a.Mesh.Positions[i]
			if math.Hypot(p[0], p[2]) > 0.3 {
				angle = math.Atan2(p[0], p[2]) - math.Atan2(q[0], q[2])
				if math.Abs(q[1]-p[1]) > 1e-9 {
					t.Fatalf("seed %d: vertex %d moved along the up axis", seed, i)
				}
				break
			}
		}
		k := math.Round(angle / (math.Pi / 2))
		if off := math.Abs(angle - k*math.Pi/2); off > opt.Jitter+1e-9 {
			t.Errorf("seed %d: turn %.3f rad is %.3f from a quarter turn (jitter %.2f)", seed, angle, off, opt.Jitter)
		}
		seen[(int(k)%4+4)%4] = true
	}
	if len(seen) != 4 {
		t.Errorf("quarter turns seen: %v, want all 4", seen)
	}
}

func TestWarmStartCopiesWeights(t *testing.T) {
	src, err := NewModel(tinyConfig, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "src.safetensors")
	if err := SaveCheckpointFile(path, src, &TrainState{}); err != nil {
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
