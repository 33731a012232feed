package sampler

import (
	"errors"
	"fmt"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/internal/workgroup"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/tokens"
	"gorgonia.org/tensor"
)

// This file turns the model's token streams into rigs: decoding a sampled stream
// (skeleton tokens, then skin codes through a SkinDecoder or weights from Bind),
// skin-only generation for a given skeleton, greedy skeletons, and CheckRig, the
// validity gate every rig passes. The policy that samples, scores and falls back to
// the classical rigger is package autorig.

// SkinMode says where a generated rig's weights come from.
type SkinMode int

const (
	// SkinFromBind: the model writes only the skeleton (a model trained without skin
	// tokens, or a faster run); Generator.Bind skins it.
	SkinFromBind SkinMode = iota
	// SkinFromTokens: the model writes skin tokens after the skeleton and
	// Generator.Skin decodes them; Bind skins a stream whose codes fail to decode.
	SkinFromTokens
)

// Generator generates rigs with the TokenRig model.
type Generator struct {
	Model *rigmodel.Model
	// Skin decodes skin codes into weights; nil means the model writes only the
	// skeleton whatever SkinMode says.
	Skin     SkinDecoder
	SkinMode SkinMode
	// SkinSamples is how many skin-token streams skin decoding draws for one
	// skeleton (the first greedy in skin-only mode, the others at SkinTemperature,
	// top-p 0.95); with more than one, the weights are the mean of their decoded
	// weight fields (meanSkinDecoder), an estimate of the expected weights under the
	// model. 0 or 1: one stream.
	SkinSamples int
	// SkinTemperature is the temperature of the sampled skin streams (0: 1).
	SkinTemperature float64
	// Bind skins skeletons that come without skin tokens; BindName names it in the
	// method ("geodesic", "heat"). nil: GeodesicSkin.
	Bind     classical.Skinner
	BindName string
	// InsideJoints masks joint coordinates outside the dilated mesh volume while
	// sampling (MeshRegion), a shape-conditioned constraint on top of the grammar.
	InsideJoints bool
	Seed         int64
	// Propose builds the proposal skeleton of a model that reads one
	// (rigmodel.Config.Proposal > 0); it must be the function the model was trained with.
	Propose rigmodel.ProposalFunc
	// NearProposal, when positive and the model reads a proposal, narrows the
	// InsideJoints region to within this distance (cube units, the cube is 2 wide)
	// of the proposal's joints and bones: the model edits the proposal locally.
	NearProposal float64
	// Votes, when 2 or more, replaces the greedy skeleton by the consensus of that
	// many sampled ones (voteSkeleton); 0 or 1: greedy.
	Votes int
}

// DefaultNearProposal is `rig auto`'s Generator.NearProposal: joints within 0.05 of
// the proposal's bones (a fortieth of the cube), chosen on held-out CD-J2J (see
// docs/model.md).
const DefaultNearProposal = 0.05

// WithProposal builds mesh's proposal once (nil when the model reads none or it
// cannot be built) and returns a copy of g whose Propose returns it, so that the
// encoding and the sampling region read the same skeleton.
func (g Generator) WithProposal(mesh *character.Mesh) (Generator, *character.Skeleton) {
	if g.Model.Proposal == nil || g.Propose == nil {
		return g, nil
	}
	sk, err := g.Propose(mesh)
	g.Propose = func(*character.Mesh) (*character.Skeleton, error) { return sk, err }
	if err != nil {
		return g, nil
	}
	return g, sk
}

// SampleRegion is the sampling region of a normalized mesh (Region), narrowed to
// NearProposal of the proposal (world frame, mapped into the cube by norm) when set.
func (g *Generator) SampleRegion(nm *character.Mesh, norm character.Normalization, proposal *character.Skeleton) *Region {
	r := g.region(nm)
	if g.NearProposal <= 0 || proposal == nil {
		return r
	}
	return r.near(tokens.SkeletonToCube(proposal, norm), g.NearProposal)
}

