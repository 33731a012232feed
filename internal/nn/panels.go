package nn

import (
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
)

// panelMaxRows is the most rows a decoding step's linear layer computes with
// fastmath.PanelRows; more go to the engine's GEMM. On one core, a 128 → 384
// layer as an OpenBLAS GEMM, which packs the whole weight on every call, against
// panels packed once: 12 against 3.5 µs for one row, 13 against 4.1 for four (a
// vote), 17 against 8.2 for eight (a skin's streams), 44 against 33 for 32
// (`go test ./internal/nn -run XXX -bench BenchmarkStepLinear`).
const panelMaxRows = 32

// stepPanels holds the weights of a decoder's block layers packed for
// fastmath.PanelRows, once per decoder (NewDecoder; a fork shares them). They
// are read only: a model trained further is packed again by its next decoder.
type stepPanels[F Float] struct {
	packed map[*Linear[F]][]float32
}

// newStepPanels packs the step-mode linear layers of m's blocks: self-attention's
// QKV and output projections, cross-attention's query and output projections,
// and the MLP's two layers. A float64 model, or one on an engine other than the
// CPU's (CUDA, which takes the larger products), gets nil and steps by GEMM.
func newStepPanels[F Float](m *Transformer[F]) *stepPanels[F] {
	if _, cpu := m.eng.(*engine.CPU); !cpu {
		return nil
	}
	sp := &stepPanels[F]{packed: map[*Linear[F]][]float32{}}
	for _, b := range m.Blocks {
		layers := []*Linear[F]{b.Attn.QKV, b.Attn.Proj, b.MLP.Up, b.MLP.Down}
		if b.Cross != nil {
			layers = append(layers, b.Cross.Q, b.Cross.Proj)
		}
		for _, l := range layers {
			w, ok := any(l.Weight.w).([]float32)
			if !ok {
				return nil
			}
			sp.packed[l] = fastmath.PackPanels(w, l.Out, l.In)
		}
	}
	return sp
}

// apply sets y (n, Out) to l's output for x (n, In): on l's packed panels when
// there are at most panelMaxRows rows, else (or without panels) by l.apply on e.
// Both sum each output over the inputs and then add the bias.
func (sp *stepPanels[F]) apply(l *Linear[F], e engine.Engine, x []F, n int, y []F) {
	var panels []float32
	if sp != nil && n <= panelMaxRows {
		panels = sp.packed[l]
	}
	if panels == nil {
		l.apply(e, x, n, y)
		return
	}
	y32 := any(y).([]float32)
	fastmath.PanelRows(any(x).([]float32), n, l.In, panels, l.Out, y32)
	if l.Bias != nil {
		fastmath.AddRows(y32[:n*l.Out], any(l.Bias.w).([]float32))
	}
}
