package skincodec

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"sort"
	"sync"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// SkinTokenizer is the trained FSQ-CVAE that turns one bone's skin weights into
// K codes (Config.K; K method) and codes back into weights. It works on characters
// already normalized into the cube (assets.NormalizationOf(mesh).Apply(c)). Its
// methods are safe for concurrent use.
type SkinTokenizer struct {
	// Config is the network's shape.
	Config CVAEConfig
	// MaxInfluences is how many influences per vertex Decode keeps.
	MaxInfluences int
	// Seed fixes the surface sampling of encoding, so encoding is deterministic.
	Seed int64

	// settings are the checkpoint's decode settings, the defaults of Options.
	settings DecodeSettings
	master   *cvae[float32]
	pool     sync.Pool // *cvae[float32] replicas for concurrent calls
	scratch  sync.Pool // *inferScratch buffers of the inference decoder

	mu   sync.Mutex
	last *prepared // the character encoded last
}

// Options steer one encode or decode call. They are passed with each call and never
// stored in the tokenizer, so one tokenizer (the shared Load("") among
// them) serves callers that want different settings at the same time. Start from
// SkinTokenizer.Options, the checkpoint's own.
type Options struct {
	// DecodeSettings turn the decoder's per-bone weights into a skin: in Decode, and
	// in the decodes EncodeAll's mining checks its codes against.
	DecodeSettings
	// RefineRounds is how many rounds of code search (refine.go) follow the
	// encoder's prediction in Encode and EncodeAll; 0 keeps the encoder's codes.
	RefineRounds int
	// MinePasses is how many times EncodeAll, after the code search, decodes the
	// whole skin, adds the vertices it gets wrong to each bone's search queries and
	// searches again (refine.go); 0 searches once. Needs RefineRounds > 0.
	MinePasses int
	// Exhaustive makes Decode run the decoder at every vertex for every bone instead
	// of coarse to fine (see coarsePoints); slower, for checking the approximation.
	Exhaustive bool
	// Workers is how many goroutines one call spreads the encoder's and decoder's
	// kernels over; 0 means the default engine's workers. A caller that runs many
	// calls at once (training's example workers) sets 1, so that the calls, not
	// each call's kernels, share the cores.
	Workers int
	// MeanCodesFrom is the vertex count from which DecodeMean decodes the mean of
	// the code sets' vectors once instead of averaging each set's decoded field;
	// 0 never does. One decoder pass in place of one per set is what a large
	// mesh's skin spends most of its time on (defaultMeanCodesFrom).
	MeanCodesFrom int
}

// defaultMeanCodesFrom is Options.MeanCodesFrom by default: on the 21 files of
// 40,000 vertices or more of the humans stress sets (fused, up to 156k vertices)
// the mean code decoded once is closer to the artists' skins than the mean of
// eight decoded fields (rig skin's default, deformation ×100 5.09 → 4.97,
// −0.119 [−0.227, −0.034]; joint regions −0.019 [−0.037, −0.004]) in 0.6× the
// time; the held-out files, all smaller, keep the mean of the fields
// (docs/skinning.md, "Large meshes").
const defaultMeanCodesFrom = 40000

// Options returns the checkpoint's decode settings with the default code search
// (DefaultRefineRounds, DefaultMinePasses) and the default engine's workers.
func (t *SkinTokenizer) Options() Options {
	return Options{DecodeSettings: t.settings, RefineRounds: DefaultRefineRounds, MinePasses: DefaultMinePasses, MeanCodesFrom: defaultMeanCodesFrom}
}

