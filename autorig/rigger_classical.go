package autorig

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/rewards"
	"gorgonia.org/tensor"
)

// classicalRig is the classical rig of a ModelRigger run and its score, and, for a
// model that writes skin tokens, the same skeleton skinned by the model's tokens
// (tokens, nil when there is none) and that rig's score.
type classicalRig struct {
	out         *character.Character
	info        *RigInfo
	err         error
	score       float64
	rep         *rewards.Report
	tokens      *character.Character
	tokensScore float64
	tokensRep   *rewards.Report
}

// classicalInputs is what the classical rig reads of a run: the mesh, its
// classical skeleton (nil: built when needed), the anatomical fit being made (nil
// without Anatomy), the prepared scoring geometry (nil: unscored) and the shape
// latents the model's skin tokens are written from.
type classicalInputs struct {
	c    *character.Character
	reeb *character.Skeleton
	fit  *fitFuture
	prep *rewards.Prepared
	lat  *tensor.Dense
}

func (run *rigRun) classicalInputs() classicalInputs {
	return classicalInputs{c: run.c, reeb: run.cond.reeb, fit: run.anat.future, prep: run.scoring.prep, lat: run.cond.lat}
}

// startClassical builds and scores the classical rig on another goroutine while
// the model samples, decodes and scores its streams. It reads only what
// classicalInputs holds, which the sampling does not change, and decodes on its own
// KV cache, so on two cores the comparison costs little wall time.
func (r *ModelRigger) startClassical(run *rigRun) {
	ch := make(chan classicalRig, 1)
	run.classical = ch
	in := run.classicalInputs()
	go func() {
		t := time.Now()
		var res classicalRig
		if err := workgroup.Recover(func() { res = r.buildClassical(in) }); err != nil {
			res = classicalRig{err: fmt.Errorf("classical rig: panic: %w", err)}
		}
		if res.err == nil {
			res.info.TimingsMS["beside_sampling"] = ms(time.Since(t))
		}
		ch <- res
	}()
}

// classicalResult is the classical rig begun by startClassical, or built now.
func (r *ModelRigger) classicalResult(run *rigRun) classicalRig {
	if run.classical != nil {
		return <-run.classical
	}
	return r.buildClassical(run.classicalInputs())
}

// buildClassical rigs in.c classically, scores the rig, and tries the model's skin
// tokens on its skeleton (withTokenSkin).
func (r *ModelRigger) buildClassical(in classicalInputs) classicalRig {
	bind, name := r.BindSkin()
	cr := ClassicalRigger{Skin: bind, SkinName: name, Anatomy: r.Anatomy, Reeb: in.reeb}
	if in.fit != nil {
		f := in.fit.wait()
		if cr.Reeb == nil {
			cr.Reeb = f.reeb
		}
		cr.Fitted, cr.FitReport = f.fitted, f.rep
	}
	var res classicalRig
	if res.out, res.info, res.err = cr.Rig(in.c); res.err != nil {
		return res
	}
	if res.info.TimingsMS == nil {
		res.info.TimingsMS = map[string]float64{}
	}
	if in.prep == nil {
		return res
	}
	t := time.Now()
	res.score, res.rep = scoreWith(in.prep, nil, res.out)
	res.info.TimingsMS["score"] = ms(time.Since(t))
	r.withTokenSkin(&res, in)
	return res
}

// withTokenSkin skins the classical skeleton with the model's skin tokens
// (SkinWith, the skeleton's tokens as the prompt, on the latents the samples were
// drawn from, its own random source) and scores that rig, when the model writes
// skin tokens.
func (r *ModelRigger) withTokenSkin(res *classicalRig, in classicalInputs) {
	if !r.WritesSkin() || in.lat == nil {
		return
	}
	t := time.Now()
	rng := rand.New(rand.NewSource(r.Seed + 1))
	alt, err := withSkin(res.out, func(c *character.Character) (*character.Skin, error) { return r.SkinWith(c, in.lat, rng) })
	if err != nil {
		res.info.Warnings = append(res.info.Warnings, fmt.Sprintf("skin tokens of the classical skeleton: %v (its skin stays geodesic)", err))
		return
	}
	res.tokensScore, res.tokensRep = scoreWith(in.prep, nil, alt)
	res.tokens = alt
	res.info.TimingsMS["tokens"] = ms(time.Since(t))
}
