package skincodec

import (
	"context"
	"errors"
	"math/rand"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// countingCtx is an open context whose Err reports context.Canceled from its
// after-th call on, counting every call: a deterministic cancellation point.
type countingCtx struct {
	context.Context
	after int64
	calls atomic.Int64
}

func (c *countingCtx) Err() error {
	if c.calls.Add(1) >= c.after {
		return context.Canceled
	}
	return nil
}

// TestDecodeContext decodes a creature large enough for the coarse-to-fine plan:
// with an open context the weights and the skin equal Decode's bit for bit; a
// context canceled at its k-th check, for k across the whole decode, stops it with
// an error wrapping context.Canceled, consulting the context only a few more times
// (once per worker) after that.
func TestDecodeContext(t *testing.T) {
	tok, err := Load("")
	if err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	c, err := synth.Generate("quadruped", 4, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	rng := rand.New(rand.NewSource(1)) // any codes decode; encoding costs far more
	codes := make([][]int, nc.Skeleton.NumJoints())
	for j := range codes {
		for range tok.K() {
			codes[j] = append(codes[j], rng.Intn(tokens.SkinCodebookSize))
		}
	}
	want, err := tok.Probabilities(nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	open := &countingCtx{Context: context.Background(), after: 1 << 62}
	got, err := tok.meanProbabilitiesContext(open, nc, nc.Skeleton, [][][]int{codes})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(want, got) {
		t.Fatal("weights with an open context differ from Probabilities")
	}
	checks := open.calls.Load()
	rows := len(want) / inferChunk // decoder chunks if every row were decoded
	t.Logf("%d vertices, %d joints: the context is checked %d times", len(nc.Mesh.Positions), nc.Skeleton.NumJoints(), checks)
	if checks < 10 {
		t.Fatalf("the context is checked %d times in a decode of %d weights (%d chunks if exhaustive), want it checked through the decode", checks, len(want), rows)
	}
	skinWant, err := tok.Decode(nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	skinGot, err := tok.decodeContext(context.Background(), nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(skinWant.Weights, skinGot.Weights, slices.Equal) {
		t.Fatal("skin with an open context differs from Decode")
	}
	for _, k := range []int64{1, 2, checks / 4, checks / 2, checks - 1} {
		ctx := &countingCtx{Context: context.Background(), after: k}
		_, err := tok.decodeContext(ctx, nc, nc.Skeleton, codes)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled at check %d: err %v, want context.Canceled", k, err)
		}
		if extra := ctx.calls.Load() - k; extra > int64(tok.Options().workers())+2 {
			t.Errorf("canceled at check %d: the decode went on for %d more checks", k, extra)
		}
	}
}
