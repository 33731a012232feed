package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
)

// TestRowNLL checks that the per-row losses the cross-entropy keeps from its
// forward pass are −log softmax of each target, as a float64 log-sum-exp gives
// them, and that their weighted mean is the loss.
func TestRowNLL(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	n, v := 7, 300
	logits := make([]float32, n*v)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 4)
	}
	targets := []int{0, 5, 299, 17, 150, 3, 42}
	mask := []float32{1, 0, 2, 1, 1, 0.5, 1}
	l := NewSoftmaxCrossEntropy[float32]()
	loss, err := l.Forward(engine.FromSlice(logits, n, v), targets, mask)
	if err != nil {
		t.Fatal(err)
	}
	var sum, total float64
	for i, tg := range targets {
		row := logits[i*v : (i+1)*v]
		mx := float64(row[0])
		for _, x := range row {
			mx = math.Max(mx, float64(x))
		}
		s := 0.0
		for _, x := range row {
			s += math.Exp(float64(x) - mx)
		}
		want := mx + math.Log(s) - float64(row[tg])
		if got := l.RowNLL(i); math.Abs(got-want) > 1e-5*math.Max(1, want) {
			t.Errorf("row %d: RowNLL %.8f, want %.8f", i, got, want)
		}
		sum += float64(mask[i]) * l.RowNLL(i)
		total += float64(mask[i])
	}
	if math.Abs(sum/total-loss) > 1e-6*loss { // the loss weighs rows in float32
		t.Errorf("weighted mean of RowNLL %.10f, loss %.10f", sum/total, loss)
	}
}
