package skincodec

import (
	"fmt"

	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

// newCVAE allocates every parameter the config implies, so a checkpoint's config
// is checked before it: each size within a bound rigkit can run, then against the
// tensor shapes the file declares, which the file must hold (nn.CheckShapes).

// cvaeLimits are the bounds of each config field, far above the shipped
// tokenizer's yet within what one process can build.
func cvaeLimits(c CVAEConfig) []nn.SizeLimit {
	return []nn.SizeLimit{
		{Field: "d", Value: c.D, Min: 1, Max: 4096},
		{Field: "heads", Value: c.Heads, Min: 1, Max: max(1, c.D)},
		{Field: "hidden", Value: c.Hidden, Min: 1, Max: 16384},
		{Field: "k", Value: c.K, Min: 1, Max: tokens.MaxK},
		{Field: "latents", Value: c.Latents, Min: 1, Max: 4096},
		{Field: "blocks", Value: c.Blocks, Min: 1, Max: 256},
		{Field: "levels (count)", Value: len(c.Levels), Min: len(tokens.SkinLevels), Max: len(tokens.SkinLevels)},
	}
}

// cvaeShapes are the tensors whose shapes carry each size of the config.
func cvaeShapes(c CVAEConfig) []nn.ShapeWant {
	d := c.D
	return []nn.ShapeWant{
		{Name: "dec.pos", Shape: []int{c.K, d}, Fields: "k, d"},
		{Name: "mesh.pool.queries", Shape: []int{c.Latents, d}, Fields: "latents, d"},
		{Name: "dec.pts.res.mlp.up.weight", Shape: []int{c.Hidden, d}, Fields: "hidden, d"},
		{Name: "dec.pts.in.weight", Shape: []int{d, c.queryDim()}, Fields: "d, geodesic"},
		{Name: "enc.out.weight", Shape: []int{len(c.Levels), d}, Fields: "levels, d"},
		{Name: fmt.Sprintf("dec.block%d.ff.ln.weight", c.Blocks-1), Shape: []int{d}, Fields: "blocks, d"},
		{Name: fmt.Sprintf("dec.block%d.ff.ln.weight", c.Blocks), Fields: "blocks"},
	}
}

// checkCVAEConfig checks a checkpoint's config against its bounds and the tensor
// shapes data declares, before any parameter is allocated.
func checkCVAEConfig(data []byte, c CVAEConfig) error {
	if err := nn.CheckSizeLimits(cvaeLimits(c)); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	shapes, err := nn.CheckpointShapes(data)
	if err != nil {
		return err
	}
	return nn.CheckShapes(shapes, cvaeShapes(c))
}
