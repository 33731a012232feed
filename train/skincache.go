package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/tokens"
)

// This file is the cached code set of the skin phase. Encoding a character's
// weights into skin codes costs seconds of one core, and the skin phase used to
// re-encode every augmented copy, so the loop waited on the encoder. The skin
// weights of an augmented copy are its source's (augmentation moves vertices and
// joints, never the weights; augment keeps vertex order), and the codes describe
// each bone's weights, so every training character is encoded once, in its own
// frame, and its codes go with each of its augmented copies: a training example
// then costs an augmentation and a point sampling. Fresh synthetic creatures
// (Data.FreshSynthetic), never seen twice, are still encoded one by one. The set
// is kept beside the checkpoint (Out with .skincodes.json), so a resumed run does
// not encode again.

// codeSet holds the skin codes of every training character, joints in each
// character's own order, indexed like the training set.
type codeSet struct {
	codes [][][]int
}

// codeFile is the cached code set on disk: the skin tokenizer that wrote it and,
// per character, a fingerprint of its rig and its codes.
type codeFile struct {
	SkinTokenizer string      `json:"skin_tokenizer"`
	Characters    []codeEntry `json:"characters"`
}

type codeEntry struct {
	Name  string  `json:"name"`
	Rig   string  `json:"rig"` // rigFingerprint of the character the codes belong to
	Codes [][]int `json:"codes"`
}

// buildCodeSet encodes every training character once (on opt.Data.Workers
// goroutines), reusing the entries of the file beside opt.Out that match the
// character and the tokenizer, and writes the file back.
func buildCodeSet(opt Options, train []*character.Character) (*codeSet, error) {
	path := sibling(opt.Out, ".skincodes.json")
	old := readCodeFile(path, opt.SkinID)
	prints := make([]string, len(train))
	for i, c := range train {
		prints[i] = rigFingerprint(c)
	}
	bar := progress.New(opt.Report.Progress, fmt.Sprintf("skin code set (%d workers)", opt.Data.Workers), len(train))
	type result struct {
		codes [][]int
		err   error
	}
	made := makeOrdered(len(train), opt.Data.Workers, func(k int64) result {
		defer bar.Add(1, 0)
		if codes, ok := old[prints[k]]; ok {
			return result{codes: codes}
		}
		codes, err := encodeOwnOrder(train[k], opt.Skin)
		return result{codes, err}
	})
	bar.Finish()
	set := &codeSet{codes: make([][][]int, len(train))}
	file := codeFile{SkinTokenizer: opt.SkinID}
	for i, r := range made {
		if r.err != nil {
			return nil, fmt.Errorf("train: skin code set: %s: %w", train[i].Name, r.err)
		}
		set.codes[i] = r.codes
		file.Characters = append(file.Characters, codeEntry{Name: train[i].Name, Rig: prints[i], Codes: r.codes})
	}
	data, err := json.Marshal(file)
	if err != nil {
		return nil, fmt.Errorf("train: skin code set: %w", err)
	}
	if err := atomicfile.WriteFile(path, data); err != nil {
		return nil, fmt.Errorf("train: skin code set: %w", err)
	}
	return set, nil
}

// readCodeFile returns the codes of the file at path by rig fingerprint, or none
// when it is absent, unreadable or written for another tokenizer.
func readCodeFile(path, skinID string) map[string][][]int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f codeFile
	if json.Unmarshal(data, &f) != nil || f.SkinTokenizer != skinID {
		return nil
	}
	out := make(map[string][][]int, len(f.Characters))
	for _, e := range f.Characters {
		out[e.Rig] = e.Codes
	}
	return out
}

// encodeOwnOrder encodes c's skin in the cube of its own mesh, one code row per
// joint in c's joint order.
func encodeOwnOrder(c *character.Character, enc rigmodel.SkinEncoder) ([][]int, error) {
	if !c.Rigged() {
		return nil, errors.New("not rigged")
	}
	order := make(tokens.Order, c.Skeleton.NumJoints())
	for j := range order {
		order[j] = j
	}
	return enc.EncodeSkin(character.NormalizationOf(c.Mesh).Apply(c), order)
}

// rigFingerprint identifies a character's rig for the code file: its vertex
// positions, skeleton and weights, hashed.
func rigFingerprint(c *character.Character) string {
	h := fnv.New64a()
	put := func(v float64) {
		b := math.Float64bits(v)
		h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
	}
	for _, p := range c.Mesh.Positions {
		put(p[0])
		put(p[1])
		put(p[2])
	}
	if c.Skeleton != nil {
		for j, m := range c.Skeleton.BindWorld {
			put(float64(c.Skeleton.Parents[j]))
			for _, v := range m {
				put(v)
			}
		}
	}
	if c.Skin != nil {
		for _, infl := range c.Skin.Weights {
			for _, w := range infl {
				put(float64(w.Joint))
				put(w.Weight)
			}
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// cachedCodes is a rigmodel.SkinEncoder that hands out one character's cached
// codes (own joint order) in the token order of any augmented copy of it.
type cachedCodes struct {
	k     int
	codes [][]int
}

func (c cachedCodes) K() int { return c.k }

func (c cachedCodes) EncodeSkin(_ *character.Character, order tokens.Order) ([][]int, error) {
	if len(order) != len(c.codes) {
		return nil, fmt.Errorf("cached skin codes: %d joints in the stream, %d cached", len(order), len(c.codes))
	}
	out := make([][]int, len(order))
	for i, j := range order {
		if j < 0 || j >= len(c.codes) {
			return nil, fmt.Errorf("cached skin codes: token-order joint %d maps to joint %d of %d", i, j, len(c.codes))
		}
		out[i] = c.codes[j]
	}
	return out, nil
}
