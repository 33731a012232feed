package skincodec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/tokens"
)

// StreamFile is the JSON form of a tokenized rig written by `rig tokenize` and read
// by `rig detokenize`.
type StreamFile struct {
	Source    string `json:"source,omitempty"`
	VocabSize int    `json:"vocab_size"`
	// Tokens is the whole stream, BOS through EOS.
	Tokens []int `json:"tokens"`
	// Readable is the stream with TokenString, space separated; joints of the
	// skeleton part are grouped as (x y z).
	Readable string `json:"readable"`
	Joints   int    `json:"joints"`
	// Names are the source skeleton's joint names in token order (empty for a
	// stream without a named skeleton); Order maps token order to the source's
	// joint indices.
	Names []string `json:"names,omitempty"`
	Order []int    `json:"order,omitempty"`
	// Normalization of the source mesh (world = cube/Scale + Center).
	Center [3]float64 `json:"center"`
	Scale  float64    `json:"scale"`
	// K is the number of skin tokens per joint of the tokenizer that wrote
	// the stream (0 in files written before it was recorded, which were all K = 4).
	K int `json:"skin_tokens_per_joint,omitempty"`
	// SkinBitsPerJoint is the size of one joint's skin tokens, in bits.
	SkinBitsPerJoint float64 `json:"skin_bits_per_joint"`
	// SkinTokenizer is the Fingerprint of the skin tokenizer that wrote the stream
	// (empty in files written before it was recorded): skin codes mean something
	// only to the network that chose them.
	SkinTokenizer string `json:"skin_tokenizer,omitempty"`
}

// Tokenize writes a rigged character (world space) as a full token stream: its
// skeleton by EncodeSkeleton and each joint's skin by the skin tokenizer, in token
// order, encoding with opt (tok.Options() for the checkpoint's). It also returns the
// per-joint codes in token order.
func Tokenize(c *character.Character, tok *SkinTokenizer, opt Options) (*StreamFile, [][]int, error) {
	if !c.Rigged() {
		return nil, nil, fmt.Errorf("tokenize %q: not rigged", c.Name)
	}
	norm := character.NormalizationOf(c.Mesh)
	skel, order, err := tokens.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenize %q: %w", c.Name, err)
	}
	codes, err := tok.EncodeAllWith(norm.Apply(c), opt)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenize %q: %w", c.Name, err)
	}
	inTokenOrder := make([][]int, len(order))
	for i, j := range order {
		inTokenOrder[i] = codes[j]
	}
	full, err := tokens.Join(skel, inTokenOrder)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenize %q: %w", c.Name, err)
	}
	sf := &StreamFile{Source: c.Name, VocabSize: tokens.VocabSize, Tokens: full, Readable: readable(full),
		Joints: len(order), Names: order.Names(c.Skeleton.Names), Order: order,
		Center: norm.Center, Scale: norm.Scale, K: tok.K(), SkinBitsPerJoint: tokens.SkinBitsPerJoint(tok.K()),
		SkinTokenizer: tok.Fingerprint()}
	return sf, inTokenOrder, nil
}

// CheckK refuses a stream recorded with another number of skin
// tokens per joint (StreamFile.K; 0, not recorded, passes) than k,
// that of the skin tokenizer about to read it.
func CheckK(recorded, k int) error {
	if recorded != 0 && recorded != k {
		return fmt.Errorf("the stream has %d skin tokens per joint, the skin tokenizer %d", recorded, k)
	}
	return nil
}

// CheckSkinTokenizer refuses a stream recorded as written by another skin tokenizer
// (StreamFile.SkinTokenizer; empty, not recorded, passes) than fp, the Fingerprint
// of the one about to decode it: its codes would decode to another network's weights.
func CheckSkinTokenizer(recorded, fp string) error {
	if recorded != "" && recorded != fp {
		return fmt.Errorf("the stream was written by skin tokenizer %s, this one is %s", recorded, fp)
	}
	return nil
}

// readable renders a stream with TokenString, grouping each joint's coordinates in
// parentheses.
func readable(stream []int) string {
	var b strings.Builder
	coord := 0
	for i, t := range stream {
		if i > 0 && coord == 0 {
			b.WriteByte(' ')
		}
		if tokens.IsCoord(t) {
			if coord == 0 {
				b.WriteByte('(')
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(tokens.TokenString(t))
			coord++
			if coord == 3 {
				b.WriteByte(')')
				coord = 0
			}
			continue
		}
		b.WriteString(tokens.TokenString(t))
	}
	return b.String()
}

// Detokenize builds the rig a full stream describes on mesh (world space; any rig it
// has is ignored): the skeleton from the tokens mapped back to world space by the
// mesh's own normalization, and the skin decoded by tok. Joint names are taken from
// names when it has one per joint, else generated. Animations are dropped.
func Detokenize(stream []int, names []string, mesh *character.Character, tok *SkinTokenizer) (*character.Character, error) {
	return DetokenizeContext(context.Background(), stream, names, mesh, tok)
}

// DetokenizeContext is Detokenize whose skin decoding stops when ctx ends
// (checked per chunk of decoder rows), with an error wrapping ctx.Err().
func DetokenizeContext(ctx context.Context, stream []int, names []string, mesh *character.Character, tok *SkinTokenizer) (*character.Character, error) {
	_, codes, err := tokens.Split(stream, tok.K())
	if err != nil {
		return nil, fmt.Errorf("detokenize (skin tokenizer with K = %d codes per joint): %w", tok.K(), err)
	}
	sk, err := tokens.DecodeSkeleton(stream)
	if err != nil {
		return nil, fmt.Errorf("detokenize: %w", err)
	}
	if len(mesh.Mesh.Positions) == 0 {
		return nil, errors.New("detokenize: empty mesh")
	}
	norm := character.NormalizationOf(mesh.Mesh)
	bare := &character.Character{Name: mesh.Name, Mesh: mesh.Mesh}
	skin, err := tok.decodeContext(ctx, norm.Apply(bare), sk, codes)
	if err != nil {
		return nil, fmt.Errorf("detokenize: %w", err)
	}
	out := mesh.Clone()
	out.Animations = nil
	out.Skeleton = tokens.SkeletonToWorld(sk, norm)
	if len(names) == sk.NumJoints() {
		copy(out.Skeleton.Names, names)
	}
	out.Skin = skin
	return out, nil
}

// CompressionRatios returns, averaged over the joints that influence some vertex,
// the raw size of a joint's weights as float32 (over all vertices: dense; over the
// vertices it influences: sparse) divided by SkinBitsPerJoint(k), the bits of its k
// skin codes.
func CompressionRatios(skin *character.Skin, numJoints, k int) (dense, sparse float64) {
	count := make([]int, numJoints)
	for _, infl := range skin.Weights {
		for _, in := range infl {
			if in.Weight > 0 && in.Joint >= 0 && in.Joint < numJoints {
				count[in.Joint]++
			}
		}
	}
	bits := tokens.SkinBitsPerJoint(k)
	n := 0
	for _, c := range count {
		if c == 0 {
			continue
		}
		n++
		dense += float64(32*len(skin.Weights)) / bits
		sparse += float64(32*c) / bits
	}
	if n == 0 {
		return 0, 0
	}
	return dense / float64(n), sparse / float64(n)
}
