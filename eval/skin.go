package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/skinning"
)

// The skin task (`rig eval --task skin`): skin methods on the artist's skeletons,
// their weights scored against the artist's by the METRICS.md skin metrics, with the
// influence leakage across parts beside them; skin_report.go summarizes and renders
// the report.

// SkinMethod computes weights for a character's mesh and skeleton (its own skin, if
// any, is ignored). It must keep the skeleton, joint names and vertex positions.
type SkinMethod func(c *character.Character) (*character.Skin, error)

// GroundTruthMethod names the artist's own weights in a skin report: their leakage
// is measured beside the methods'.
const GroundTruthMethod = "ground truth"

// SkinOptions say what the skin task scores and how.
type SkinOptions struct {
	// Methods are the methods to score, in report order; each is in Skins or in
	// External.
	Methods []string
	Skins   map[string]SkinMethod
	// External maps a method name to a folder of weights another tool wrote
	// (external.go).
	External map[string]string
	// Leak measures influence leakage across parts (one extra geodesic field per
	// asset).
	Leak bool
	// KeepIdle leaves the joints the artist's skin gives no weight (a floor root
	// between the feet, an armature node) without weight in every method's skin,
	// as `rig skin --keep-idle` does with a rigged input (skinning.KeepIdle).
	// Without it a floor root's bones, which run up between the legs, take the
	// inner thighs under geodesic and heat weights, and every method is charged
	// for what the product does not do.
	KeepIdle bool
	Seed     int64 // seed of the deformation poses
	Workers  int
	Progress io.Writer
}

// SkinResult is one method on one asset.
type SkinResult struct {
	File     string               `json:"file"`
	Category string               `json:"category,omitempty"`
	Method   string               `json:"method"`
	Error    string               `json:"error,omitempty"`
	Seconds  float64              `json:"seconds"`
	Metrics  *metrics.SkinResult  `json:"metrics,omitempty"`
	Leak     *skinning.LeakReport `json:"leak,omitempty"`
	// Joints scores the vertices near the joints (skin_joints.go).
	Joints *JointRegionResult `json:"joints,omitempty"`
}

// SkinReport is the skin task's report: every result, and once summarized
// (Summarize) the means per method and split and the paired comparisons.
type SkinReport struct {
	Task string `json:"task"`
	Seed int64  `json:"seed"`
	// KeepIdle says whether the methods' skins left the artist's idle joints
	// without weight (SkinOptions.KeepIdle).
	KeepIdle  bool          `json:"keep_idle"`
	Methods   []string      `json:"methods"`
	Summaries []SkinSummary `json:"summaries"`
	Paired    []SkinPaired  `json:"paired,omitempty"`
	Results   []SkinResult  `json:"results"`
}

// ScoreSkins scores every method on every file, opt.Workers files at a time.
func ScoreSkins(files []File, opt SkinOptions) *SkinReport {
	results := make([][]SkinResult, len(files))
	bar := progress.New(opt.Progress, "eval skin", len(files))
	forEach(len(files), opt.Workers, func(i int) {
		results[i] = scoreSkinAsset(files[i], opt)
		bar.Add(1, 0)
	})
	bar.Finish()

	rep := &SkinReport{Task: "skin", Seed: opt.Seed, KeepIdle: opt.KeepIdle, Methods: opt.Methods}
	for _, r := range results {
		rep.Results = append(rep.Results, r...)
	}
	return rep
}

// scoreSkinAsset scores every method on one asset (plus ground truth's own leakage).
func scoreSkinAsset(f File, opt SkinOptions) []SkinResult {
	fail := func(m string, err error) SkinResult {
		return SkinResult{File: f.Path, Category: f.Category, Method: m, Error: err.Error()}
	}
	var out []SkinResult
	gt, _, err := assets.Load(f.Path, assets.Options{})
	if err == nil && !gt.Rigged() {
		err = fmt.Errorf("%s: no skeleton or skin", f.Path)
	}
	if err != nil {
		for _, m := range opt.Methods {
			out = append(out, fail(m, err))
		}
		return out
	}
	var field *skinning.Field
	if opt.Leak {
		field, _ = skinning.NewField(gt, skinning.FieldOptions{Resolution: skinning.DefaultMaxResolution, Cutoff: -1, Workers: 1})
	}
	probe := newJointProbe(gt, opt.Seed)
	var idle map[string]bool
	if opt.KeepIdle {
		idle = skinning.IdleJoints(gt)
	}
	for _, m := range opt.Methods {
		var w *character.Skin // on gt's vertices and joints
		var secs float64
		if dir, ok := opt.External[m]; ok {
			w, secs, err = externalSkin(gt, externalSkinPath(dir, f))
		} else {
			w, secs, err = predictSkin(gt, idleSkin(opt.Skins[m], idle))
		}
		var res metrics.SkinResult
		if err == nil {
			res, err = metrics.SkinMetrics(gt, w, opt.Seed)
		}
		if err != nil {
			out = append(out, fail(m, err))
			continue
		}
		r := SkinResult{File: f.Path, Category: f.Category, Method: m, Seconds: secs, Metrics: &res}
		if probe != nil {
			r.Joints = probe.score(gt, w)
		}
		if field != nil {
			l := field.Leakage(w)
			r.Leak = &l
		}
		out = append(out, r)
	}
	if field != nil {
		l := field.Leakage(gt.Skin)
		out = append(out, SkinResult{File: f.Path, Category: f.Category, Method: GroundTruthMethod, Leak: &l})
	}
	return out
}

// predictSkin runs a method on gt without its skin and expresses the weights on gt's
// vertices and joints (metrics.MatchSkin), with the method's time.
func predictSkin(gt *character.Character, method SkinMethod) (*character.Skin, float64, error) {
	in := gt.Clone()
	in.Skin = nil
	t0 := time.Now()
	skin, err := method(in)
	secs := time.Since(t0).Seconds()
	if err != nil {
		return nil, secs, err
	}
	pred := gt.Clone()
	pred.Skin = skin
	w, err := metrics.MatchSkin(gt, pred)
	return w, secs, err
}

// JSON encodes the report, indented.
func (rep *SkinReport) JSON() ([]byte, error) {
	js, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return nil, fmt.Errorf("eval: encode report: %w", err)
	}
	return js, nil
}
