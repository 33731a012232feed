package skincodec

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/tokens"
)

// RoundTrip is one character's skin encoded into codes and decoded back on its own
// skeleton, scored against the artist's weights with shared/METRICS.md. The rigid
// nearest-bone skin is the floor a tokenizer must beat.
type RoundTrip struct {
	Vertices, Joints int
	Tokens, Floor    metrics.SkinResult
	// Constant scores decoding every bone from one constant code list (each slot's
	// most frequent code): when it scores like Tokens the decoder ignores the codes.
	// It is zero unless the round trip was asked to ablate.
	Constant      metrics.SkinResult
	Codes         [][]int
	Dense, Sparse float64 // CompressionRatios of the artist's skin
}

// MeasureRoundTrip encodes and decodes every bone of c (world space) with tok and
// opt and scores the result and the rigid floor; with ablate it also scores the
// constant code list.
func MeasureRoundTrip(tok *SkinTokenizer, c *character.Character, opt Options, ablate bool) (RoundTrip, error) {
	r := RoundTrip{Vertices: len(c.Mesh.Positions), Joints: c.Skeleton.NumJoints()}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	codes, err := tok.EncodeAllWith(nc, opt)
	if err != nil {
		return r, fmt.Errorf("encode: %w", err)
	}
	r.Codes = codes
	skin, err := tok.DecodeWith(context.Background(), nc, nc.Skeleton, [][][]int{codes}, opt)
	if err != nil {
		return r, fmt.Errorf("decode: %w", err)
	}
	if r.Tokens, err = metrics.SkinMetrics(c, skin, 1); err != nil {
		return r, fmt.Errorf("score tokens: %w", err)
	}
	if r.Floor, err = metrics.SkinMetrics(c, skinning.Rigid(c), 1); err != nil {
		return r, fmt.Errorf("score rigid floor: %w", err)
	}
	r.Dense, r.Sparse = CompressionRatios(c.Skin, r.Joints, tok.K())
	if !ablate {
		return r, nil
	}
	same := make([][]int, len(codes))
	constant := mostFrequentCodes(codes, tok.K())
	for j := range same {
		same[j] = constant
	}
	if skin, err = tok.DecodeWith(context.Background(), nc, nc.Skeleton, [][][]int{same}, opt); err != nil {
		return r, fmt.Errorf("decode constant codes: %w", err)
	}
	if r.Constant, err = metrics.SkinMetrics(c, skin, 1); err != nil {
		return r, fmt.Errorf("score constant codes: %w", err)
	}
	return r, nil
}

// mostFrequentCodes returns each slot's most frequent code over the bones (the
// smallest on a tie), so that the ablation is deterministic.
func mostFrequentCodes(codes [][]int, k int) []int {
	constant := make([]int, k)
	for s := range constant {
		count := map[int]int{}
		for _, cs := range codes {
			count[cs[s]]++
			if count[cs[s]] > count[constant[s]] || (count[cs[s]] == count[constant[s]] && cs[s] < constant[s]) {
				constant[s] = cs[s]
			}
		}
	}
	return constant
}

// codeUsage counts the codes seen in each of the K slots of a set of bones: a
// codebook that collapses to a few codes shows here before it shows in the metrics.
type codeUsage struct {
	slots  []map[int]int
	tuples map[string]int
	bones  int
}

// add counts the codes of every bone of one character.
func (u *codeUsage) add(codes [][]int) {
	for _, cs := range codes {
		if u.tuples == nil {
			u.tuples = map[string]int{}
			u.slots = make([]map[int]int, len(cs))
			for k := range u.slots {
				u.slots[k] = map[int]int{}
			}
		}
		for k, c := range cs {
			u.slots[k][c]++
		}
		u.tuples[fmt.Sprint(cs)]++
		u.bones++
	}
}

// perplexity is exp(entropy) of slot k's codes: the effective number of codes used.
func (u *codeUsage) perplexity(k int) float64 {
	e := 0.0
	for _, c := range u.slots[k] {
		p := float64(c) / float64(u.bones)
		e -= p * math.Log(p)
	}
	return math.Exp(e)
}

// String reports the distinct code lists and, per slot, the distinct codes and
// their perplexity.
func (u *codeUsage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d bones, %d distinct code lists of %d codes; per slot distinct codes (perplexity) of %d:", u.bones, len(u.tuples), len(u.slots), tokens.SkinCodebookSize)
	for k := range u.slots {
		fmt.Fprintf(&b, " %d (%.1f)", len(u.slots[k]), u.perplexity(k))
	}
	return b.String()
}

// Round-trip report groups: real files split by their manifest category, and the
// held-out synthetic creatures.
const (
	GroupCharacters = "real, characters"
	GroupProps      = "real, props"
	GroupSynthetic  = "synthetic"
)

// RoundTripReport gathers round trips into the markdown table of docs/tokenizer.md.
type RoundTripReport struct {
	Ablate bool // the round trips carry Constant
	rows   []roundTripRow
	use    map[bool]*codeUsage // by synthetic
}

