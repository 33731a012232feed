package skincodec

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// TestDecodeLater prepares a creature once, on another goroutine as the
// sampler does, and decodes several code sets from it: each skin equals Decode's
// (or DecodeMean's) bit for bit, and code sets that do not fit the skeleton are
// refused with the error Decode gives.
func TestDecodeLater(t *testing.T) {
	tok, err := Load("")
	if err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	c, err := synth.Generate("biped", 2, synth.Options{TargetVertices: 2000})
	if err != nil {
		t.Fatal(err)
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	nJ := nc.Skeleton.NumJoints()
	rng := rand.New(rand.NewSource(1))
	randomCodes := func(joints, k int) [][]int {
		codes := make([][]int, joints)
		for j := range codes {
			for range k {
				codes[j] = append(codes[j], rng.Intn(tokens.SkinCodebookSize))
			}
		}
		return codes
	}
	done := make(chan func([][][]int) (*character.Skin, error))
	go func() { done <- tok.DecodeLater(nc, nc.Skeleton) }()
	decode := <-done
	for _, tc := range []struct {
		name    string
		sets    [][][]int
		wantErr string
	}{
		{"one set", [][][]int{randomCodes(nJ, tok.K())}, ""},
		{"another set", [][][]int{randomCodes(nJ, tok.K())}, ""},
		{"mean of three", [][][]int{randomCodes(nJ, tok.K()), randomCodes(nJ, tok.K()), randomCodes(nJ, tok.K())}, ""},
		{"no sets", nil, "no code sets"},
		{"a joint short", [][][]int{randomCodes(nJ-1, tok.K())}, "code lists"},
		{"K short", [][][]int{randomCodes(nJ, tok.K()-1)}, "codes, want"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decode(tc.sets)
			want, wantErr := tok.DecodeMean(nc, nc.Skeleton, tc.sets)
			if tc.wantErr != "" {
				if err == nil || wantErr == nil || !strings.Contains(err.Error(), tc.wantErr) || err.Error() != wantErr.Error() {
					t.Fatalf("error %v, Decode's %v, want one naming %q", err, wantErr, tc.wantErr)
				}
				return
			}
			if err != nil || wantErr != nil {
				t.Fatalf("DecodeLater: %v, DecodeMean: %v", err, wantErr)
			}
			if !slices.EqualFunc(want.Weights, got.Weights, slices.Equal) {
				t.Fatal("the prepared skin differs from DecodeMean's")
			}
		})
	}
	if _, err := tok.DecodeLater(nc, nil)([][][]int{randomCodes(nJ, tok.K())}); err == nil {
		t.Fatal("a skeleton-less preparation decoded")
	}
}