// DecodeSettings turn the decoder's per-bone weights into a skin. They are chosen on
// training files after training, stored in the checkpoint when it is exported
// (ExportCheckpoint) and read back with it.
type DecodeSettings struct {
	// Threshold drops a decoded influence whose weight, after normalizing a vertex's
	// top influences, is below it (the heaviest influence is always kept).
	Threshold float64 `json:"threshold"`
	// Sharpen, when above 1, raises each decoded per-bone weight to this power before
	// a vertex's influences are normalized and pruned, so that a vertex the decoder
	// gives mostly to one bone goes more to it: the decoder's fields are softer than
	// many artists' near-rigid skins. 0 or 1 keep the weights as decoded.
	Sharpen float64 `json:"sharpen,omitempty"`
	// OddsPower, when above 0, also divides each decoded per-bone weight p by
	// (1-p)^OddsPower before a vertex's influences are normalized: bones the decoder
	// is sure of gain on the uncertain ones, more than a power of p gives (with
	// Sharpen 1 and OddsPower 1 a vertex's weights are the softmax of the decoder's
	// logits over bones). 0 for none.
	OddsPower float64 `json:"odds_power,omitempty"`
	// SnapShare, when in (0, 1], makes Decode bind each small rigid piece of the mesh
	// wholly to one bone when at least this share of its vertices have that bone as
	// their heaviest (SnapPieces). 0 leaves pieces as decoded.
	SnapShare float64 `json:"snap_share,omitempty"`
}

// ckptMeta is stored in the checkpoint's config metadata.
type ckptMeta struct {
	Config CVAEConfig `json:"config"`
	DecodeSettings
	MaxInfluences int   `json:"max_influences"`
	Seed          int64 `json:"seed"`
	VocabSize     int   `json:"vocab_size"`
}

// NewSkinTokenizer returns an untrained tokenizer with randomly initialized weights.
func NewSkinTokenizer(cfg CVAEConfig, seed uint64) (*SkinTokenizer, error) {
	m, err := newCVAE[float32](cfg, seed)
	if err != nil {
		return nil, err
	}
	return &SkinTokenizer{Config: cfg, settings: DecodeSettings{Threshold: 0.05}, MaxInfluences: character.MaxInfluencesWritten, Seed: 1, master: m}, nil
}

//go:embed checkpoints/skin.safetensors
var shippedCheckpoint []byte

// ShippedCheckpoint is the path of the trained checkpoint inside the repository; the
// same file is embedded in the binary (see Load).
const ShippedCheckpoint = "skincodec/checkpoints/skin.safetensors"

var (
	defaultOnce sync.Once
	defaultTok  *SkinTokenizer
	defaultErr  error
)

// Load returns a skin tokenizer: with path "" the shipped, trained one embedded in
// the binary (ShippedCheckpoint, loaded once and shared: settings go with each
// call, see Options), else the checkpoint (safetensors) at path. It is the one way
// rigkit loads a skin tokenizer, so every command reads the same one by default.
func Load(path string) (*SkinTokenizer, error) {
	if path == "" {
		defaultOnce.Do(func() {
			defaultTok, defaultErr = readSkinTokenizer(bytes.NewReader(shippedCheckpoint))
			if defaultErr != nil {
				defaultErr = fmt.Errorf("embedded %s: %w", ShippedCheckpoint, defaultErr)
			}
		})
		return defaultTok, defaultErr
	}
	// A regular file within --max-file-mb: a FIFO or /dev/zero named as the
	// checkpoint is refused before a byte is read.
	data, err := format.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load skin tokenizer: %w", err)
	}
	t, err := readSkinTokenizer(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("load skin tokenizer %s: %w", path, err)
	}
	return t, nil
}

// K is the number of skin tokens the tokenizer writes per joint: the K of the token
// streams it reads and writes (NewGrammar).
func (t *SkinTokenizer) K() int { return t.Config.K }

// readSkinTokenizer reads a skin-tokenizer checkpoint from r.
func readSkinTokenizer(r io.Reader) (*SkinTokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	meta, err := peekMeta(data)
	if err != nil {
		return nil, err
	}
	if err := checkCVAEConfig(data, meta.Config); err != nil {
		return nil, fmt.Errorf("skin tokenizer checkpoint: %w", err)
	}
	t, err := NewSkinTokenizer(meta.Config, 0)
	if err != nil {
		return nil, err
	}
	if _, err := nn.LoadCheckpoint(bytes.NewReader(data), t.master.Params()); err != nil {
		return nil, err
	}
	t.settings, t.MaxInfluences, t.Seed = meta.DecodeSettings, meta.MaxInfluences, meta.Seed
	if t.MaxInfluences <= 0 {
		t.MaxInfluences = character.MaxInfluencesWritten
	}
	return t, nil
}

