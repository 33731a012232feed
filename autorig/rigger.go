package autorig

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"time"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/sampler"

	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"gorgonia.org/tensor"
)

// ModelRigger rigs meshes with the TokenRig model: it samples token streams, decodes
// each into a rig (sampler.Generator), scores them with the rewards and keeps the
// best. A rig that fails validity or scores below Floor is replaced by a fallback,
// and RigInfo says which method produced the final rig:
//
//   - "tokenrig": skeleton and skin both from the model's tokens;
//   - "tokenrig-skeleton+geodesic": the model's skeleton with geodesic skinning
//     (SkinFromBind, or its skin decode failed); "+heat" with Bind set to HeatSkin;
//   - "classical-skeleton+tokens": the classical skeleton with the model's skin
//     tokens for it (a model that writes skin tokens, when that scores at least
//     the classical rig);
//   - "classical-skeleton+geodesic" ("+heat"): no usable model rig (see
//     RigInfo.Fallback).
type ModelRigger struct {
	sampler.Generator
	// Draw says how many streams are drawn and how (Generator.Streams).
	sampler.Draw
	// Floor is the combined reward score below which the model's rig is replaced.
	Floor float64
	// CompareClassical also builds the classical rig and keeps the model's rig
	// unless the classical one scores higher (the report says which, with both
	// scores).
	CompareClassical bool
	// Anatomy is passed to the classical rig (ClassicalRigger.Anatomy); when set,
	// the model's skeletons are named after the anatomical template fitted on the
	// mesh's classical skeleton, rooted at its root (Hips) and oriented
	// (anatomy.NameFromTemplate), and RigInfo reports the fit and the naming.
	Anatomy *anatomy.Options
}

// A model that reads a proposal skeleton (rigmodel.Config.Proposal) reads the
// mesh's ClassicalProposal whatever Generator.Propose says: it is built once, and
// the classical comparison reuses it.

// DefaultFloor is the combined score under which `rig auto` falls back to the
// classical rig. Artists' rigs in ../shared/data score about 0.7-0.8; streams from an
// untrained model score 0.1-0.3 (their sanity reward is 0).
const DefaultFloor = 0.35

// Rig implements Rigger. The phases: encode the shape and prepare the scoring
// (begin), sample, decode and score the streams (sampleBest), then keep the best
// sample or fall back to, or compare with, the classical rig (settle).
func (r *ModelRigger) Rig(c *character.Character) (*character.Character, *RigInfo, error) {
	run, err := r.begin(c)
	if err != nil {
		return nil, nil, err
	}
	if r.CompareClassical && run.scoring.err == nil {
		r.startClassical(run)
	}
	if err := r.sampleBest(run); err != nil {
		return nil, nil, err
	}
	return r.settle(run)
}

// rigRun is one Rig call: what the model reads of the mesh, the scoring
// preparation, the anatomical fit, the best sample so far, and the report being
// filled.
type rigRun struct {
	c       *character.Character
	rng     *rand.Rand
	cond    condition
	scoring scoringGeometry
	anat    anatomyState
	// classical delivers the classical rig built beside the sampling
	// (startClassical), nil when it is built on demand in settle.
	classical chan classicalRig
	info      *RigInfo
	t         time.Time
	// best is the best sample; reasons say why others failed.
	best    candidate
	reasons []string
}

// condition is what the model reads of a run's mesh: its normalization, its shape
// latents, the region its joints are sampled in, and reeb, the mesh's
// ClassicalProposal when the model reads it or Anatomy is set.
type condition struct {
	norm   character.Normalization
	lat    *tensor.Dense
	region *sampler.Region
	reeb   *character.Skeleton
}

// scoringGeometry is the mesh's prepared scoring geometry, or why it could not be
// prepared.
type scoringGeometry struct {
	prep *rewards.Prepared
	err  error
}