// EncodeMesh encodes the condition of a mesh (Condition).
func (g *Generator) EncodeMesh(mesh, nm *character.Mesh, norm character.Normalization, rng *rand.Rand) (*tensor.Dense, error) {
	pts, rows, err := g.Condition(mesh, nm, norm, rng)
	if err != nil {
		return nil, err
	}
	return g.Model.Encode(pts, rows)
}

// Condition returns what the model reads of a mesh: surface points of its
// normalized copy nm and, for a model that reads one, the proposal skeleton of mesh
// (Propose) as rigmodel.ProposalRows. A proposal that cannot be built reads as a
// skeleton without joints.
func (g *Generator) Condition(mesh, nm *character.Mesh, norm character.Normalization, rng *rand.Rand) (pts, rows []float32, err error) {
	pts = rigmodel.SamplePoints(nm, g.Model.Cfg.Points, rng)
	if g.Model.Proposal == nil {
		return pts, nil, nil
	}
	if g.Propose == nil {
		return nil, nil, errors.New("the model reads a proposal skeleton and no proposal function is set")
	}
	return pts, rigmodel.ProposalOf(g.Propose, mesh, norm, g.Model.Cfg.Proposal), nil
}

// WritesSkin reports whether generated streams carry skin tokens that are decoded.
func (g *Generator) WritesSkin() bool { return g.Skin != nil && g.SkinMode == SkinFromTokens }

// region returns the sampling region of a normalized mesh, or nil when
// InsideJoints is off.
func (g *Generator) region(nm *character.Mesh) *Region {
	if !g.InsideJoints {
		return nil
	}
	return MeshRegion(nm)
}

// SkinDecoder turns skin codes into weights: c is normalized into the cube, sk is
// the skeleton in the cube in token order, codes has one row per joint.
// skincodec.SkinTokenizer implements it.
type SkinDecoder interface {
	Decode(c *character.Character, sk *character.Skeleton, codes [][]int) (*character.Skin, error)
}

// DefaultSkinSamples is how many skin-token streams `rig skin --method tokens`
// averages (ModelRigger.SkinSamples).
const DefaultSkinSamples = 8

// meanSkinDecoder is a SkinDecoder that can also decode the mean weight field of
// several code sets for one skeleton (skincodec.SkinTokenizer does).
type meanSkinDecoder interface {
	SkinDecoder
	DecodeMean(c *character.Character, sk *character.Skeleton, codeSets [][][]int) (*character.Skin, error)
}

// BindSkin returns the skinning method for skeletons without skin tokens and its
// name.
func (g *Generator) BindSkin() (classical.Skinner, string) {
	if g.Bind == nil {
		return GeodesicSkin, "geodesic"
	}
	return g.Bind, g.BindName
}

// Decode turns one sampled stream into a rig in c's world frame and names the
// method. When WritesSkin, the stream's skin codes are decoded (decodeSkin: with
// SkinSamples > 1, averaged with more skin streams drawn after the same skeleton
// from the shape latents lat; lat nil decodes exactly the stream's codes).
func (r *Generator) Decode(c *character.Character, norm character.Normalization, stream []int, lat *tensor.Dense, rng *rand.Rand) (*character.Character, string, error) {
	skCube, err := tokens.DecodeSkeleton(stream)
	if err != nil {
		return nil, "", err
	}
	if skCube.NumJoints() < 2 {
		return nil, "", errors.New("the skeleton has a single joint")
	}
	out := c.Clone()
	out.Skeleton, out.Skin, out.Animations = tokens.SkeletonToWorld(skCube, norm), nil, nil
	if r.WritesSkin() {
		skelToks, codes, err := tokens.Split(stream, r.Model.Cfg.K())
		if err == nil {
			cube := norm.Apply(&character.Character{Name: c.Name, Mesh: c.Mesh})
			var skin *character.Skin
			if skin, err = r.decodeSkin(cube, skCube, lat, skelToks, codes, rng); err == nil {
				out.Skin = skin
				return out, "tokenrig", nil
			}
		}
	}
	bind, name := r.BindSkin()
	skin, err := bind(out)
	if err != nil {
		return nil, "", fmt.Errorf("%s skin of the sampled skeleton: %w", name, err)
	}
	out.Skin = skin
	return out, "tokenrig-skeleton+" + name, nil
}

