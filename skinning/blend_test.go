package skinning

import (
	"math"
	"testing"

	"github.com/rigkit/rigkit/character"
)

func TestBlend(t *testing.T) {
	a := &character.Skin{Weights: [][]character.Influence{
		{{Joint: 0, Weight: 1}},
		{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}},
		{{Joint: 2, Weight: 1}},
	}}
	b := &character.Skin{Weights: [][]character.Influence{
		{{Joint: 1, Weight: 1}},
		{{Joint: 1, Weight: 1}},
		{{Joint: 0, Weight: 0.4}, {Joint: 1, Weight: 0.3}, {Joint: 3, Weight: 0.2}, {Joint: 4, Weight: 0.1}},
	}}
	tests := []struct {
		name  string
		alpha float64
		maxK  int
		v     int
		want  map[int]float64
	}{
		{"half and half", 0.5, 4, 0, map[int]float64{0: 0.5, 1: 0.5}},
		{"shared joint adds up", 0.5, 4, 1, map[int]float64{0: 0.25, 1: 0.75}},
		{"alpha 1 is a", 1, 4, 1, map[int]float64{0: 0.5, 1: 0.5}},
		{"alpha 0 is b", 0, 4, 0, map[int]float64{1: 1}},
		{"pruned to the heaviest and renormalized", 0.5, 2, 2, map[int]float64{2: 0.5 / 0.7, 0: 0.2 / 0.7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := Blend(a, b, tc.alpha, tc.maxK)
			if err != nil {
				t.Fatal(err)
			}
			checkInfluences(t, k, tc.v, tc.want)
		})
	}
	for _, bad := range []struct {
		name  string
		b     *character.Skin
		alpha float64
	}{
		{"vertex counts differ", &character.Skin{Weights: b.Weights[:2]}, 0.5},
		{"alpha above 1", b, 1.5},
		{"alpha NaN", b, math.NaN()},
		{"missing skin", nil, 0.5},
	} {
		if _, err := Blend(a, bad.b, bad.alpha, 4); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

func TestSharpen(t *testing.T) {
	k := &character.Skin{Weights: [][]character.Influence{
		{{Joint: 0, Weight: 0.75}, {Joint: 1, Weight: 0.25}},
		{{Joint: 2, Weight: 0.5}, {Joint: 3, Weight: 0.5}},
		{{Joint: 4, Weight: 1}},
		{{Joint: 0, Weight: 0.4}, {Joint: 1, Weight: 0.3}, {Joint: 2, Weight: 0.2}, {Joint: 3, Weight: 0.1}},
	}}
	tests := []struct {
		name string
		p    float64
		maxK int
		v    int
		want map[int]float64
	}{
		{"mostly one bone moves toward it", 2, 4, 0, map[int]float64{0: 0.9, 1: 0.1}},
		{"equal blend stays equal", 3, 4, 1, map[int]float64{2: 0.5, 3: 0.5}},
		{"rigid stays rigid", 2, 4, 2, map[int]float64{4: 1}},
		{"power 1 is the identity", 1, 4, 0, map[int]float64{0: 0.75, 1: 0.25}},
		{"pruned after sharpening", 2, 2, 3, map[int]float64{0: 0.16 / 0.25, 1: 0.09 / 0.25}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Sharpen(k, tc.p, tc.maxK)
			if err != nil {
				t.Fatal(err)
			}
			checkInfluences(t, s, tc.v, tc.want)
		})
	}
	if k.Weights[0][0].Weight != 0.75 {
		t.Fatal("Sharpen changed its input")
	}
	for _, p := range []float64{0.5, 17, math.NaN(), math.Inf(1)} {
		if _, err := Sharpen(k, p, 4); err == nil {
			t.Errorf("power %v: no error", p)
		}
	}
	if _, err := Sharpen(nil, 2, 4); err == nil {
		t.Error("nil skin: no error")
	}
}

// checkInfluences fails unless vertex v of k has exactly the joints and weights of want.
func checkInfluences(t *testing.T, k *character.Skin, v int, want map[int]float64) {
	t.Helper()
	got := map[int]float64{}
	for _, in := range k.Weights[v] {
		got[in.Joint] = in.Weight
	}
	if len(got) != len(want) {
		t.Fatalf("vertex %d: %v, want %v", v, got, want)
	}
	for j, w := range want {
		if math.Abs(got[j]-w) > 1e-12 {
			t.Fatalf("vertex %d: %v, want %v", v, got, want)
		}
	}
}