// anatomyState is the anatomical skeleton fitted on the run's reeb (nil without
// Anatomy or when the fit fails, err says why), with its report; future delivers
// them while the fit runs beside the encoding and sampling, and done says waitFit
// has copied them here.
type anatomyState struct {
	future *fitFuture
	done   bool
	fitted *character.Skeleton
	rep    *anatomy.Report
	err    error
}

// candidate is a decoded sample: its rig, reward report, score, method and the
// naming its joints took.
type candidate struct {
	rig    *character.Character
	rep    *rewards.Report
	score  float64
	method string
	naming *anatomy.Naming
}

// lap adds the time since the last lap to a stage.
func (run *rigRun) lap(stage string) {
	run.info.TimingsMS[stage] += ms(time.Since(run.t))
	run.t = time.Now()
}

// begin encodes the shape and prepares the scoring geometry; the region's
// voxelization and, with Anatomy, the anatomical fit run beside them (2 cores):
// "region" times only the wait for the region, "anatomy" the wait for the fit
// (waitFit, before the first decode).
func (r *ModelRigger) begin(c *character.Character) (*rigRun, error) {
	run := &rigRun{c: c, info: &RigInfo{TimingsMS: map[string]float64{}}, t: time.Now(), best: candidate{score: math.Inf(-1)}}
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	run.cond.norm = norm
	gen := r.Generator
	gen.Propose = ClassicalProposal
	gen, run.cond.reeb = gen.WithProposal(&c.Mesh)
	regionCh := make(chan regionResult, 1)
	go func() {
		var res regionResult
		if err := workgroup.Recover(func() { res.region = gen.SampleRegion(&nm, norm, run.cond.reeb) }); err != nil {
			res.err = fmt.Errorf("joint region: panic: %w", err)
		}
		regionCh <- res
	}()
	if r.Anatomy != nil {
		run.anat.future = &fitFuture{done: make(chan struct{})}
		go func(f *fitFuture, reeb *character.Skeleton, opt anatomy.Options) {
			defer close(f.done)
			if err := workgroup.Recover(func() { f.anatomyFit = fitAnatomy(&c.Mesh, reeb, opt) }); err != nil {
				f.anatomyFit = anatomyFit{err: fmt.Errorf("anatomical fit: panic: %w", err)}
			}
		}(run.anat.future, run.cond.reeb, r.Anatomy.ForCharacter(c))
	}
	run.rng = rand.New(rand.NewSource(r.Seed))
	lat, err := gen.EncodeMesh(&c.Mesh, &nm, norm, run.rng)
	if err != nil {
		<-regionCh
		run.waitFit()
		return nil, err
	}
	run.cond.lat = lat
	run.lap("encode")
	run.scoring.prep, run.scoring.err = rewards.Prepare(&c.Mesh, rewards.Options{})
	run.lap("prepare_score")
	reg := <-regionCh
	run.lap("region")
	if reg.err != nil {
		run.waitFit()
		return nil, reg.err
	}
	run.cond.region = reg.region
	return run, nil
}

// regionResult is the joint region voxelized beside the encoding, or the panic
// that stopped it.
type regionResult struct {
	region *sampler.Region
	err    error
}

// anatomyFit is the anatomical template fitted on a mesh's classical skeleton
// (reeb), or why there is none.
type anatomyFit struct {
	reeb, fitted *character.Skeleton
	rep          *anatomy.Report
	err          error
}

// fitAnatomy fits the anatomical template on the mesh's classical skeleton reeb,
// built here when the model does not read it, for naming the model's skeletons.
func fitAnatomy(m *character.Mesh, reeb *character.Skeleton, opt anatomy.Options) anatomyFit {
	if reeb == nil {
		var err error
		if reeb, err = ClassicalProposal(m); err != nil {
			return anatomyFit{err: err}
		}
	}
	f := anatomyFit{reeb: reeb}
	f.fitted, f.rep, f.err = anatomy.Fit(m, reeb, opt)
	return f
}

