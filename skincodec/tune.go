package skincodec

import (
	"context"
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/skinning"
)

// DecodeSetting is one choice of the decode settings a checkpoint is exported
// with: they turn the decoder's probabilities into sparse weights without
// changing the network, so they are tuned after training, on training files.
type DecodeSetting struct {
	Sharpen, OddsPower, Threshold, SnapShare float64
}

// TuneThresholds are the pruning thresholds a sweep tries by default.
var TuneThresholds = []float64{0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5}

// DecodeGrid is every combination of the given values.
func DecodeGrid(sharpen, odds, thresholds, snap []float64) []DecodeSetting {
	var out []DecodeSetting
	for _, g := range sharpen {
		for _, o := range odds {
			for _, th := range thresholds {
				for _, sn := range snap {
					out = append(out, DecodeSetting{g, o, th, sn})
				}
			}
		}
	}
	return out
}

// DecodeSweep scores decode settings on characters: each character is encoded and
// its probabilities computed once, then every setting turns them into weights.
type DecodeSweep struct {
	Settings []DecodeSetting
	sums     []metrics.SkinResult
	floor    metrics.SkinResult
	n        int
}

// Add scores every setting on c (world space) with tok, and the rigid floor. opt
// steers the encoding (its code search and mining) and the decoder runs; the
// settings swept replace its DecodeSettings.
func (s *DecodeSweep) Add(tok *SkinTokenizer, c *character.Character, opt Options) error {
	if s.sums == nil {
		s.sums = make([]metrics.SkinResult, len(s.Settings))
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	codes, err := tok.EncodeAllWith(nc, opt)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	probs, err := tok.probabilitiesWith(context.Background(), nc, nc.Skeleton, [][][]int{codes}, opt)
	if err != nil {
		return fmt.Errorf("probabilities: %w", err)
	}
	fr, err := metrics.SkinMetrics(c, skinning.Rigid(c), 1)
	if err != nil {
		return fmt.Errorf("score rigid floor: %w", err)
	}
	results := make([]metrics.SkinResult, len(s.Settings))
	for k, st := range s.Settings {
		p := append([]float32(nil), probs...)
		sharpenProbabilities(p, st.Sharpen, st.OddsPower)
		skin := skinFromProbabilities(p, c.Skeleton.NumJoints(), tok.MaxInfluences, st.Threshold)
		SnapPieces(&nc.Mesh, skin, st.SnapShare)
		if results[k], err = metrics.SkinMetrics(c, skin, 1); err != nil {
			return fmt.Errorf("score %+v: %w", st, err)
		}
	}
	sumSkin(&s.floor, fr)
	for k := range results {
		sumSkin(&s.sums[k], results[k])
	}
	s.n++
	return nil
}

// Mean returns the mean result of setting k over the characters added, and the
// rigid floor's.
func (s *DecodeSweep) Mean(k int) (setting, floor metrics.SkinResult) {
	n := float64(max(s.n, 1))
	scale := func(r metrics.SkinResult) metrics.SkinResult {
		return metrics.SkinResult{L1: r.L1 / n, Precision: r.Precision / n, Recall: r.Recall / n, DeformMean: r.DeformMean / n, Orphans: r.Orphans}
	}
	return scale(s.sums[k]), scale(s.floor)
}

// best returns the index of the setting with the lowest mean deformation error.
func (s *DecodeSweep) best() int {
	best := 0
	for k := range s.sums {
		if s.sums[k].DeformMean < s.sums[best].DeformMean {
			best = k
		}
	}
	return best
}

// Markdown is a table with a row per setting and the rigid floor first.
func (s *DecodeSweep) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Decode settings on %d training files (never the held-out split).\n\n", s.n)
	b.WriteString("| sharpen | odds | threshold | snap | deformation ×100 | L1 | precision | recall |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	if len(s.Settings) == 0 || s.n == 0 {
		return b.String()
	}
	_, fl := s.Mean(0)
	fmt.Fprintf(&b, "| rigid floor | | | | %.3f | %.3f | %.3f | %.3f |\n", fl.DeformMean, fl.L1, fl.Precision, fl.Recall)
	best := s.best()
	for k, st := range s.Settings {
		r, _ := s.Mean(k)
		mark := ""
		if k == best {
			mark = " (best)"
		}
		fmt.Fprintf(&b, "| %.2g | %.2g | %.2f%s | %.2g | %.3f | %.3f | %.3f | %.3f |\n", st.Sharpen, st.OddsPower, st.Threshold, mark, st.SnapShare, r.DeformMean, r.L1, r.Precision, r.Recall)
	}
	return b.String()
}
