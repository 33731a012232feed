package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
)

// A training step of a small decoder that cross-attends to shape latents from a
// point encoder, followed by KV-cached decoding.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	enc, _ := nn.NewPointEncoder[float32]("enc", nn.PointEncoderConfig{InDim: 6, DModel: 32, Latents: 8, Heads: 4, Layers: 1}, rng)
	model, _ := nn.NewTransformer[float32](nn.Config{
		Vocab: 20, DModel: 32, Layers: 2, Heads: 4, MaxSeq: 16, CrossAttention: true, LatentDim: 32,
	}, rng)

	const B, T = 2, 8
	points := engine.New[float32](B, 100, 6) // (B, P, 6): position + normal
	tokens := make([]int, B*T)
	targets := make([]int, B*T)
	for i := range tokens {
		tokens[i], targets[i] = i%20, (i+1)%20
	}

	latents, _ := enc.Forward(points)                 // (B, 8, 32)
	logits, _ := model.Forward(tokens, B, T, latents) // (B, T, 20)
	ce := nn.NewSoftmaxCrossEntropy[float32]()
	loss, _ := ce.Forward(logits, targets, nil)
	dlatents, _ := model.Backward(ce.Backward())
	enc.Backward(dlatents)
	opt := nn.NewAdamW[float32](1e-3)
	params := append(enc.Params(), model.Params()...)
	nn.ClipGradNorm(params, 1)
	opt.Step(params)

	dec, _ := model.NewDecoder(B, latents)
	next, _ := dec.Step([]int{0, 0}) // (B, 20) logits for position 1
	fmt.Println(loss > 0, next.Shape())
	// Output: true (2, 20)
}
