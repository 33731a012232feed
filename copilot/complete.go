package copilot

import (
	"errors"
	"fmt"
	"math/rand"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/tokens"
	"gorgonia.org/tensor"
)

// Completer completes the skeletons users start on their meshes.
type Completer struct {
	// Model continues the token stream after the given joints; nil leaves the
	// completion to the template.
	Model *sampler.Generator
	// Anatomy chooses the template's kind and up axis (zero: detect both).
	Anatomy anatomy.Options
	// Radius is how near (cube units; the cube is 2 wide) a template joint must
	// be to a joint already there to count as that joint (0: DefaultRadius).
	Radius float64
	// Temperature of the model's continuations (0: greedy, the default).
	Temperature float64
	Seed        int64
}

// DefaultRadius is Completer.Radius by default: a fortieth of the cube, the
// distance at which `rig auto` keeps the model's joints near the proposal
// (sampler.DefaultNearProposal).
const DefaultRadius = 0.05

// Prepared is what a completion reads of one mesh and one partial skeleton, made
// once so that every density is completed from the same continuations.
type Prepared struct {
	c     *character.Character
	given *character.Skeleton
	norm  character.Normalization
	// lat are the model's shape latents (nil without a model), for skin tokens.
	lat      *tensor.Dense
	template templateFit
	points   []continuation
	// warnings say what failed and what filled in for it.
	warnings []string
	radius   float64
}

// templateFit is the anatomical skeleton fitted on the mesh's classical skeleton,
// or that classical skeleton when the fit fails (kind "classical").
type templateFit struct {
	sk   *character.Skeleton
	kind string
	// axes are the up axis and world the template was fitted in.
	axes anatomy.Options
}

// Prepare fits the template on c's mesh and samples the model's continuations
// after the given joints (world frame; nil or empty: nothing given). It fails
// only when neither the template nor the model can complete anything.
func (cp *Completer) Prepare(c *character.Character, given *character.Skeleton) (*Prepared, error) {
	return cp.prepare(c, given, true)
}

// prepare is Prepare; without continue it only reads the mesh (the shape latents
// skin tokens need) and samples no continuation: a completion at a density whose
// continuations add no joint (DetailLow) is the same without them.
func (cp *Completer) prepare(c *character.Character, given *character.Skeleton, continuations bool) (*Prepared, error) {
	if given == nil {
		given = &character.Skeleton{}
	}
	if given.NumJoints() > 0 {
		if err := given.Validate(); err != nil {
			return nil, fmt.Errorf("partial skeleton: %w", err)
		}
	}
	if given.NumJoints() > tokens.MaxJoints {
		return nil, fmt.Errorf("partial skeleton: %d joints, at most %d", given.NumJoints(), tokens.MaxJoints)
	}
	p := &Prepared{c: c, given: given, norm: character.NormalizationOf(c.Mesh)}
	p.radius = cmpOr(cp.Radius, DefaultRadius) / p.norm.Scale
	reeb, err := autorig.ClassicalProposal(&c.Mesh)
	// The template fit and the model's reading of the mesh are independent: they
	// run side by side, and the continuations, which depend on the template's
	// kind, start when both are done.
	var fit workgroup.Group
	var fitWarnings []string
	if err != nil {
		p.warnings = append(p.warnings, fmt.Sprintf("no classical skeleton (%v): no template fills", err))
	} else {
		fit.Go(func() { p.template = fitTemplate(&c.Mesh, reeb, cp.Anatomy.ForCharacter(c), &fitWarnings) })
	}
	var rd *reading
	var readErr error
	if cp.Model != nil {
		rd, readErr = cp.read(p, reeb)
	}
	fit.Wait()
	p.warnings = append(p.warnings, fitWarnings...)
	if cp.Model != nil {
		if readErr == nil && (continuations || given.NumJoints() == 0) {
			readErr = cp.sample(p, rd)
		}
		if readErr != nil {
			p.warnings = append(p.warnings, fmt.Sprintf("the model did not continue the stream (%v): the template fills alone", readErr))
		}
	}
	if p.template.sk == nil && p.points == nil && given.NumJoints() == 0 {
		return nil, errors.New("complete: no model, no template and no given joints")
	}
	return p, nil
}

// fitTemplate fits the anatomical template on the classical skeleton reeb, or
// keeps reeb itself when the fit fails or puts a joint outside the mesh's bounds.
func fitTemplate(m *character.Mesh, reeb *character.Skeleton, opt anatomy.Options, warnings *[]string) templateFit {
	sk, rep, err := anatomy.Fit(m, reeb, opt)
	if err == nil {
		err = withinBounds(m, sk)
	}
	if err != nil {
		*warnings = append(*warnings, fmt.Sprintf("no anatomical template (%v): the classical skeleton fills", err))
		return templateFit{sk: reeb, kind: "classical", axes: opt}
	}
	return templateFit{sk: sk, kind: string(rep.Kind), axes: anatomy.Options{Up: rep.Up, World: rep.World}}
}

// boundsMargin is how far (a share of the mesh's largest extent) a template joint
// may lie outside the mesh's bounding box.
const boundsMargin = 0.05