// peekMeta reads the config metadata of a checkpoint without its tensors.
func peekMeta(data []byte) (*ckptMeta, error) {
	if len(data) < 8 {
		return nil, errors.New("skin tokenizer checkpoint: too short")
	}
	n := uint64(data[0]) | uint64(data[1])<<8 | uint64(data[2])<<16 | uint64(data[3])<<24 |
		uint64(data[4])<<32 | uint64(data[5])<<40 | uint64(data[6])<<48 | uint64(data[7])<<56
	if n > uint64(len(data)-8) {
		return nil, fmt.Errorf("skin tokenizer checkpoint: header of %d bytes in a %d-byte file", n, len(data))
	}
	var hdr struct {
		Meta map[string]string `json:"__metadata__"`
	}
	if err := json.Unmarshal(data[8:8+n], &hdr); err != nil {
		return nil, fmt.Errorf("skin tokenizer checkpoint: header: %w", err)
	}
	cj, ok := hdr.Meta["config"]
	if !ok {
		return nil, errors.New("skin tokenizer checkpoint: no config in metadata")
	}
	var meta ckptMeta
	if err := json.Unmarshal([]byte(cj), &meta); err != nil {
		return nil, fmt.Errorf("skin tokenizer checkpoint: config: %w", err)
	}
	if meta.VocabSize != tokens.VocabSize {
		return nil, fmt.Errorf("skin tokenizer checkpoint: made for vocabulary size %d, this build has %d", meta.VocabSize, tokens.VocabSize)
	}
	return &meta, nil
}

// Write writes the checkpoint (safetensors, config in the metadata) to w.
func (t *SkinTokenizer) write(w io.Writer) error {
	meta := ckptMeta{Config: t.Config, DecodeSettings: t.settings, MaxInfluences: t.MaxInfluences, Seed: t.Seed, VocabSize: tokens.VocabSize}
	return nn.SaveCheckpoint(w, t.master.Params(), meta)
}

