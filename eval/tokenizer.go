package eval

import (
	"fmt"
	"io"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/synth"
)

// The skin tokenizer's round trip (`rig eval --task tokenizer`): every held-out
// file's skin is encoded into codes and decoded back on its own skeleton, and
// scored against the artist's weights beside the rigid floor (docs/tokenizer.md).
// TuneTokenizer sweeps the decode settings on training files instead.

// TokenizerOptions say which tokenizer the tokenizer task measures and how it
// decodes.
type TokenizerOptions struct {
	Tokenizer *skincodec.SkinTokenizer
	Decode    skincodec.Options
	// Ablate also decodes every bone from one constant code list (how much the
	// codes matter).
	Ablate bool
	// Synthetic is the number of held-out synthetic creatures of each kind the
	// round trip adds (-1: 2).
	Synthetic int
	Progress  io.Writer
}

// TokenizerRoundTrips measures the round trip of every file and of the synthetic
// creatures.
func TokenizerRoundTrips(files []File, opt TokenizerOptions) (*skincodec.RoundTripReport, error) {
	rep := &skincodec.RoundTripReport{Ablate: opt.Ablate}
	for i, f := range files {
		fmt.Fprintf(opt.Progress, "\reval tokenizer: %d/%d files", i+1, len(files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return nil, err
		}
		r, err := skincodec.MeasureRoundTrip(opt.Tokenizer, c, opt.Decode, opt.Ablate)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		group := skincodec.GroupProps
		if f.Category != "" && f.Category != "prop/mechanical" {
			group = skincodec.GroupCharacters
		}
		rep.Add(f.Rel, group, r)
	}
	fmt.Fprintln(opt.Progress)
	if err := addSyntheticRoundTrips(rep, opt.Tokenizer, opt.Decode, opt.Synthetic); err != nil {
		return nil, err
	}
	return rep, nil
}

// addSyntheticRoundTrips adds n held-out synthetic creatures of each kind (seeds
// ≡ 0 mod 5: train-tokenizer trains on the others), 2 when n is -1.
func addSyntheticRoundTrips(rep *skincodec.RoundTripReport, tok *skincodec.SkinTokenizer, opt skincodec.Options, n int) error {
	if n < 0 {
		n = 2
	}
	for i, kind := range synth.Kinds() {
		for s := 1; s <= n; s++ {
			seed := int64(5 * s)
			c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 2000, Noise: i%2 == 1})
			if err != nil {
				return fmt.Errorf("synth %s %d: %w", kind, seed, err)
			}
			r, err := skincodec.MeasureRoundTrip(tok, c, opt, rep.Ablate)
			if err != nil {
				return fmt.Errorf("synth %s %d: %w", kind, seed, err)
			}
			rep.Add(fmt.Sprintf("synth/%s_%d", kind, seed), skincodec.GroupSynthetic, r)
		}
	}
	return nil
}

// TuneTokenizer sweeps the decode settings on the files (the training split).
func TuneTokenizer(files []File, opt TokenizerOptions, settings []skincodec.DecodeSetting) (*skincodec.DecodeSweep, error) {
	sw := &skincodec.DecodeSweep{Settings: settings}
	for i, f := range files {
		fmt.Fprintf(opt.Progress, "\reval tokenizer --tune: %d/%d files", i+1, len(files))
		c, _, err := assets.Load(f.Path, assets.Options{})
		if err != nil {
			return nil, err
		}
		if err := sw.Add(opt.Tokenizer, c, opt.Decode); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	fmt.Fprintln(opt.Progress)
	return sw, nil
}
