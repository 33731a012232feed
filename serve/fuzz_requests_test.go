package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/internal/fuzzbound"
)

// fuzzServeBudget is the load budget of FuzzRequests' server: small, so that the
// allocation bound (BudgetAllocBytes of it) stays tight.
var fuzzServeBudget = format.Budget{FileBytes: 1 << 20, JSONBytes: 1 << 20, JSONObjects: 20_000, Nodes: 5_000,
	Instances: 1_000, Primitives: 1_000, Vertices: 20_000, Triangles: 40_000, AnimationKeys: 10_000}

// fuzzRequestAlloc bounds one request's allocation: the loads within the budget
// (a batch loads each of its members, so twice for the mesh of a token request
// and its streams' rigs), 8 bytes per body byte (the body, its parts, their
// base64 decodings and the parse), and 48 MiB for scoring a mesh within the
// budget.
func fuzzRequestAlloc(body int) uint64 {
	return uint64(2*format.BudgetAllocBytes(fuzzServeBudget) + 8*int64(body) + 48<<20)
}

// FuzzRequests posts arbitrary bodies to /score/tokens, /score/batch and /score
// (the first byte picks the endpoint and whether the body is multipart): every answer must
// be JSON with a status of its own (200, 400, 413), never 500 or 503, and a
// request may allocate at most fuzzRequestAlloc of its body, the bound that
// docs/hardening.md states.
func FuzzRequests(f *testing.F) {
	mesh, sf := tubeStream(f)
	tokens, _ := json.Marshal(map[string]any{"mesh": mesh, "tokens": sf.Tokens})
	batch, _ := json.Marshal(map[string]any{"mesh": mesh, "streams": []any{sf.Tokens, sf.Tokens}})
	f.Add(append([]byte{0}, tokens...))
	f.Add(append([]byte{1}, batch...))
	f.Add(append([]byte{1}, `{"glbs":["","",""]}`...))
	f.Add(append([]byte{5}, "--fuzzB\r\nContent-Disposition: form-data; name=\"glb\"\r\n\r\n\r\n--fuzzB--\r\n"...))
	f.Add([]byte{0, '[', '1', ',', '1', ']'})
	f.Add(append([]byte{2}, mesh...))
	s := New(Config{MaxBodyBytes: 1 << 20, MaxBatch: 8, Concurrency: 1, CacheBytes: -1, Timeout: 10 * time.Second,
		Budget: fuzzServeBudget, ErrorLog: log.New(io.Discard, "", 0)})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		path := []string{"/score/tokens", "/score/batch", "/score"}[in[0]%4%3]
		req := httptest.NewRequest("POST", path, bytes.NewReader(in[1:]))
		if in[0]&4 != 0 {
			req.Header.Set("Content-Type", "multipart/form-data; boundary=fuzzB")
		}
		rec := httptest.NewRecorder()
		fuzzbound.Check(t, fuzzbound.Bound{Alloc: fuzzRequestAlloc(len(in)), Time: 20 * time.Second}, func() {
			s.ServeHTTP(rec, req)
		})
		if err := checkAnswer(rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	})
}

// checkAnswer accepts a JSON answer with 200, 400 or 413 and no internal error.
func checkAnswer(rec *httptest.ResponseRecorder) error {
	var v struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		return fmt.Errorf("status %d with a body that is not JSON: %q", rec.Code, rec.Body.String())
	}
	switch rec.Code {
	case 200:
		return nil
	case 400, 413:
		if v.Error == "" {
			return fmt.Errorf("status %d without an error", rec.Code)
		}
		return nil
	}
	return fmt.Errorf("status %d: %s", rec.Code, v.Error)
}