// Fingerprint identifies the tokenizer by its checkpoint: the first 16 hex digits of
// the SHA-256 of what Write writes (weights, config, decode settings).
func (t *SkinTokenizer) Fingerprint() string {
	h := sha256.New()
	if err := t.write(h); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Save writes the checkpoint to path atomically (a temporary file renamed into place).
func (t *SkinTokenizer) Save(path string) error {
	return atomicfile.Write(path, t.write)
}

// replica returns a network with the master's weights for one call; put it back
// with release.
func (t *SkinTokenizer) replica() *cvae[float32] {
	if m, ok := t.pool.Get().(*cvae[float32]); ok {
		return m
	}
	m, err := newCVAE[float32](t.Config, 0)
	if err != nil { // the config was validated when t was made
		panic(err)
	}
	src := t.master.Params()
	for i, p := range m.Params() {
		copy(p.Data(), src[i].Data())
	}
	return m
}

func (t *SkinTokenizer) release(m *cvae[float32]) { t.pool.Put(m) }

// prepared returns the precomputed samples of c, reusing the last ones when encode
// is called joint by joint on the same character.
func (t *SkinTokenizer) prepared(c *character.Character) (*prepared, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last != nil && t.last.c == c && t.last.sPos != nil {
		return t.last, nil
	}
	if c.Skin == nil {
		return nil, fmt.Errorf("skin tokenizer: encode %q: no skin", c.Name)
	}
	p, err := prepare(c, t.Seed, t.Config.Geodesic > 0, nil)
	if err != nil {
		return nil, err
	}
	t.last = p
	return p, nil
}

// encode returns the K codes (0..SkinCodebookSize-1) of joint's
// weights in c, a rigged character normalized into the cube: the codes EncodeAll
// gives that joint. Encoding is deterministic. Use SkinToken to turn codes into
// token ids. With mining (MinePasses and RefineRounds above 0) a joint's codes
// depend on the whole skin, so encode costs an EncodeAll. It uses t.Options().
func (t *SkinTokenizer) encode(c *character.Character, joint int) ([]int, error) {
	return t.encodeWith(c, joint, t.Options())
}

// encodeWith is encode with the given options.
func (t *SkinTokenizer) encodeWith(c *character.Character, joint int, opt Options) ([]int, error) {
	p, err := t.prepared(c)
	if err != nil {
		return nil, err
	}
	if joint < 0 || joint >= p.nJ {
		return nil, fmt.Errorf("skin tokenizer: encode %q: joint %d of %d", c.Name, joint, p.nJ)
	}
	if opt.MinePasses > 0 && opt.RefineRounds > 0 {
		all, err := t.EncodeAllWith(c, opt)
		if err != nil {
			return nil, err
		}
		return all[joint], nil
	}
	codes, err := t.encodeJoints(p, []int{joint}, opt)
	if err != nil {
		return nil, err
	}
	return codes[0], nil
}

// EncodeAll returns the codes of every joint of c, in c's joint order, with
// t.Options().
func (t *SkinTokenizer) EncodeAll(c *character.Character) ([][]int, error) {
	return t.EncodeAllWith(c, t.Options())
}

// EncodeAllWith is EncodeAll with the given options.
func (t *SkinTokenizer) EncodeAllWith(c *character.Character, opt Options) ([][]int, error) {
	p, err := t.prepared(c)
	if err != nil {
		return nil, err
	}
	joints := make([]int, p.nJ)
	for j := range joints {
		joints[j] = j
	}
	return t.encodeJoints(p, joints, opt)
}

func (t *SkinTokenizer) encodeJoints(p *prepared, joints []int, opt Options) ([][]int, error) {
	m := t.replica()
	defer t.release(m)
	B := len(joints)
	ed := m.cfg.encDim()
	enc := make([]float32, B*encPoints*ed)
	bone := make([]float32, B*boneFeatures)
	for b, j := range joints {
		rng := rand.New(rand.NewSource(t.Seed*7919 + int64(j)))
		p.encoderInput(j, rng, enc[b*encPoints*ed:])
		p.geo.boneVec(j, bone[b*boneFeatures:])
	}
	z := encodeInfer(m, enc, bone, B, opt.workers())
	q := m.quantize(z, B)
	idx, err := m.fsq.Indices(engine.FromSlice(q, B*m.cfg.K, len(m.cfg.Levels)))
	if err != nil {
		return nil, fmt.Errorf("skin tokenizer: %w", err)
	}
	t.refineCodes(m, p, joints, idx, opt)
	out := make([][]int, B)
	for b := range out {
		out[b] = idx[b*m.cfg.K : (b+1)*m.cfg.K]
	}
	return out, nil
}

// Probabilities returns the decoder's per-bone weight (sigmoid output, before
// normalization across bones) at every vertex of c: (V × joints) row-major. c is
// normalized, sk is the skeleton in the cube (its own skin, if any, is ignored), codes
// has one list of K codes per joint of sk.
func (t *SkinTokenizer) Probabilities(c *character.Character, sk *character.Skeleton, codes [][]int) ([]float32, error) {
	return t.MeanProbabilities(c, sk, [][][]int{codes})
}

// MeanProbabilities is Probabilities averaged over several code sets for the same
// skeleton (for example several sampled skin-token streams): an estimate of the
// expected weight field under the distribution the codes were drawn from. The mesh
// and skeleton are prepared once.
func (t *SkinTokenizer) MeanProbabilities(c *character.Character, sk *character.Skeleton, codeSets [][][]int) ([]float32, error) {
	return t.meanProbabilitiesContext(context.Background(), c, sk, codeSets)
}

// meanProbabilitiesContext is MeanProbabilities that stops when ctx ends: ctx is
// checked between the phases of decoding and before every chunk of decoder rows
// (inferChunk rows, milliseconds), and the error then wraps ctx.Err()
// (context.Canceled or context.DeadlineExceeded). While ctx stays open the result
// is the one MeanProbabilities gives, bit for bit.
func (t *SkinTokenizer) meanProbabilitiesContext(ctx context.Context, c *character.Character, sk *character.Skeleton, codeSets [][][]int) ([]float32, error) {
	opt := t.Options()
	opt.MeanCodesFrom = 0 // the expected field: every set decoded
	return t.probabilitiesWith(ctx, c, sk, codeSets, opt)
}

// probabilitiesWith is meanProbabilitiesContext with the given options (Exhaustive
// and Workers; the decode settings act after it, in Decode).
func (t *SkinTokenizer) probabilitiesWith(ctx context.Context, c *character.Character, sk *character.Skeleton, codeSets [][][]int, opt Options) ([]float32, error) {
	if sk == nil || sk.NumJoints() == 0 {
		return nil, errors.New("skin tokenizer: decode: no skeleton")
	}
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	pr := t.prepareDecode(ctx, c, sk)
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	return t.preparedProbabilities(ctx, pr, codeSets, opt)
}

// preparedDecode is the part of decoding that does not depend on the codes:
// the character's samples and geodesic features for one skeleton (prepare) and
// the mesh latents.
type preparedDecode struct {
	p   *prepared
	lat []float32
	nJ  int
	err error
}

// prepareDecode does the code-independent work of decoding c (normalized) for
// skeleton sk (in the cube); its error is returned by the decode.
func (t *SkinTokenizer) prepareDecode(ctx context.Context, c *character.Character, sk *character.Skeleton) *preparedDecode {
	if sk == nil || sk.NumJoints() == 0 {
		return &preparedDecode{err: errors.New("skin tokenizer: decode: no skeleton")}
	}
	cc := *c
	cc.Skeleton, cc.Skin = sk, nil
	p, err := prepare(&cc, t.Seed, t.Config.Geodesic > 0, ctx.Done())
	if err != nil {
		return &preparedDecode{err: err}
	}
	m := t.replica()
	defer t.release(m)
	return &preparedDecode{p: p, nJ: sk.NumJoints(), lat: append([]float32(nil), m.meshLatents(p.mesh, 1)...)}
}

// DecodeLater does now the part of decoding c (normalized) for skeleton sk (in
// the cube) that does not depend on the codes (surface samples, geodesic
// features, mesh latents) and returns the function that finishes it: DecodeMean
// of the code sets it is given, with the checkpoint's options, the same skin bit
// for bit. A sampler calls it on another goroutine while the model writes the
// codes, taking that work off the skin's critical path. It is safe for
// concurrent use; the returned function may be called more than once.
func (t *SkinTokenizer) DecodeLater(c *character.Character, sk *character.Skeleton) func(codeSets [][][]int) (*character.Skin, error) {
	pr := t.prepareDecode(context.Background(), c, sk)
	return func(codeSets [][][]int) (*character.Skin, error) {
		opt := t.Options()
		probs, err := t.preparedProbabilities(context.Background(), pr, codeSets, opt)
		if err != nil {
			return nil, err
		}
		skin := t.skinFrom(probs, pr.nJ, opt.DecodeSettings)
		SnapPieces(&pr.p.c.Mesh, skin, opt.SnapShare)
		return skin, nil
	}
}

// canceled returns nil while ctx is open, else the error that stops a decode.
func canceled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("skin tokenizer: decode stopped: %w", err)
	}
	return nil
}