// GeodesicSkin is geodesic voxel binding with default options (skinning).
func GeodesicSkin(c *character.Character) (*character.Skin, error) {
	return skinning.Geodesic(c, skinning.GeodesicOptions{})
}

// HeatSkin is heat-diffusion skinning with default options (skinning).
func HeatSkin(c *character.Character) (*character.Skin, error) {
	return skinning.Heat(c, skinning.HeatOptions{})
}

// SkinOnly keeps c's skeleton and generates only its skin tokens, with the skeleton
// tokens as the prompt (greedy, or the mean of SkinSamples streams), then decodes
// them. The returned skin refers to c's own joint indices.
func (r *Generator) SkinOnly(c *character.Character) (*character.Skin, error) {
	if !r.WritesSkin() {
		return nil, errors.New("skin-only mode needs a model trained on skin tokens and a trained skin tokenizer")
	}
	if c.Skeleton == nil {
		return nil, errors.New("skin-only mode: the character has no skeleton")
	}
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	rng := rand.New(rand.NewSource(r.Seed))
	lat, err := r.EncodeMesh(&c.Mesh, &nm, norm, rng)
	if err != nil {
		return nil, err
	}
	return r.SkinWith(c, lat, rng)
}

// SkinWith is SkinOnly on the shape latents lat of c's mesh (Generator.EncodeMesh),
// so that a caller that already encoded the mesh (rig auto) skins another skeleton
// of it without encoding again. A skeleton longer than one stream holds is written
// window by window (skinwindow.go); a single joint takes every vertex.
func (r *Generator) SkinWith(c *character.Character, lat *tensor.Dense, rng *rand.Rand) (*character.Skin, error) {
	if !r.WritesSkin() || c.Skeleton == nil {
		return nil, errors.New("skin-only mode needs a model trained on skin tokens, a skin tokenizer and a skeleton")
	}
	if c.Skeleton.NumJoints() == 1 {
		return skinning.Rigid(c), nil
	}
	if c.Skeleton.NumJoints() > r.streamJoints() {
		return r.skinWindows(c, lat, r.streamJoints(), rng)
	}
	norm := character.NormalizationOf(c.Mesh)
	prompt, order, err := tokens.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		return nil, err
	}
	// The decoder wants the skeleton in token order, in the cube, at its exact joints.
	skTok := tokens.SkeletonToCube(c.Skeleton, norm).Select(order)
	cube := norm.Apply(&character.Character{Name: c.Name, Mesh: c.Mesh})
	decode := r.decodeLater(cube, skTok)
	codeSets, err := r.skinCodes(lat, prompt, r.skinStreams(), true, rng) // the first stream is greedy
	if err != nil {
		return nil, err
	}
	skin, err := decode(codeSets)
	if err != nil {
		return nil, err
	}
	for _, infl := range skin.Weights {
		for i := range infl {
			infl[i].Joint = order[infl[i].Joint]
		}
	}
	return skin, nil
}

// skinWindows is SkinWith for a skeleton longer than one stream: the codes of
// every joint come from its window of at most capacity joints (windowCodes), and
// the decoder reads the whole skeleton in c's own joint order.
func (r *Generator) skinWindows(c *character.Character, lat *tensor.Dense, capacity int, rng *rand.Rand) (*character.Skin, error) {
	norm := character.NormalizationOf(c.Mesh)
	cube := norm.Apply(&character.Character{Name: c.Name, Mesh: c.Mesh})
	decode := r.decodeLater(cube, tokens.SkeletonToCube(c.Skeleton, norm))
	codeSets, err := r.windowCodes(c.Skeleton, norm, lat, r.skinStreams(), capacity, rng)
	if err != nil {
		return nil, err
	}
	return decode(codeSets)
}

