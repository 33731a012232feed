package nn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/internal/atomicfile"
)

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter), with a learning
// rate that warms up linearly for Warmup steps and then follows a cosine down to
// MinLR at TotalSteps. Weight decay applies to matrices and embedding tables
// (parameters of rank ≥ 2), not to biases or norm gains.
type AdamW[F Float] struct {
	LR           float64 // peak learning rate
	MinLR        float64
	Warmup       int
	TotalSteps   int // 0 keeps LR constant after warm-up
	Beta1, Beta2 float64
	Eps          float64
	WeightDecay  float64

	step int
	m, v map[*Param[F]][]F
}

// NewAdamW returns an optimizer with peak rate lr, betas (0.9, 0.95), eps 1e-8 and
// weight decay 0.1, no warm-up and no decay; set the fields to change them.
func NewAdamW[F Float](lr float64) *AdamW[F] {
	return &AdamW[F]{LR: lr, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1,
		m: map[*Param[F]][]F{}, v: map[*Param[F]][]F{}}
}

// Steps is the number of updates taken.
func (o *AdamW[F]) Steps() int { return o.step }

// lrAt is the learning rate of update number step (from 0).
func (o *AdamW[F]) lrAt(step int) float64 {
	if step < o.Warmup {
		return o.LR * float64(step+1) / float64(o.Warmup)
	}
	if o.TotalSteps <= o.Warmup {
		return o.LR
	}
	frac := math.Min(1, float64(step-o.Warmup)/float64(o.TotalSteps-o.Warmup))
	return o.MinLR + 0.5*(o.LR-o.MinLR)*(1+math.Cos(math.Pi*frac))
}

// Step updates params from their gradients (it does not clear them).
func (o *AdamW[F]) Step(params []*Param[F]) {
	lr := o.lrAt(o.step)
	o.step++
	b1, b2 := o.Beta1, o.Beta2
	c1 := 1 - math.Pow(b1, float64(o.step))
	c2 := 1 - math.Pow(b2, float64(o.step))
	for _, p := range params {
		if o.m == nil {
			o.m, o.v = map[*Param[F]][]F{}, map[*Param[F]][]F{}
		}
		m, ok := o.m[p]
		if !ok {
			m, o.v[p] = make([]F, p.Size()), make([]F, p.Size())
			o.m[p] = m
		}
		v := o.v[p]
		decay := 0.0
		if len(p.Value.Shape()) >= 2 {
			decay = o.WeightDecay
		}
		w, g := p.w, p.g
		for i := range w {
			gi := float64(g[i])
			mi := b1*float64(m[i]) + (1-b1)*gi
			vi := b2*float64(v[i]) + (1-b2)*gi*gi
			m[i], v[i] = F(mi), F(vi)
			wi := float64(w[i])
			wi -= lr * (mi/c1/(math.Sqrt(vi/c2)+o.Eps) + decay*wi)
			w[i] = F(wi)
		}
	}
}

// Optimizer state files use the safetensors layout of checkpoints, holding two
// tensors per parameter, "adamw.m.<name>" and "adamw.v.<name>" (the first and second
// moments, in the optimizer's float type), and in __metadata__ "format":
// "rigkit-adamw", "step" (updates taken, decimal) and "hyper" (the hyperparameters
// as JSON, for the record; they are not restored).

const adamFormat = "rigkit-adamw"

// adamHyper is the record of hyperparameters kept in a state file.
type adamHyper struct {
	LR          float64 `json:"lr"`
	MinLR       float64 `json:"min_lr"`
	Warmup      int     `json:"warmup"`
	TotalSteps  int     `json:"total_steps"`
	Beta1       float64 `json:"beta1"`
	Beta2       float64 `json:"beta2"`
	Eps         float64 `json:"eps"`
	WeightDecay float64 `json:"weight_decay"`
}

// stateTensors lists the moment tensors of params, creating zero moments for any
// parameter not stepped yet (Step would start it from zeros too).
func (o *AdamW[F]) stateTensors(params []*Param[F]) []namedTensor[F] {
	if o.m == nil {
		o.m, o.v = map[*Param[F]][]F{}, map[*Param[F]][]F{}
	}
	out := make([]namedTensor[F], 0, 2*len(params))
	for _, p := range params {
		if _, ok := o.m[p]; !ok {
			o.m[p], o.v[p] = make([]F, p.Size()), make([]F, p.Size())
		}
		out = append(out, namedTensor[F]{"adamw.m." + p.Name, p.Shape(), o.m[p]},
			namedTensor[F]{"adamw.v." + p.Name, p.Shape(), o.v[p]})
	}
	return out
}

