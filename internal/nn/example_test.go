package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
)

// A training step of a small decoder that cross-attends to a latent set (shape
// latents, e.g. rigmodel's ShapeEncoder output), followed by KV-cached decoding.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	model, _ := nn.NewTransformer[float32](nn.Config{
		Vocab: 20, DModel: 32, Layers: 2, Heads: 4, MaxSeq: 16, CrossAttention: true, LatentDim: 32,
	}, rng)

	const B, T = 2, 8
	latents := engine.New[float32](B, 8, 32) // (B, L, 32)
	tokens := make([]int, B*T)
	targets := make([]int, B*T)
	for i := range tokens {
		tokens[i], targets[i] = i%20, (i+1)%20
	}

	logits, _ := model.Forward(tokens, B, T, latents) // (B, T, 20)
	ce := nn.NewSoftmaxCrossEntropy[float32]()
	loss, _ := ce.Forward(logits, targets, nil)
	_, _ = model.Backward(ce.Backward()) // also d loss / d latents, for the encoder
	opt := nn.NewAdamW[float32](1e-3)
	params := model.Params()
	nn.ClipGradNorm(params, 1)
	opt.Step(params)

	dec, _ := model.NewDecoder(B, latents)
	next, _ := dec.Step([]int{0, 0}) // (B, 20) logits for position 1
	fmt.Println(loss > 0, next.Shape())
	// Output: true (2, 20)
}