// fitFuture is an anatomical fit being made on another goroutine: done closes
// when anatomyFit is set, so that the sampling and the classical rig can both
// wait for it.
type fitFuture struct {
	anatomyFit
	done chan struct{}
}

// wait returns the fit once it is made.
func (f *fitFuture) wait() anatomyFit {
	<-f.done
	return f.anatomyFit
}

// waitFit waits for the anatomical fit begun beside the encoding, if any.
func (run *rigRun) waitFit() {
	if run.anat.future == nil || run.anat.done {
		return
	}
	run.anat.done = true
	f := run.anat.future.wait()
	if run.cond.reeb == nil {
		run.cond.reeb = f.reeb
	}
	run.anat.fitted, run.anat.rep, run.anat.err = f.fitted, f.rep, f.err
	run.lap("anatomy")
}

// anatomical gives a decoded rig's skeleton the fitted template's names and root
// (its skin renumbered to match), or, when there is no fitted template, orients
// it only, so that bones point at their children in the written file
// (docs/naming.md).
func (run *rigRun) anatomical(cand *character.Character, opt anatomy.Options) (*anatomy.Naming, error) {
	if run.anat.fitted == nil {
		cand.Skeleton = anatomy.OrientSkeleton(cand.Skeleton, opt)
		return nil, nil
	}
	named, err := anatomy.NameFromTemplate(cand.Skeleton, run.anat.fitted, &run.c.Mesh, anatomy.Options{Up: run.anat.rep.Up, World: run.anat.rep.World})
	if err != nil {
		return nil, err
	}
	cand.Skeleton, cand.Skin = named.Skeleton, named.Skin(cand.Skin)
	return &named.Naming, nil
}

// sampleBest draws the samples (Generator.Streams), then decodes, checks and scores each,
// keeping the best. A token rig under the floor is also tried with the binding's
// weights on the same skeleton.
func (r *ModelRigger) sampleBest(run *rigRun) error {
	g0 := time.Now()
	streams, err := r.Streams(run.cond.lat, run.cond.region, run.cond.reeb, run.cond.norm, r.Draw, run.rng)
	genTime := time.Since(g0)
	if err != nil {
		return err
	}
	run.lap("generate")
	run.waitFit()
	info := run.info
	if r.Votes > 1 {
		info.Votes = r.Votes
	}
	written := 0
	for s, smp := range streams {
		written += len(smp.Tokens)
		info.Samples++
		cand, method, err := r.Decode(run.c, run.cond.norm, smp.Tokens, run.cond.lat, run.rng)
		run.lap("decode")
		var naming *anatomy.Naming
		if err == nil && r.Anatomy != nil {
			naming, err = run.anatomical(cand, r.Anatomy.ForCharacter(run.c))
			run.lap("naming")
		}
		if err == nil {
			err = sampler.CheckRig(cand)
		}
		if err != nil {
			run.reasons = append(run.reasons, fmt.Sprintf("sample %d: %v", s, err))
			info.SampleScores = append(info.SampleScores, 0)
			continue
		}
		score, rep := scoreWith(run.scoring.prep, run.scoring.err, cand)
		run.lap("score")
		if method == "tokenrig" && score < r.Floor {
			// The skin tokens may be worse than the skeleton they belong to: try the
			// same skeleton with the binding's weights and keep the better.
			bind, name := r.BindSkin()
			if alt, err := withSkin(cand, bind); err == nil {
				if s2, rep2 := scoreWith(run.scoring.prep, run.scoring.err, alt); s2 > score {
					cand, method, score, rep = alt, "tokenrig-skeleton+"+name, s2, rep2
				}
			}
			run.lap("decode_bind")
		}
		info.SampleScores = append(info.SampleScores, score)
		if score > run.best.score {
			run.best.rig, run.best.rep, run.best.score, run.best.method, run.best.naming = cand, rep, score, method, naming
			info.Tokens = len(smp.Tokens)
		}
	}
	if genTime > 0 {
		info.TokensPerSecond = float64(written) / genTime.Seconds()
	}
	return nil
}

