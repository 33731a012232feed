package rigmodel

import (
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/rigmodel/nn"
	"github.com/rigkit/rigkit/tokenizer"
)

// lowBins rewards streams whose coordinates sit in the lower half of the cube.
func lowBins(_ *assets.Character, tokens []int) float64 {
	n, low := 0, 0
	for _, t := range tokens {
		if tokenizer.IsCoord(t) {
			n++
			if t-tokenizer.CoordBase < tokenizer.CoordBins/2 {
				low++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(low) / float64(n)
}

func TestGRPORaisesReward(t *testing.T) {
	m, err := NewModel(tinyConfig, 3)
	if err != nil {
		t.Fatal(err)
	}
	meshes := []*assets.Character{{Mesh: creatureMesh()}}
	opt := GRPOOptions{Group: 8, MaxJoints: 2, StopAtSEP: true, ScaleByStd: true}
	var first, last float64
	const steps = 40
	err = m.GRPOTrain(meshes, lowBins, opt, steps, 3e-3, 1, func(step int, st GRPOStats) {
		if step < 3 {
			first += st.MeanReward / 3
		}
		if step >= steps-3 {
			last += st.MeanReward / 3
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mean reward %.3f → %.3f", first, last)
	if last < first+0.15 {
		t.Errorf("GRPO did not raise the reward: %.3f → %.3f", first, last)
	}
}

func TestGRPOEqualRewardsTeachNothing(t *testing.T) {
	m, err := NewModel(tinyConfig, 4)
	if err != nil {
		t.Fatal(err)
	}
	nn.ZeroGrad[float32](m)
	flat := func(*assets.Character, []int) float64 { return 0.5 }
	st, err := m.GRPOStep([]*assets.Character{{Mesh: creatureMesh()}}, flat, GRPOOptions{Group: 4, MaxJoints: 3, StopAtSEP: true}, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	if st.Tokens != 0 {
		t.Errorf("%d tokens carried gradient in an all-equal group", st.Tokens)
	}
	for _, p := range m.Params() {
		for _, g := range p.GradData() {
			if g != 0 {
				t.Fatalf("%s has gradient %v", p.Name, g)
			}
		}
	}
}
