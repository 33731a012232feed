//go:build cuda && cgo

package train

import (
	"math"
	"os"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/rigmodel"
)

// TestCUDATrainingStepMatchesCPU runs one training step (forward, loss, backward)
// of the tiny model with every product on the device and on the cpu engine: the
// losses and every gradient must agree to float32 rounding. Skipped without a CUDA
// device, failed instead under RIGKIT_REQUIRE_CUDA=1.
func TestCUDATrainingStepMatchesCPU(t *testing.T) {
	t.Setenv("RIGKIT_CUDA_MIN_WORK", "0")
	cu, err := engine.Get("cuda")
	if err != nil {
		if os.Getenv("RIGKIT_REQUIRE_CUDA") == "1" {
			t.Fatalf("RIGKIT_REQUIRE_CUDA=1 but %v", err)
		}
		t.Skip(err)
	}
	saved := engine.Default()
	defer engine.SetDefault(saved)
	exs := tinyExamples(t, 4)
	step := func(e engine.Engine) (rigmodel.Losses, [][]float32) {
		engine.SetDefault(e)
		m, err := rigmodel.NewModel(modeltest.TinyConfig, 7)
		if err != nil {
			t.Fatal(err)
		}
		nn.ZeroGrad[float32](m)
		ls, err := m.StepWeighted(exs, true, rigmodel.LossWeights{Skin: 1, Struct: 2})
		if err != nil {
			t.Fatal(err)
		}
		var grads [][]float32
		for _, p := range m.Params() {
			grads = append(grads, append([]float32(nil), p.GradData()...))
		}
		return ls, grads
	}
	lc, gc := step(engine.NewCPU(2))
	dev0, _ := cu.(*engine.CUDA).Counts()
	lg, gg := step(cu)
	if dev, _ := cu.(*engine.CUDA).Counts(); dev == dev0 {
		t.Fatal("no product ran on the device")
	}
	for _, l := range [][2]float64{{lc.Skeleton, lg.Skeleton}, {lc.Skin, lg.Skin}} {
		if math.Abs(l[0]-l[1]) > 1e-4*math.Abs(l[0]) {
			t.Fatalf("loss cpu %.7g, cuda %.7g", l[0], l[1])
		}
	}
	var scale, worst float64
	for i := range gc {
		for j, v := range gc[i] {
			scale = math.Max(scale, math.Abs(float64(v)))
			worst = math.Max(worst, math.Abs(float64(v-gg[i][j])))
		}
	}
	t.Logf("losses cpu %.6f/%.6f cuda %.6f/%.6f; worst gradient difference %.3g of max %.3g", lc.Skeleton, lc.Skin, lg.Skeleton, lg.Skin, worst, scale)
	if worst > 1e-3*scale {
		t.Fatalf("gradients differ by %.3g (largest gradient %.3g)", worst, scale)
	}
}