// saveState writes the optimizer's state for params (their moments and the step
// count) in the safetensors layout, so that loadState followed by further Steps
// continues training exactly as if it had not stopped. params must be the list
// passed to Step, by name; parameters not stepped yet are saved with zero moments.
func (o *AdamW[F]) saveState(w io.Writer, params []*Param[F]) error {
	hj, err := json.Marshal(adamHyper{o.LR, o.MinLR, o.Warmup, o.TotalSteps, o.Beta1, o.Beta2, o.Eps, o.WeightDecay})
	if err != nil {
		return fmt.Errorf("save optimizer state: encode hyperparameters: %w", err)
	}
	meta := map[string]string{"format": adamFormat, "step": strconv.Itoa(o.step), "hyper": string(hj)}
	if err := writeSafetensors(w, o.stateTensors(params), meta); err != nil {
		return fmt.Errorf("save optimizer state: %w", err)
	}
	return nil
}

// loadState restores the moments and step count written by saveState for params
// (matched by name; F32 and F64 files load into either float type). It refuses a
// file that is not an AdamW state, or whose tensors differ from params in names or
// shapes, and then leaves the optimizer unchanged. The hyperparameters (LR, betas,
// schedule, ...) stay as set on o.
func (o *AdamW[F]) loadState(r io.Reader, params []*Param[F]) error {
	m := make(map[*Param[F]][]F, len(params))
	v := make(map[*Param[F]][]F, len(params))
	tensors := make([]namedTensor[F], 0, 2*len(params))
	for _, p := range params {
		m[p], v[p] = make([]F, p.Size()), make([]F, p.Size())
		tensors = append(tensors, namedTensor[F]{"adamw.m." + p.Name, p.Shape(), m[p]},
			namedTensor[F]{"adamw.v." + p.Name, p.Shape(), v[p]})
	}
	meta, err := readSafetensors(r, tensors)
	if err != nil {
		return fmt.Errorf("load optimizer state: %w", err)
	}
	if meta["format"] != adamFormat {
		return fmt.Errorf("load optimizer state: format %q, want %q", meta["format"], adamFormat)
	}
	step, err := strconv.Atoi(meta["step"])
	if err != nil || step < 0 {
		return fmt.Errorf("load optimizer state: bad step count %q", meta["step"])
	}
	for _, x := range v {
		for _, vi := range x {
			if !(vi >= 0) { // also catches NaN
				return fmt.Errorf("load optimizer state: second moment %v is not a non-negative number", vi)
			}
		}
	}
	o.step, o.m, o.v = step, m, v
	return nil
}

// SaveStateFile writes the optimizer state for params to path atomically (see
// saveState); OptimizerStatePath names the file that goes with a checkpoint.
func (o *AdamW[F]) SaveStateFile(path string, params []*Param[F]) error {
	var buf bytes.Buffer
	if err := o.saveState(&buf, params); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// loadStateFile restores the optimizer state for params from path (see loadState).
// A missing file gives an error that satisfies errors.Is(err, fs.ErrNotExist).
func (o *AdamW[F]) loadStateFile(path string, params []*Param[F]) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load optimizer state: %w", err)
	}
	defer f.Close()
	if err := o.loadState(f, params); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// RestoreBeside restores the state saved beside checkpoint (OptimizerStatePath)
// and reports whether there was one. A checkpoint without one is not an error: its
// run restarts the moments, as a run does after --init.
func (o *AdamW[F]) RestoreBeside(checkpoint string, params []*Param[F]) (bool, error) {
	err := o.loadStateFile(OptimizerStatePath(checkpoint), params)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// OptimizerStatePath is the companion file of a checkpoint that holds its optimizer
// state: "run/model.safetensors" gives "run/model.optim.safetensors".
func OptimizerStatePath(checkpoint string) string {
	return strings.TrimSuffix(checkpoint, ".safetensors") + ".optim.safetensors"
}

// ClipGradNorm scales all gradients down so their global L2 norm is at most
// maxNorm, and returns the norm before clipping.
func ClipGradNorm[F Float](params []*Param[F], maxNorm float64) float64 {
	var ss float64
	for _, p := range params {
		for _, g := range p.g {
			ss += float64(g) * float64(g)
		}
	}
	norm := math.Sqrt(ss)
	if norm > maxNorm && norm > 0 {
		s := F(maxNorm / norm)
		for _, p := range params {
			for i := range p.g {
				p.g[i] *= s
			}
		}
	}
	return norm
}