// preparedProbabilities is probabilitiesWith on a prepared character and
// skeleton: the code sets are checked against it and decoded.
func (t *SkinTokenizer) preparedProbabilities(ctx context.Context, pr *preparedDecode, codeSets [][][]int, opt Options) ([]float32, error) {
	if pr.err != nil {
		return nil, pr.err
	}
	if len(codeSets) == 0 {
		return nil, errors.New("skin tokenizer: decode: no code sets")
	}
	m := t.replica()
	defer t.release(m)
	K := m.cfg.K
	for _, codes := range codeSets {
		if len(codes) != pr.nJ {
			return nil, fmt.Errorf("skin tokenizer: decode: %d code lists for %d joints", len(codes), pr.nJ)
		}
		for j, cs := range codes {
			if len(cs) != K {
				return nil, fmt.Errorf("skin tokenizer: decode: joint %d has %d codes, want %d", j, len(cs), K)
			}
		}
	}
	return t.meanProbs(ctx, m, pr.p, pr.lat, codeSets, opt)
}

// meanProbs is MeanProbabilities on a prepared character (its skin, if any, is not
// read) with replica m and the character's mesh latents lat (m.meshLatents, copied);
// codeSets are already checked against p's joints. It stops when ctx ends.
func (t *SkinTokenizer) meanProbs(ctx context.Context, m *cvae[float32], p *prepared, lat []float32, codeSets [][][]int, opt Options) ([]float32, error) {
	nJ, K := p.nJ, m.cfg.K
	bones := make([]float32, nJ*boneFeatures)
	for j := 0; j < nJ; j++ {
		p.geo.boneVec(j, bones[j*boneFeatures:(j+1)*boneFeatures])
	}
	pos := p.c.Mesh.Positions
	uniq, rep := uniquePositions(pos)
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	U := len(uniq)
	dists := make([]float32, U*nJ)
	for u, v := range uniq {
		p.geo.jointDists(pos[v], dists[u*nJ:(u+1)*nJ])
	}
	fill := func(r decodeRow, dst []float32) {
		p.queryVec(int(r.j), uniq[r.u], dists[int(r.u)*nJ:int(r.u+1)*nJ], dst)
	}
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	cf := t.coarseToFine(pos, uniq, dists, nJ, opt.Exhaustive, func() bool { return ctx.Err() != nil })
	if err := canceled(ctx); err != nil {
		return nil, err // cf is nil when coarseToFine stopped
	}
	mean := make([]float32, U*nJ)
	probs := make([]float32, U*nJ)
	vecs, err := codeVectors(m, codeSets, nJ*K)
	if err != nil {
		return nil, err
	}
	if len(vecs) > 1 && opt.MeanCodesFrom > 0 && len(pos) >= opt.MeanCodesFrom {
		vecs = [][]float32{meanVector(vecs)}
	}
	var cache *prefixCache // several decodes share each row's code-independent prefix
	if len(vecs) > 1 {
		cache = newPrefixCache(m.cfg.D, nJ, U)
	}
	for _, cv := range vecs {
		dec := newInferDecoder(m, cv, bones, lat, nJ, &t.scratch)
		dec.stop = func() bool { return ctx.Err() != nil }
		run := func(rows []decodeRow, emit func(r decodeRow, logit float32)) {
			dec.run(rows, opt.workers(), fill, emit)
		}
		if cache != nil {
			run = func(rows []decodeRow, emit func(r decodeRow, logit float32)) {
				cache.run(dec, rows, opt.workers(), fill, emit)
			}
		}
		clear(probs)
		decodeAll(run, dec.stopped, cf, p, uniq, nJ, probs)
		if err := canceled(ctx); err != nil {
			return nil, err // probs is incomplete: chunks were skipped
		}
		for i, v := range probs {
			mean[i] += v
		}
	}
	inv := 1 / float32(len(vecs))
	out := make([]float32, len(pos)*nJ)
	for v, u := range rep {
		for j, x := range mean[u*nJ : (u+1)*nJ] {
			out[v*nJ+j] = x * inv
		}
	}
	return out, nil
}

