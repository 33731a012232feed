package rigmodel

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

// This file is the data pipeline: characters → augmented copies → normalized surface
// points and token streams. The training tokens are exactly the encoder's tokens;
// nothing is decoded and re-encoded.

// Example is one training sequence: the shape condition and the token stream.
type Example struct {
	Name string
	// Points holds NumPoints surface samples of the normalized mesh, 6 floats each
	// (position, unit normal): (P, 6) row-major.
	Points []float32
	// Tokens is the stream BOS · skeleton · SEP [· skin codes · EOS].
	Tokens []int
	// SkeletonLen is the number of tokens through SEP; tokens after it are skin tokens.
	SkeletonLen int
	// HasSkin is false when the stream stops at SEP (no skin tokenizer available): the
	// skin part is then not trained.
	HasSkin bool
	// Proposal is the proposal skeleton (ProposalRows) for a model that reads one.
	Proposal []float32
}

// SkinEncoder turns a character's weights into skin codes, one row of
// K codes per joint in token order (order maps token order
// to the character's joints). The character is in the normalized cube.
type SkinEncoder interface {
	EncodeSkin(c *character.Character, order tokens.Order) ([][]int, error)
	// K is the number of skin tokens per joint: the length of each joint's code list.
	K() int
}

// DescribeItems gives every item its dataset family, category and split
// (dataset.Describe), keyed by path.
func DescribeItems(items []BatchItem) map[string]dataset.File {
	paths := make([]string, len(items))
	for i, it := range items {
		paths[i] = it.Path
	}
	out := map[string]dataset.File{}
	for _, f := range dataset.Describe(paths) {
		out[f.Path] = f
	}
	for _, it := range items {
		// Describe cleans paths; index the item's own spelling too.
		if _, ok := out[it.Path]; !ok {
			out[it.Path] = out[filepath.Clean(it.Path)]
		}
	}
	return out
}

// AugmentOptions bounds the random augmentation of a training character.
type AugmentOptions struct {
	// MaxScale is the largest per-axis stretch factor (e.g. 0.15 for 0.85..1.15).
	MaxScale float64
	// Rotate turns the character about the up (+Y) axis by a uniform angle.
	Rotate bool
	// QuarterTurns (instead of Rotate) turns the character about the up axis by a
	// random multiple of 90° plus a uniform jitter of up to Jitter radians: the
	// facings that differ between asset sources, without asking a small model to
	// read arbitrary orientations.
	QuarterTurns bool
	Jitter       float64
	// MirrorProb is the probability of mirroring across the YZ plane.
	MirrorProb float64
	// PoseProb is the probability of re-posing with a random pose of up to PoseAngle
	// radians per joint (the posed skeleton becomes the new bind pose).
	PoseProb, PoseAngle float64
}

// DefaultAugment is the augmentation used by `rig train`.
var DefaultAugment = AugmentOptions{MaxScale: 0.15, Rotate: true, MirrorProb: 0.5, PoseProb: 0.5, PoseAngle: 0.35}

// Augment returns a randomly stretched, rotated, mirrored and re-posed copy of a
// rigged character. The skin is unchanged (vertex order is kept).
func Augment(c *character.Character, opt AugmentOptions, rng *rand.Rand) *character.Character {
	o, _ := augment(c, opt, rng)
	return o
}

// augment is Augment, also returning the affine map it applied after re-posing.
func augment(c *character.Character, opt AugmentOptions, rng *rand.Rand) (*character.Character, character.Mat4) {
	o := c.Clone()
	if o.Skeleton != nil && o.Skin != nil && rng.Float64() < opt.PoseProb {
		pose := character.RandomPose(rng, o.Skeleton.NumJoints(), opt.PoseAngle)
		pos, posed := o.Deform(pose)
		o.Mesh.Positions = pos
		o.Skeleton.BindWorld = posed
	}
	m := character.Identity4()
	switch {
	case opt.QuarterTurns:
		a := float64(rng.Intn(4))*math.Pi/2 + opt.Jitter*(2*rng.Float64()-1)
		m = character.QuatAxisAngle(character.Vec3{0, 1, 0}, a).Mat4()
	case opt.Rotate:
		q := character.QuatAxisAngle(character.Vec3{0, 1, 0}, rng.Float64()*2*math.Pi)
		m = q.Mat4()
	}
	mirror := rng.Float64() < opt.MirrorProb
	if mirror {
		m = character.Mat4{-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}.Mul(m)
	}
	if opt.MaxScale > 0 {
		var s character.Mat4
		for a := 0; a < 3; a++ {
			s[a*5] = 1 + opt.MaxScale*(2*rng.Float64()-1)
		}
		s[15] = 1
		m = s.Mul(m)
	}
	for i, p := range o.Mesh.Positions {
		o.Mesh.Positions[i] = m.Point(p)
	}
	o.Mesh.Normals = nil
	if mirror {
		for t, tri := range o.Mesh.Triangles {
			o.Mesh.Triangles[t] = [3]int{tri[0], tri[2], tri[1]}
		}
	}
	if o.Skeleton != nil {
		for j, b := range o.Skeleton.BindWorld {
			// Keep the joint frame a rotation: move the position, keep the orientation.
			t := m.Point(b.Translation())
			b[12], b[13], b[14] = t[0], t[1], t[2]
			o.Skeleton.BindWorld[j] = b
		}
	}
	return o, m
}

