package rigmodel

import (
	"fmt"

	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

// NewModel allocates every parameter the config implies, so a checkpoint's config
// is checked before it: each size within a bound rigkit can run (a d_model of
// 65536 or a max_seq of 2^40 would exhaust memory or overflow a slice length),
// then against the tensor shapes the file declares, which the file must hold.

// configLimits are the bounds of each config field, far above the shipped
// model's (DefaultConfig) yet within what one process can build.
func configLimits(c Config) []nn.SizeLimit {
	return []nn.SizeLimit{
		{Field: "d_model", Value: c.DModel, Min: 1, Max: 4096},
		{Field: "layers", Value: c.Layers, Min: 1, Max: 256},
		{Field: "heads", Value: c.Heads, Min: 1, Max: max(1, c.DModel)},
		{Field: "latents", Value: c.Latents, Min: 1, Max: 4096},
		{Field: "points", Value: c.Points, Min: 1, Max: 1 << 16},
		{Field: "fourier", Value: c.Fourier, Min: 0, Max: 64},
		{Field: "max_seq", Value: c.MaxSeq, Min: 8, Max: 1 << 16},
		{Field: "max_joints", Value: c.MaxJoint, Min: 1, Max: tokens.MaxJoints},
		{Field: "skin_tokens_per_joint", Value: c.SkinK, Min: 0, Max: tokens.MaxK},
		{Field: "proposal_joints", Value: c.Proposal, Min: 0, Max: tokens.MaxJoints},
	}
}

// configShapes are the tensors whose shapes carry each size of the config.
func configShapes(c Config) []nn.ShapeWant {
	d := c.DModel
	last := fmt.Sprintf("blocks.%d.ln1.weight", c.Layers-1)
	want := []nn.ShapeWant{
		{Name: "tok_emb.weight", Shape: []int{c.Vocab, d}, Fields: "vocab, d_model"},
		{Name: "pos_emb.weight", Shape: []int{c.MaxSeq, d}, Fields: "max_seq, d_model"},
		{Name: "head.weight", Shape: []int{c.Vocab, d}, Fields: "vocab, d_model"},
		{Name: "enc.in.weight", Shape: []int{d, 6 + 6*c.Fourier}, Fields: "d_model, fourier"},
		{Name: "enc.latents", Shape: []int{c.Latents, d}, Fields: "latents, d_model"},
		{Name: last, Shape: []int{d}, Fields: "layers"},
		{Name: fmt.Sprintf("blocks.%d.ln1.weight", c.Layers), Fields: "layers"},
	}
	if c.Proposal > 0 {
		want = append(want, nn.ShapeWant{Name: "prop.empty", Shape: []int{1, d}, Fields: "proposal_joints, d_model"})
	}
	return want
}

// checkConfig checks a checkpoint's config against its bounds and the tensor
// shapes data declares, before any parameter is allocated.
func checkConfig(data []byte, c Config) error {
	if err := nn.CheckSizeLimits(configLimits(c)); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	shapes, err := nn.CheckpointShapes(data)
	if err != nil {
		return err
	}
	return nn.CheckShapes(shapes, configShapes(c))
}