// codeVectors returns each code set's FSQ code vectors (n codes, joint after
// joint).
func codeVectors(m *cvae[float32], codeSets [][][]int, n int) ([][]float32, error) {
	vecs := make([][]float32, len(codeSets))
	for i, codes := range codeSets {
		flat := make([]int, 0, n)
		for _, cs := range codes {
			flat = append(flat, cs...)
		}
		cv, err := m.fsq.Codes(flat)
		if err != nil {
			return nil, fmt.Errorf("skin tokenizer: decode: %w", err)
		}
		vecs[i] = engine.Data[float32](cv)
	}
	return vecs, nil
}

// meanVector returns the element-wise mean of vectors of one length.
func meanVector(vecs [][]float32) []float32 {
	mean := make([]float32, len(vecs[0]))
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += x / float32(len(vecs))
		}
	}
	return mean
}

// uniquePositions returns the first vertex of each distinct position (uniq) and,
// per vertex, its position's index in uniq (rep). Vertices at the same position (UV
// and normal seams) are decoded once, with the first one's normal, so seams get
// identical weights and cost nothing extra.
func uniquePositions(pos []vecmath.Vec3) (uniq, rep []int) {
	uniq = make([]int, 0, len(pos))
	rep = make([]int, len(pos))
	first := make(map[vecmath.Vec3]int, len(pos))
	for v, x := range pos {
		u, ok := first[x]
		if !ok {
			u = len(uniq)
			first[x] = u
			uniq = append(uniq, v)
		}
		rep[v] = u
	}
	return uniq, rep
}