// withinBounds fails when a joint of sk lies outside m's bounding box by more
// than boundsMargin: a template fitted in a wrong frame.
func withinBounds(m *character.Mesh, sk *character.Skeleton) error {
	lo, hi := m.Bounds()
	ext := hi.Sub(lo)
	pad := boundsMargin * max(ext[0], ext[1], ext[2])
	for j, n := range sk.Names {
		p := sk.Position(j)
		for a := range p {
			if p[a] < lo[a]-pad || p[a] > hi[a]+pad {
				return fmt.Errorf("its joint %s at %v lies outside the mesh", n, p)
			}
		}
	}
	return nil
}

// reading is what the model reads of one mesh for its continuations.
type reading struct {
	gen  sampler.Generator // the model, with the classical skeleton as its proposal
	lat  *tensor.Dense
	norm character.Normalization
	nm   character.Mesh // the normalized mesh
	pts  []point
	// region is where the continuations' joints may go: wherever the mesh is,
	// not only near the proposal.
	region *sampler.Region
	rng    *rand.Rand
}

// read encodes the mesh as the model reads it (the classical skeleton reeb as its
// proposal) into p.lat and lists the points the stream is continued at.
func (cp *Completer) read(p *Prepared, reeb *character.Skeleton) (*reading, error) {
	rd := &reading{gen: *cp.Model, rng: rand.New(rand.NewSource(cp.Seed))}
	rd.gen.Propose = func(*character.Mesh) (*character.Skeleton, error) {
		if reeb == nil {
			return nil, errors.New("no classical skeleton")
		}
		return reeb, nil
	}
	rd.nm, rd.norm = rigmodel.NormalizedMesh(&p.c.Mesh)
	lat, err := rd.gen.EncodeMesh(&p.c.Mesh, &rd.nm, rd.norm, rd.rng)
	if err != nil {
		return nil, err
	}
	p.lat, rd.lat = lat, lat
	if rd.pts, err = continuationPoints(p.given, rd.norm); err != nil {
		return nil, err
	}
	rd.gen.NearProposal = 0
	rd.region = rd.gen.SampleRegion(&rd.nm, rd.norm, nil)
	return rd, nil
}

// sample continues the stream at every point of rd; on a humanoid only at the
// partial's leaves (hands, feet, head: where fingers, toes and end joints go),
// because the model's continuations at its inner joints write second copies of
// the limbs given there (15 held-out characters, docs/model.md).
func (cp *Completer) sample(p *Prepared, rd *reading) error {
	gen, norm := rd.gen, rd.norm
	opt := sampler.SampleOptions{Temperature: cp.Temperature, TopP: 0.95, K: gen.Model.Cfg.K(), MaxJoints: gen.Model.Cfg.MaxJoint,
		Region: rd.region}
	extremitiesOnly := p.template.kind == string(anatomy.Humanoid)
	children := p.given.Children()
	for _, pt := range rd.pts {
		if extremitiesOnly && pt.anchor >= 0 && len(children[pt.anchor]) > 0 {
			continue
		}
		cont, err := continueAt(&gen, rd.lat, pt, opt, norm, rd.rng)
		if err != nil {
			return err
		}
		p.points = append(p.points, cont)
	}
	return nil
}

// Completion is a completed skeleton: the given joints first, exactly as given,
// then the added ones; Report lists both.
type Completion struct {
	Skeleton *character.Skeleton
	Given    int
	Report   *Report
}

// Complete completes the prepared partial at density d: the model's continuations
// cut to d's per-point joints, the template's joints (d's parts) where no joint is
// near, names, pruning to d's joint bound, orientation.
func (p *Prepared) Complete(d Density) (*Completion, error) {
	ng := p.given.NumJoints()
	if ng > d.limit() {
		return nil, fmt.Errorf("the partial skeleton has %d joints, more than --max-joints %d", ng, d.limit())
	}
	b := newMerge(p)
	b.addModel(p.points, d.Detail.ModelJoints())
	if p.template.sk != nil {
		b.addTemplate(forDetail(p.template.sk, d.Detail))
	}
	b.nameExtras()
	keep := prune(b.sk, ng, d.limit())
	sk, sources := b.sk.Select(keep), selectStrings(b.source, keep)
	sk = p.orient(sk)
	rep := p.report(sk, sources, d)
	rep.Pruned = b.sk.NumJoints() - len(keep)
	return &Completion{Skeleton: sk, Given: ng, Report: rep}, nil
}

// orient gives the completed skeleton joint frames (anatomy.OrientSkeleton) and
// gives back the given joints' own matrices where they carry a rotation (a rigged
// partial); positions never change.
func (p *Prepared) orient(sk *character.Skeleton) *character.Skeleton {
	out := anatomy.OrientSkeleton(sk, p.template.axes)
	for j := 0; j < p.given.NumJoints(); j++ {
		if m := p.given.BindWorld[j]; !isTranslation(m) {
			out.BindWorld[j] = m
		}
		out.BindWorld[j][12], out.BindWorld[j][13], out.BindWorld[j][14] = p.given.BindWorld[j][12], p.given.BindWorld[j][13], p.given.BindWorld[j][14]
	}
	return out
}

// selectStrings returns s[idx[0]], s[idx[1]], ...
func selectStrings(s []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

func cmpOr(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}