// settle keeps the best sample, or builds the classical rig when no sample is
// usable, the best is under the floor, or CompareClassical asks for the comparison,
// and keeps whichever scores higher.
func (r *ModelRigger) settle(run *rigRun) (*character.Character, *RigInfo, error) {
	info := run.info
	switch {
	case run.best.rig == nil:
		info.Fallback = "no sampled stream gave a valid rig: " + strings.Join(run.reasons, "; ")
	case run.scoring.err == nil && run.best.score < r.Floor:
		info.Fallback = fmt.Sprintf("best sample scored %.3f, under the floor %.3f", run.best.score, r.Floor)
	case !r.CompareClassical || run.scoring.err != nil:
		return r.keep(run)
	}
	run.t = time.Now()
	cl := r.classicalResult(run)
	run.lap("classical_wait")
	if cl.err != nil {
		if info.Fallback == "" { // the model's rig passed the floor: keep it
			return r.keep(run)
		}
		return nil, nil, fmt.Errorf("%s; classical fallback: %w", info.Fallback, cl.err)
	}
	out, cinfo, cscore, crep := cl.out, cl.info, cl.score, cl.rep
	for k, v := range cinfo.TimingsMS {
		info.TimingsMS["classical_"+k] = v
	}
	info.ClassicalScore = &cscore
	if cl.tokens != nil {
		info.ClassicalTokensScore = &cl.tokensScore
		if cl.tokensScore >= cscore {
			out, crep, cscore, cinfo.Method = cl.tokens, cl.tokensRep, cl.tokensScore, "classical-skeleton+tokens"
		}
	}
	if modelWins(run.best.rig != nil, run.scoring.err == nil, run.best.score, cscore) {
		info.Fallback = ""
		return r.keep(run)
	}
	if info.Fallback == "" {
		info.Fallback = fmt.Sprintf("the classical rig scored %.3f, the best sample %.3f", cscore, run.best.score)
	}
	info.Method, info.Anatomy = cinfo.Method, cinfo.Anatomy
	if crep != nil {
		info.Score, info.Rewards = &crep.Score, crep
	}
	return out, info, nil
}

// modelWins is the honest choice between the model's best rig and the classical
// one: the model's stays whenever it exists, could be scored, and scores at least
// the classical rig's, even when both are under the floor.
func modelWins(haveBest, scored bool, bestScore, classicalScore float64) bool {
	return haveBest && scored && bestScore >= classicalScore
}

// keep returns the model's best rig with its report, and the anatomical fit its
// names come from.
func (r *ModelRigger) keep(run *rigRun) (*character.Character, *RigInfo, error) {
	info := run.info
	info.Method = run.best.method
	if rep := run.best.rep; rep != nil {
		info.Score, info.Rewards = &rep.Score, rep
	}
	info.Anatomy, info.Naming = run.anat.rep, run.best.naming
	if run.anat.err != nil {
		info.Warnings = append(info.Warnings, fmt.Sprintf("no anatomical template (%v): the joints keep generated names", run.anat.err))
	}
	return run.best.rig, info, nil
}

// scoreWith scores a rig on the prepared mesh (0 when the mesh cannot be scored).
func scoreWith(prep *rewards.Prepared, perr error, c *character.Character) (float64, *rewards.Report) {
	if perr != nil {
		return 0, nil
	}
	rep, err := prep.Score(c, rewards.Options{Motion: animation.ClipPoses})
	if err != nil {
		return 0, nil
	}
	return rep.Score, rep
}

// withSkin returns a copy of a rig with the weights bind gives its skeleton.
func withSkin(c *character.Character, bind classical.Skinner) (*character.Character, error) {
	out := *c
	skin, err := bind(&out)
	if err != nil {
		return nil, err
	}
	out.Skin = skin
	if err := sampler.CheckRig(&out); err != nil {
		return nil, err
	}
	return &out, nil
}
