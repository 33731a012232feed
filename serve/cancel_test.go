package serve

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/rigkit/rigkit/skincodec"
)

// TestDeadlineFreesSlotDuringSkinDecode scores a token stream on a 40,000-vertex
// mesh with a deadline at a tenth of the time its skin decoding takes alone: the
// request gets 503 and its scoring slot frees before the full decode would have
// ended (the decode stops within a chunk of decoder rows), instead of being held
// to the end.
func TestDeadlineFreesSlotDuringSkinDecode(t *testing.T) {
	_, sf := tubeStream(t)
	s := New(Config{Concurrency: 1, CacheBytes: -1})
	tok, err := s.skinTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	pm, _, err := s.loadMesh(context.Background(), amplificationGLB(1, 200))
	if err != nil {
		t.Fatal(err)
	}
	st, err := parseStream([]byte(idsJSON(sf.Tokens)), tok.K(), s.tokFP)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := skincodec.DetokenizeContext(context.Background(), st.tokens, st.names, pm.c, tok); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)

	ctx, cancel := context.WithTimeout(context.Background(), full/10)
	defer cancel()
	start = time.Now()
	_, status, err := s.scoreStream(ctx, pm, st, "stream")
	answered := time.Since(start)
	s.sem <- struct{}{} // waits for the slot
	freed := time.Since(start)
	<-s.sem
	t.Logf("skin decode alone %v; with a deadline of %v: %d after %v, slot free after %v (%v)", full.Round(time.Millisecond), (full / 10).Round(time.Millisecond), status, answered.Round(time.Millisecond), freed.Round(time.Millisecond), err)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("status %d (%v), want 503", status, err)
	}
	if freed >= full {
		t.Errorf("the slot was held %v, as long as a whole decode (%v): the decode did not stop at the deadline", freed, full)
	}
}
