package rigmodel

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"gorgonia.org/tensor"
)

// This file is the proposal condition: a first-guess skeleton of the mesh (the
// classical rigger's) that the decoder reads beside the shape latents. Writing a
// skeleton from a point cloud alone asks a small model to invent the topology of
// every creature; reading a proposal it only has to keep, move, add or drop joints.

// ProposalFunc returns the proposal skeleton of a mesh, in the mesh's frame. The
// same function must serve training and generation: the model learns to edit what
// it returns.
type ProposalFunc func(m *character.Mesh) (*character.Skeleton, error)

// ProposalOf is the proposal rows of a mesh whose normalization is norm, or nil when
// propose fails (the model then reads a skeleton without joints).
func ProposalOf(propose ProposalFunc, mesh *character.Mesh, norm character.Normalization, limit int) []float32 {
	sk, err := propose(mesh)
	if err != nil {
		return nil
	}
	return ProposalRows(sk, norm, limit)
}

// proposalWidth is the floats per proposal joint row: position and the offset to
// its parent (zero for a root), in the normalized cube.
const proposalWidth = 6

// ProposalRows lays a proposal skeleton (world frame) out as rows of the model's
// proposal input: at most limit joints, each (x, y, z, px−x, py−y, pz−z) mapped into
// the cube by norm. Joints past limit are dropped (their children then read as
// roots).
func ProposalRows(sk *character.Skeleton, norm character.Normalization, limit int) []float32 {
	if sk == nil {
		return nil
	}
	n := min(sk.NumJoints(), limit)
	rows := make([]float32, 0, proposalWidth*n)
	for j := 0; j < n; j++ {
		p := norm.Point(sk.Position(j))
		q := p
		if par := sk.Parents[j]; par >= 0 && par < n {
			q = norm.Point(sk.Position(par))
		}
		rows = append(rows, float32(p[0]), float32(p[1]), float32(p[2]),
			float32(q[0]-p[0]), float32(q[1]-p[1]), float32(q[2]-p[2]))
	}
	return rows
}

// ProposalEncoder embeds proposal joints as memory rows of the decoder's
// cross-attention: Fourier features of the position and the raw parent offset, a
// Linear, a LayerNorm. Rows past a skeleton's joints are one learned Empty vector,
// so every batch item has the same J rows and the decoder learns to ignore them.
type ProposalEncoder[F nn.Float] struct {
	Cfg   Config
	In    *nn.Linear[F]    // 6+6F → D
	Empty *nn.Param[F]     // (1, D)
	LN    *nn.LayerNorm[F] // on every row

	mu    sync.Mutex
	count []int // real joints per batch item of the last Forward
	B     int
}

// NewProposalEncoder returns a randomly initialized proposal encoder.
func NewProposalEncoder[F nn.Float](cfg Config, rng *rand.Rand) *ProposalEncoder[F] {
	d := cfg.DModel
	e := &ProposalEncoder[F]{
		Cfg:   cfg,
		In:    nn.NewLinear[F]("prop.in", 6+6*cfg.Fourier, d, true, rng),
		Empty: nn.NewParam[F]("prop.empty", 1, d),
		LN:    nn.NewLayerNorm[F]("prop.ln", d),
	}
	for i := range e.Empty.Data() {
		e.Empty.Data()[i] = F(rng.NormFloat64())
	}
	return e
}

// Params lists the proposal encoder's parameters.
func (e *ProposalEncoder[F]) Params() []*nn.Param[F] {
	return append(append(e.In.Params(), e.Empty), e.LN.Params()...)
}

// Forward embeds B proposals (each ProposalRows output, at most J rows) into
// (B, J, D), kept for Backward.
func (e *ProposalEncoder[F]) Forward(props [][]float32) (*tensor.Dense, error) {
	B, J, D := len(props), e.Cfg.Proposal, e.Cfg.DModel
	e.B, e.count = B, make([]int, B)
	rows := make([]float32, B*J*proposalWidth)
	for b, p := range props {
		if len(p)%proposalWidth != 0 || len(p) > J*proposalWidth {
			return nil, fmt.Errorf("rigmodel: proposal of %d floats, want rows of %d and at most %d joints", len(p), proposalWidth, J)
		}
		e.count[b] = len(p) / proposalWidth
		copy(rows[b*J*proposalWidth:], p)
	}
	h := engine.Data[F](e.In.Forward(engine.FromSlice(features[F](rows, B*J, e.Cfg.Fourier), B, J, 6+6*e.Cfg.Fourier)))
	x := make([]F, B*J*D)
	copy(x, h)
	for b := 0; b < B; b++ {
		for j := e.count[b]; j < J; j++ {
			copy(x[(b*J+j)*D:(b*J+j+1)*D], e.Empty.Data())
		}
	}
	return e.LN.Forward(engine.FromSlice(x, B, J, D)), nil
}

// Backward takes d loss / d rows (B, J, D) and accumulates the parameter gradients.
func (e *ProposalEncoder[F]) Backward(dy *tensor.Dense) {
	B, J, D := e.B, e.Cfg.Proposal, e.Cfg.DModel
	dx := append([]F(nil), engine.Data[F](e.LN.Backward(dy))...)
	g := e.Empty.GradData()
	for b := 0; b < B; b++ {
		for j := e.count[b]; j < J; j++ {
			row := dx[(b*J+j)*D : (b*J+j+1)*D]
			for i, v := range row {
				g[i] += v
				row[i] = 0
			}
		}
	}
	e.In.Backward(engine.FromSlice(dx, B, J, D))
}

// concatRows joins (B, L, D) and (B, J, D) along the middle axis.
func concatRows[F nn.Float](a []F, L int, b []F, J, B, D int) []F {
	out := make([]F, 0, B*(L+J)*D)
	for i := 0; i < B; i++ {
		out = append(out, a[i*L*D:(i+1)*L*D]...)
		out = append(out, b[i*J*D:(i+1)*J*D]...)
	}
	return out
}

// splitRows is concatRows's inverse for gradients.
func splitRows[F nn.Float](m []F, L, J, B, D int) (a, b []F) {
	a, b = make([]F, 0, B*L*D), make([]F, 0, B*J*D)
	for i := 0; i < B; i++ {
		row := m[i*(L+J)*D : (i+1)*(L+J)*D]
		a = append(a, row[:L*D]...)
		b = append(b, row[L*D:]...)
	}
	return a, b
}