// decodeAll fills probs (U × nJ, zeroed) with the decoder's weight of every bone at
// every unique vertex uniq, decoding its rows with run: all of them, or with a
// coarse-to-fine plan cf level 0 for every bone, then level 1 and the other vertices
// only where a nearby point of the level above has weight, j is one of the two
// nearest bones or the geodesic prior gives j weight there; the rest keep 0. Once
// stop reports true it returns early, probs incomplete.
func decodeAll(run func(rows []decodeRow, emit func(r decodeRow, logit float32)), stop func() bool, cf *coarsePlan, p *prepared, uniq []int, nJ int, probs []float32) {
	U := len(uniq)
	emit := func(r decodeRow, logit float32) { probs[int(r.u)*nJ+int(r.j)] = sigmoid32(logit) }
	if cf == nil {
		rows := make([]decodeRow, 0, nJ*U)
		for j := 0; j < nJ; j++ {
			for u := 0; u < U; u++ {
				rows = append(rows, decodeRow{int32(j), int32(u)})
			}
		}
		run(rows, emit)
		return
	}
	rows := make([]decodeRow, 0, nJ*coarseLevel0)
	for j := 0; j < nJ; j++ {
		for _, u := range cf.coarse[:coarseLevel0] {
			rows = append(rows, decodeRow{int32(j), u})
		}
	}
	run(rows, emit)
	for level := int8(1); level <= 2; level++ {
		rows = rows[:0]
		for j := 0; j < nJ; j++ {
			if stop() {
				return
			}
			for u := 0; u < U; u++ {
				if cf.level[u] == level && (cf.wanted(u, j, probs, nJ) || p.geoWeight(uniq[u], j) > coarseEps) {
					rows = append(rows, decodeRow{int32(j), int32(u)})
				}
			}
		}
		run(rows, emit)
	}
}

// Decode returns the skin of c (normalized) for skeleton sk (in the cube) from each
// joint's codes: per-bone weights from the decoder, then per vertex the
// MaxInfluences heaviest, normalized to sum to 1, those below Threshold dropped and
// the rest renormalized (after Sharpen and OddsPower, when set). Every vertex gets
// at least one influence. With SnapShare set, the mesh's small rigid pieces are then
// bound to one bone each (SnapPieces).
func (t *SkinTokenizer) Decode(c *character.Character, sk *character.Skeleton, codes [][]int) (*character.Skin, error) {
	return t.DecodeMean(c, sk, [][][]int{codes})
}

// DecodeMean is Decode of the mean weight field of several code sets for the same
// skeleton (MeanProbabilities), for example several sampled skin-token streams.
func (t *SkinTokenizer) DecodeMean(c *character.Character, sk *character.Skeleton, codeSets [][][]int) (*character.Skin, error) {
	return t.decodeMeanContext(context.Background(), c, sk, codeSets)
}