// laterSkinDecoder is a SkinDecoder that can do the part of decoding that does
// not depend on the codes before they exist (skincodec.SkinTokenizer.DecodeLater).
type laterSkinDecoder interface {
	DecodeLater(c *character.Character, sk *character.Skeleton) func(codeSets [][][]int) (*character.Skin, error)
}

// decodeLater starts decoding the skin of cube for skCube (token order, in the
// cube) before its codes are written and returns the function that finishes it
// (decodeSets) once they are. A laterSkinDecoder prepares the mesh and skeleton
// (samples, geodesic features, mesh latents: about a third of a CPU second on a
// 5k-vertex mesh) on another goroutine meanwhile, so that the work overlaps the
// token stream, which keeps one core busy; the skin is the same.
func (r *Generator) decodeLater(cube *character.Character, skCube *character.Skeleton) func(sets [][][]int) (*character.Skin, error) {
	ld, ok := r.Skin.(laterSkinDecoder)
	if !ok {
		return func(sets [][][]int) (*character.Skin, error) { return r.decodeSets(cube, skCube, sets) }
	}
	var g workgroup.Group
	var finish func(codeSets [][][]int) (*character.Skin, error)
	g.Go(func() { finish = ld.DecodeLater(cube, skCube) })
	return func(sets [][][]int) (*character.Skin, error) {
		g.Wait()
		return finish(sets)
	}
}

// decodeSkin decodes the skin codes of one stream for the skeleton skCube (token
// order, in the cube) on the normalized character cube. With SkinSamples > 1 and a
// meanSkinDecoder it first draws SkinSamples-1 more skin streams after the same
// skeleton prompt (BOS · skeleton · SEP; temperature SkinTemperature, top-p 0.95) and
// decodes the mean weight field of all of them.
func (r *Generator) decodeSkin(cube *character.Character, skCube *character.Skeleton, lat *tensor.Dense, prompt []int, codes [][]int, rng *rand.Rand) (*character.Skin, error) {
	sets := [][][]int{codes}
	if n := r.skinStreams(); n > 1 && lat != nil {
		extra, err := r.skinCodes(lat, prompt, n-1, false, rng)
		if err != nil {
			return nil, err
		}
		sets = append(sets, extra...)
	}
	return r.decodeSets(cube, skCube, sets)
}

// skinStreams is how many skin-token streams a skeleton gets: SkinSamples when the
// decoder can average several (meanSkinDecoder), else 1.
func (r *Generator) skinStreams() int {
	if _, mean := r.Skin.(meanSkinDecoder); mean {
		return max(r.SkinSamples, 1)
	}
	return 1
}

// decodeSets decodes one code set, or the mean weight field of several.
func (r *Generator) decodeSets(cube *character.Character, skCube *character.Skeleton, sets [][][]int) (*character.Skin, error) {
	if len(sets) == 1 {
		return r.Skin.Decode(cube, skCube, sets[0])
	}
	return r.Skin.(meanSkinDecoder).DecodeMean(cube, skCube, sets)
}

