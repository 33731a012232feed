package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/skinning"
)

func init() {
	register(&command{
		name:    "tokenize",
		usage:   "FILE.glb|- [--out TOKENS.json|-] [--checkpoint CKPT]",
		summary: "write a rigged character as tokens, with the metrics of its own round trip",
		run:     runTokenize,
	})
}

// tokenizeReport is what `rig tokenize` writes: the stream and its round trip.
type tokenizeReport struct {
	skincodec.StreamFile
	// RoundTrip scores the rig decoded from the tokens (skeleton from its bins, skin
	// from the codes) against the file's own rig; Floor is the rigid nearest-bone
	// baseline on the same skeleton.
	RoundTrip struct {
		Skin     metrics.SkinResult     `json:"skin"`
		Floor    metrics.SkinResult     `json:"floor"`
		Skeleton metrics.SkeletonResult `json:"skeleton"`
		// Compression is raw float32 weights over all vertices (dense) and over the
		// vertices each bone influences (sparse), per bone, divided by the bits of its
		// skin tokens; averaged over bones.
		CompressionDense  float64 `json:"compression_dense"`
		CompressionSparse float64 `json:"compression_sparse"`
	} `json:"round_trip"`
}

var (
	tokIntArray = regexp.MustCompile(`\[\s*-?\d+(,\s*-?\d+)*\s*\]`)
	tokSpace    = regexp.MustCompile(`\s+`)
)

// checkpointUsage is the help of every --checkpoint flag that names a skin tokenizer.
const checkpointUsage = "skin-tokenizer checkpoint file (default: the shipped tokenizer, the one the shipped model writes codes for)"

func runTokenize(args []string, stdout io.Writer) error {
	fs := newFlags("tokenize")
	out := fs.String("out", "", "write the JSON here instead of stdout (- or empty: stdout)")
	ckpt := fs.String("checkpoint", "", checkpointUsage)
	refine := fs.Int("refine", skincodec.DefaultRefineRounds, "rounds of code search against the decoder (0: the encoder's codes, fastest)")
	mine := fs.Int("mine", skincodec.DefaultMinePasses, "passes that add the decoded skin's errors to the code search (0: none; about 2.5x faster)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one FILE, got %d arguments", errUsage, len(pos))
	}
	if *refine < 0 || *mine < 0 {
		return fmt.Errorf("%w: --refine and --mine must not be negative", errUsage)
	}
	tok, err := skincodec.Load(*ckpt)
	if err != nil {
		return err
	}
	opt := tok.Options()
	opt.RefineRounds, opt.MinePasses = *refine, *mine
	c, err := loadInput(pos[0])
	if err != nil {
		return err
	}
	src := displayName(pos[0])
	if !c.Rigged() {
		return fmt.Errorf("tokenize %s: no skeleton and skin", src)
	}
	sf, _, err := skincodec.Tokenize(c, tok, opt)
	if err != nil {
		return fmt.Errorf("tokenize %s: %w", src, err)
	}
	sf.Source = src
	rep := tokenizeReport{StreamFile: *sf}

	// Round trip: decode the stream onto the file's own mesh, map joints back.
	dec, err := skincodec.Detokenize(sf.Tokens, sf.Names, c, tok)
	if err != nil {
		return fmt.Errorf("tokenize %s: round trip: %w", src, err)
	}
	back := dec.Skin.Clone()
	for _, infl := range back.Weights {
		for i := range infl {
			infl[i].Joint = sf.Order[infl[i].Joint]
		}
	}
	if rep.RoundTrip.Skin, err = metrics.SkinMetrics(c, back, 1); err != nil {
		return fmt.Errorf("tokenize %s: %w", src, err)
	}
	if rep.RoundTrip.Floor, err = metrics.SkinMetrics(c, skinning.Rigid(c), 1); err != nil {
		return fmt.Errorf("tokenize %s: %w", src, err)
	}
	rep.RoundTrip.Skeleton = metrics.SkeletonMetrics(c.Skeleton, dec.Skeleton, character.NormalizationOf(c.Mesh))
	rep.RoundTrip.CompressionDense, rep.RoundTrip.CompressionSparse = skincodec.CompressionRatios(c.Skin, c.Skeleton.NumJoints(), tok.K())

	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	// One line per integer array (tokens, order) keeps the file readable.
	js = append(tokIntArray.ReplaceAllFunc(js, func(m []byte) []byte { return tokSpace.ReplaceAll(m, nil) }), '\n')
	if *out == "" || *out == stdio {
		if _, err := stdout.Write(js); err != nil {
			return fmt.Errorf("tokenize: write: %w", err)
		}
		return nil
	}
	// Atomically, as every other output (a missing folder is created).
	if err := atomicfile.WriteFile(*out, js); err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	s, fl := rep.RoundTrip.Skin, rep.RoundTrip.Floor
	fmt.Fprintf(stdout, "%s: %d tokens (%d joints), vocabulary %d\n", src, len(sf.Tokens), sf.Joints, sf.VocabSize)
	fmt.Fprintf(stdout, "round trip: L1 %.3f (floor %.3f), precision %.3f / recall %.3f (floor %.3f / %.3f), deformation %.2f (floor %.2f), CD-J2J %.4f\n",
		s.L1, fl.L1, s.Precision, s.Recall, fl.Precision, fl.Recall, s.DeformMean, fl.DeformMean, rep.RoundTrip.Skeleton.CDJ2J)
	fmt.Fprintf(stdout, "compression per bone: %.0fx dense, %.0fx over influenced vertices; wrote %s\n",
		rep.RoundTrip.CompressionDense, rep.RoundTrip.CompressionSparse, *out)
	return nil
}