type roundTripRow struct {
	name, group string
	RoundTrip
}

// Add records one character's round trip under a name and a group.
func (rep *RoundTripReport) Add(name, group string, r RoundTrip) {
	if rep.use == nil {
		rep.use = map[bool]*codeUsage{false: {}, true: {}}
	}
	rep.use[group == GroupSynthetic].add(r.Codes)
	rep.rows = append(rep.rows, roundTripRow{name, group, r})
}

// Faults names the round trips that left a vertex without weight or scored NaN: a
// tokenizer that does either is broken, whatever its averages.
func (rep *RoundTripReport) Faults() []string {
	var out []string
	for _, r := range rep.rows {
		if r.Tokens.Orphans != 0 || math.IsNaN(r.Tokens.L1) || math.IsNaN(r.Tokens.DeformMean) {
			out = append(out, fmt.Sprintf("%s: %d orphans, L1 %v, deformation %v", r.name, r.Tokens.Orphans, r.Tokens.L1, r.Tokens.DeformMean))
		}
	}
	return out
}

// roundTripAgg sums the round trips of one group.
type roundTripAgg struct {
	n            int
	tok, fl, abl metrics.SkinResult
	dense, spars float64
}

func (a *roundTripAgg) add(r roundTripRow) {
	a.n++
	sumSkin(&a.tok, r.Tokens)
	sumSkin(&a.fl, r.Floor)
	sumSkin(&a.abl, r.Constant)
	a.dense += r.Dense
	a.spars += r.Sparse
}

func sumSkin(dst *metrics.SkinResult, r metrics.SkinResult) {
	dst.L1 += r.L1
	dst.Precision += r.Precision
	dst.Recall += r.Recall
	dst.DeformMean += r.DeformMean
	dst.Orphans += r.Orphans
}

func (a *roundTripAgg) row(name string) string {
	n := float64(max(a.n, 1))
	return fmt.Sprintf("| %s | %d | %.2f | %.2f | %.3f | %.3f | %.3f / %.3f | %.3f / %.3f | %d | %.0f× | %.0f× |",
		name, a.n, a.tok.DeformMean/n, a.fl.DeformMean/n, a.tok.L1/n, a.fl.L1/n, a.tok.Precision/n, a.tok.Recall/n,
		a.fl.Precision/n, a.fl.Recall/n, a.tok.Orphans, a.dense/n, a.spars/n)
}

// Markdown writes the summary table per group, the code usage, the ablation when
// asked, and a row per asset.
func (rep *RoundTripReport) Markdown() string {
	var b strings.Builder
	b.WriteString("| split | assets | deformation ×100 (tokens) | deformation ×100 (floor) | L1 (tokens) | L1 (floor) | precision / recall (tokens) | precision / recall (floor) | orphans | compression dense | compression sparse |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	groups := map[string]*roundTripAgg{}
	real := &roundTripAgg{}
	for _, r := range rep.rows {
		if groups[r.group] == nil {
			groups[r.group] = &roundTripAgg{}
		}
		groups[r.group].add(r)
		if r.group != GroupSynthetic {
			real.add(r)
		}
	}
	for _, g := range []string{GroupCharacters, GroupProps} {
		if a := groups[g]; a != nil {
			fmt.Fprintln(&b, a.row("held-out "+g))
		}
	}
	if real.n > 0 {
		fmt.Fprintln(&b, real.row("held-out real, all"))
	}
	if a := groups[GroupSynthetic]; a != nil {
		fmt.Fprintln(&b, a.row("held-out synthetic"))
	}
	if rep.use != nil {
		b.WriteString("\n")
		for _, u := range []struct {
			name string
			use  *codeUsage
		}{{"real", rep.use[false]}, {"synthetic", rep.use[true]}} {
			if u.use.bones > 0 {
				fmt.Fprintf(&b, "Code usage, held-out %s: %v.\n", u.name, u.use)
			}
		}
	}
	if rep.Ablate {
		b.WriteString("\nOne constant code list per asset instead of the codes (deformation / L1):")
		for _, g := range []string{GroupCharacters, GroupProps, GroupSynthetic} {
			if a := groups[g]; a != nil {
				n := float64(max(a.n, 1))
				fmt.Fprintf(&b, " %s %.2f / %.3f (tokens %.2f / %.3f);", g, a.abl.DeformMean/n, a.abl.L1/n, a.tok.DeformMean/n, a.tok.L1/n)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\nPer asset:\n\n| asset | V | J | deformation (tokens / floor) | L1 (tokens / floor) | precision / recall (tokens) |\n|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %.2f / %.2f | %.3f / %.3f | %.3f / %.3f |\n", r.name, r.Vertices, r.Joints,
			r.Tokens.DeformMean, r.Floor.DeformMean, r.Tokens.L1, r.Floor.L1, r.Tokens.Precision, r.Tokens.Recall)
	}
	return b.String()
}