// decodeContext is Decode that stops when ctx ends, with an error wrapping
// ctx.Err(), within a chunk of decoder rows (see meanProbabilitiesContext), so a
// service can give up a decode at a request's deadline and free its CPU.
func (t *SkinTokenizer) decodeContext(ctx context.Context, c *character.Character, sk *character.Skeleton, codes [][]int) (*character.Skin, error) {
	return t.decodeMeanContext(ctx, c, sk, [][][]int{codes})
}

// decodeMeanContext is DecodeMean that stops when ctx ends (see decodeContext).
func (t *SkinTokenizer) decodeMeanContext(ctx context.Context, c *character.Character, sk *character.Skeleton, codeSets [][][]int) (*character.Skin, error) {
	return t.DecodeWith(ctx, c, sk, codeSets, t.Options())
}

// DecodeWith is DecodeMean with the given options that stops when ctx ends, within
// a chunk of decoder rows; Decode and DecodeMean use t.Options(), the checkpoint's
// settings.
func (t *SkinTokenizer) DecodeWith(ctx context.Context, c *character.Character, sk *character.Skeleton, codeSets [][][]int, opt Options) (*character.Skin, error) {
	probs, err := t.probabilitiesWith(ctx, c, sk, codeSets, opt)
	if err != nil {
		return nil, err
	}
	skin := t.skinFrom(probs, sk.NumJoints(), opt.DecodeSettings)
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	SnapPieces(&c.Mesh, skin, opt.SnapShare)
	return skin, nil
}

// skinFrom is the tokenizer's skin of per-bone weights (V × nJ): Sharpen and
// OddsPower applied in place, then skinFromProbabilities with its MaxInfluences and
// the Threshold.
func (t *SkinTokenizer) skinFrom(probs []float32, nJ int, ds DecodeSettings) *character.Skin {
	sharpenProbabilities(probs, ds.Sharpen, ds.OddsPower)
	return skinFromProbabilities(probs, nJ, t.MaxInfluences, ds.Threshold)
}

// oddsCeil keeps 1-p away from 0 when a weight is divided by (1-p)^odds.
const oddsCeil = 1 - 1e-6

// sharpenProbabilities replaces every positive weight p in probs, in place, by
// p^gamma / (1-p)^odds (see DecodeSettings), with 1-p kept above 0; gamma ≤ 1
// means the power 1 and odds ≤ 0 no division, so gamma 1 and odds 0 leave the
// weights unchanged.
func sharpenProbabilities(probs []float32, gamma, odds float64) {
	sharpen, divide := gamma > 1, odds > 0
	if !sharpen && !divide {
		return
	}
	for i, x := range probs {
		if !(x > 0) {
			continue
		}
		p := float64(x)
		w := p
		if sharpen {
			w = math.Pow(p, gamma)
		}
		if divide {
			w /= math.Pow(1-math.Min(p, oddsCeil), odds)
		}
		probs[i] = float32(w)
	}
}

// skinFromProbabilities turns per-bone weights (V × nJ row-major, as Probabilities
// returns) into a sparse skin: per vertex the maxK heaviest, normalized, those below
// threshold dropped (the heaviest is always kept) and the rest renormalized.
func skinFromProbabilities(probs []float32, nJ, maxK int, threshold float64) *character.Skin {
	V := len(probs) / nJ
	skin := &character.Skin{Weights: make([][]character.Influence, V)}
	idx := make([]int, nJ)
	for v := 0; v < V; v++ {
		row := probs[v*nJ : (v+1)*nJ]
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
		k := min(maxK, nJ)
		sum := 0.0
		for _, j := range idx[:k] {
			sum += float64(row[j])
		}
		infl := make([]character.Influence, 0, k)
		for i, j := range idx[:k] {
			w := float64(row[j]) / sum
			if i > 0 && (w < threshold || !(sum > 0)) {
				break
			}
			if !(sum > 0) {
				w = 1
			}
			infl = append(infl, character.Influence{Joint: j, Weight: w})
		}
		character.NormalizeWeights(infl)
		skin.Weights[v] = infl
	}
	return skin
}
