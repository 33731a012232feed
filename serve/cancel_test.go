package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
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

// TestDeadlineFreesSlotDuringGeodesicFeatures posts the fuzz corpus's
// b82872c9f32d696f, a batch on a 20,000-vertex mesh whose skin decoding spends
// about 14 CPU seconds voxelizing it for the tokenizer's geodesic features, to a
// server with a 2 s timeout, and then a small token request: the voxelization stops
// at the first request's deadline and frees the one scoring slot, so the second
// request is scored (200) instead of waiting out its own deadline (503).
func TestDeadlineFreesSlotDuringGeodesicFeatures(t *testing.T) {
	raw, err := os.ReadFile("testdata/fuzz/FuzzRequests/b82872c9f32d696f")
	if err != nil {
		t.Fatal(err)
	}
	_, quoted, _ := strings.Cut(strings.TrimSpace(string(raw)), "[]byte(")
	in, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{MaxBodyBytes: 1 << 20, MaxBatch: fuzzMaxBatch, Concurrency: 1, CacheBytes: -1, Timeout: 2 * time.Second,
		Budget: fuzzServeBudget, ErrorLog: log.New(io.Discard, "", 0)})
	if _, err := s.skinTokenizer(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	heavy := httptest.NewRecorder()
	s.ServeHTTP(heavy, fuzzRequest([]byte(in)))
	answered := time.Since(start)

	mesh, sf := tubeStream(t)
	body, _ := json.Marshal(map[string]any{"mesh": mesh, "tokens": sf.Tokens})
	small := httptest.NewRecorder()
	s.ServeHTTP(small, httptest.NewRequest("POST", "/score/tokens", bytes.NewReader(body)))
	t.Logf("heavy batch: %d after %v; then a small request: %d after %v", heavy.Code, answered.Round(time.Millisecond), small.Code, time.Since(start).Round(time.Millisecond))
	if small.Code != http.StatusOK {
		t.Fatalf("the request after the heavy batch got %d: %s", small.Code, small.Body)
	}
}
