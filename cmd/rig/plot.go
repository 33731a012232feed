package main

import (
	"bytes"
	"fmt"

	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/train"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotTokenizerLoss writes the skin tokenizer's training and validation loss curves
// as a PNG. Plotting lives in the command so that no library package pulls in
// gonum/plot.
func plotTokenizerLoss(path string, st *skincodec.TrainState) error {
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
	return savePNG(p, path)
}

// plotModelLosses draws the TokenRig training log's four loss curves as a PNG.
func plotModelLosses(logPath, pngPath string) error {
	rows, err := train.ReadLog(logPath)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("plot %s: empty log", logPath)
	}
	p := plot.New()
	p.Title.Text = "TokenRig training"
	p.X.Label.Text = "step"
	p.Y.Label.Text = "cross-entropy (nats/token)"
	series := []struct {
		name string
		get  func(train.LogRow) float64
	}{
		{"train skeleton", func(r train.LogRow) float64 { return r.TrainSkel }},
		{"val skeleton", func(r train.LogRow) float64 { return r.ValSkel }},
		{"train skin", func(r train.LogRow) float64 { return r.TrainSkin }},
		{"val skin", func(r train.LogRow) float64 { return r.ValSkin }},
	}
	var args []any
	for _, s := range series {
		var pts plotter.XYs
		for _, r := range rows {
			if v := s.get(r); v > 0 {
				pts = append(pts, plotter.XY{X: float64(r.Step), Y: v})
			}
		}
		if len(pts) > 0 {
			args = append(args, s.name, pts)
		}
	}
	if len(args) == 0 {
		return fmt.Errorf("plot %s: no losses", logPath)
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return fmt.Errorf("plot %s: %w", logPath, err)
	}
	return savePNG(p, pngPath)
}

// savePNG draws the plot as an 8×5-inch PNG and writes it to path.
func savePNG(p *plot.Plot, path string) error {
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