// SamplePoints draws n area-weighted points on the mesh surface with their face
// normals, 6 floats per point. Degenerate meshes (zero area) sample vertices.
func SamplePoints(m *character.Mesh, n int, rng *rand.Rand) []float32 {
	out := make([]float32, 0, 6*n)
	cum := make([]float64, len(m.Triangles))
	normals := make([]character.Vec3, len(m.Triangles))
	total := 0.0
	for t, tri := range m.Triangles {
		a, b, c := m.Positions[tri[0]], m.Positions[tri[1]], m.Positions[tri[2]]
		cr := b.Sub(a).Cross(c.Sub(a))
		area := cr.Len() / 2
		if !(area >= 0) || math.IsInf(area, 0) {
			area = 0
		}
		total += area
		cum[t] = total
		normals[t] = cr.Normalize()
	}
	for i := 0; i < n; i++ {
		var p, nrm character.Vec3
		if total > 0 {
			r := rng.Float64() * total
			lo, hi := 0, len(cum)-1
			for lo < hi {
				mid := (lo + hi) / 2
				if cum[mid] < r {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			tri := m.Triangles[lo]
			u, v := rng.Float64(), rng.Float64()
			if u+v > 1 {
				u, v = 1-u, 1-v
			}
			a, b, c := m.Positions[tri[0]], m.Positions[tri[1]], m.Positions[tri[2]]
			p = a.Add(b.Sub(a).Scale(u)).Add(c.Sub(a).Scale(v))
			nrm = normals[lo]
		} else if len(m.Positions) > 0 {
			p = m.Positions[rng.Intn(len(m.Positions))]
		}
		out = append(out, float32(p[0]), float32(p[1]), float32(p[2]), float32(nrm[0]), float32(nrm[1]), float32(nrm[2]))
	}
	return out
}

// NormalizedMesh returns the mesh mapped into the [-1,1] cube and the normalization.
func NormalizedMesh(m *character.Mesh) (character.Mesh, character.Normalization) {
	norm := character.NormalizationOf(*m)
	out := character.Mesh{Positions: make([]character.Vec3, len(m.Positions)), Triangles: m.Triangles}
	for i, p := range m.Positions {
		out.Positions[i] = norm.Point(p)
	}
	return out, norm
}

// MakeExample encodes one rigged character (world space) as a training example:
// numPoints surface samples of its normalized mesh, and its token stream. With a nil
// skin encoder the stream stops at SEP.
func MakeExample(c *character.Character, numPoints int, skin SkinEncoder, rng *rand.Rand) (*Example, error) {
	if !c.Rigged() {
		return nil, fmt.Errorf("example %s: not rigged", c.Name)
	}
	nm, norm := NormalizedMesh(&c.Mesh)
	toks, order, err := tokens.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", c.Name, err)
	}
	ex := &Example{Name: c.Name, Points: SamplePoints(&nm, numPoints, rng), SkeletonLen: len(toks)}
	if skin == nil {
		ex.Tokens = toks
		return ex, nil
	}
	cube := norm.Apply(c)
	codes, err := skin.EncodeSkin(cube, order)
	if err != nil {
		return nil, fmt.Errorf("example %s: skin tokens: %w", c.Name, err)
	}
	full, err := tokens.Join(toks, codes)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", c.Name, err)
	}
	ex.Tokens, ex.HasSkin = full, true
	return ex, nil
}

// TokenizerSkin adapts the skin tokenizer to SkinEncoder: codes of every joint,
// encoded with opt, rearranged into token order.
func TokenizerSkin(t *skincodec.SkinTokenizer, opt skincodec.Options) SkinEncoder {
	return tokenizerSkin{t, opt}
}

type tokenizerSkin struct {
	t   *skincodec.SkinTokenizer
	opt skincodec.Options
}

func (a tokenizerSkin) K() int { return a.t.K() }

func (a tokenizerSkin) EncodeSkin(c *character.Character, order tokens.Order) ([][]int, error) {
	all, err := a.t.EncodeAllWith(c, a.opt)
	if err != nil {
		return nil, err
	}
	codes := make([][]int, len(order))
	for i, j := range order {
		if j < 0 || j >= len(all) {
			return nil, fmt.Errorf("skin codes: token-order joint %d maps to joint %d of %d", i, j, len(all))
		}
		codes[i] = all[j]
	}
	return codes, nil
}
