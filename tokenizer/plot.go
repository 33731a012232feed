package tokenizer

import (
	"bytes"
	"fmt"

	"github.com/rigkit/rigkit/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotLoss writes the training and validation loss curves of st as a PNG.
func PlotLoss(path string, st *TrainState) error {
	p := plot.New()
	p.Title.Text = "skin tokenizer (FSQ-CVAE)"
	p.X.Label.Text = "step"
	p.Y.Label.Text = "loss (weighted BCE + L1)"
	xy := func(steps []int, vals []float64) plotter.XYs {
		pts := make(plotter.XYs, 0, len(vals))
		for i, v := range vals {
			pts = append(pts, plotter.XY{X: float64(steps[i]), Y: v})
		}
		return pts
	}
	var args []any
	if len(st.TrainLoss) > 0 {
		args = append(args, "train", xy(st.TrainStep, st.TrainLoss))
	}
	if len(st.ValLoss) > 0 {
		args = append(args, "validation", xy(st.ValStep, st.ValLoss))
	}
	if len(args) == 0 {
		return nil
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	w, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}