// skinCodes samples n skin-token streams after prompt (BOS · skeleton · SEP) from
// one reading of the prompt, as one batch (GenerateN), and returns each stream's
// codes. With greedy the first stream is greedy; the others are drawn at
// SkinTemperature (0: 1) with top-p 0.95.
func (r *Generator) skinCodes(lat *tensor.Dense, prompt []int, n int, greedy bool, rng *rand.Rand) ([][][]int, error) {
	streams, err := r.sampleSkin(lat, prompt, n, greedy, 0, rng)
	if err != nil {
		return nil, err
	}
	sets := make([][][]int, len(streams))
	for i, smp := range streams {
		if _, sets[i], err = tokens.Split(smp.Tokens, r.Model.Cfg.K()); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// skinCodesUpTo is skinCodes (the first stream greedy) that stops each stream
// after the codes of the first joints joints of the prompt's skeleton and returns
// those.
func (r *Generator) skinCodesUpTo(lat *tensor.Dense, prompt []int, n, joints int, rng *rand.Rand) ([][][]int, error) {
	streams, err := r.sampleSkin(lat, prompt, n, true, joints, rng)
	if err != nil {
		return nil, err
	}
	k := r.Model.Cfg.K()
	sets := make([][][]int, len(streams))
	for i, smp := range streams {
		skin := smp.Tokens[len(prompt):]
		if len(skin) < joints*k {
			return nil, fmt.Errorf("stream %d ends after %d of %d skin codes", i, len(skin), joints*k)
		}
		sets[i] = make([][]int, joints)
		for j := range sets[i] {
			sets[i][j] = make([]int, k)
			for c := range sets[i][j] {
				sets[i][j][c] = skin[j*k+c] - tokens.SkinBase
			}
		}
	}
	return sets, nil
}

// sampleSkin samples n streams after prompt as one batch (GenerateN); with
// greedy the first is greedy, the others at SkinTemperature (0: 1) with top-p
// 0.95. joints > 0 stops each stream after that many joints' codes.
func (r *Generator) sampleSkin(lat *tensor.Dense, prompt []int, n int, greedy bool, joints int, rng *rand.Rand) ([]*Sampled, error) {
	temp := r.SkinTemperature
	if temp <= 0 {
		temp = 1
	}
	opts := make([]SampleOptions, n)
	for i := range opts {
		opts[i].K, opts[i].SkinJoints = r.Model.Cfg.K(), joints
		if i > 0 || !greedy {
			opts[i].Temperature, opts[i].TopP = temp, 0.95
		}
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	return GenerateN(sess, prompt, opts, rng)
}

// PredictSkeleton returns the model's skeleton for c's mesh, greedy or voted
// (Votes), in c's world frame (the skeleton task of `rig eval`).
func (r *Generator) PredictSkeleton(c *character.Character) (*character.Skeleton, error) {
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	rng := rand.New(rand.NewSource(r.Seed))
	gen, prop := r.WithProposal(&c.Mesh)
	lat, err := gen.EncodeMesh(&c.Mesh, &nm, norm, rng)
	if err != nil {
		return nil, err
	}
	var propCube *character.Skeleton
	if prop != nil {
		propCube = tokens.SkeletonToCube(prop, norm)
	}
	smp, err := r.voteSkeleton(lat, r.SampleRegion(&nm, norm, prop), propCube, rng)
	if err != nil {
		return nil, err
	}
	sk, err := tokens.DecodeSkeleton(smp.Tokens)
	if err != nil {
		return nil, err
	}
	return tokens.SkeletonToWorld(sk, norm), nil
}

// CheckRig is the validity gate every rig passes before it is written: a valid
// character with a skeleton, a skin on every vertex (no orphans), finite values.
func CheckRig(c *character.Character) error {
	if c == nil || c.Skeleton == nil || c.Skin == nil {
		return errors.New("no skeleton or skin")
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if o := c.Skin.Orphans(); len(o) > 0 {
		return fmt.Errorf("%d orphan vertices", len(o))
	}
	return nil
}

// SkinTokenizerFor returns the skin tokenizer whose codes a model was trained on:
// rigkit's one skin tokenizer (skincodec.Load("")), checked against the fingerprint
// the checkpoint recorded (rigmodel.TrainState.SkinTokenizer). It fails when the model writes
// no skin tokens, or with a clear error when the model was trained on another
// tokenizer's codes, which mean nothing to this one.
func SkinTokenizerFor(st *rigmodel.TrainState) (*skincodec.SkinTokenizer, error) {
	if st == nil || !st.SkinTokens {
		return nil, errors.New("the model was trained on skeleton tokens only")
	}
	tok, err := skincodec.Load("")
	if err != nil {
		return nil, err
	}
	if fp := tok.Fingerprint(); fp != st.SkinTokenizer {
		return nil, fmt.Errorf("the model writes the codes of skin tokenizer %s, rigkit's is %s (%s): retrain the model on it (rig train --skin-tokenizer shipped)",
			st.SkinTokenizer, fp, skincodec.ShippedCheckpoint)
	}
	return tok, nil
}
