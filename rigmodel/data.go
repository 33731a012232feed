package rigmodel

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// This file is the model's input features: a character's normalized surface points
// and its token stream. The training tokens are exactly the encoder's tokens;
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

// SamplePoints draws n area-weighted points on the mesh surface with their face
// normals, 6 floats per point. Degenerate meshes (zero area) sample vertices.
func SamplePoints(m *character.Mesh, n int, rng *rand.Rand) []float32 {
	out := make([]float32, 0, 6*n)
	cum := make([]float64, len(m.Triangles))
	normals := make([]vecmath.Vec3, len(m.Triangles))
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
		var p, nrm vecmath.Vec3
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
	out := character.Mesh{Positions: make([]vecmath.Vec3, len(m.Positions)), Triangles: m.Triangles}
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
