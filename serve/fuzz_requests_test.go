package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
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

// fuzzMaxBatch is the most rigs of one request to FuzzRequests' server.
const fuzzMaxBatch = 8

// fuzzRigAllocPerVertex bounds what scoring one rig allocates per vertex of its
// mesh (decoding a token stream's skin, deforming and scoring it): 2.2 KiB
// measured on a mesh at the budget's vertex limit (TestRequestAllocation), with
// 1.5× margin.
const fuzzRigAllocPerVertex = 3 << 10

// fuzzRequestAlloc bounds one request's allocation: two loads within the budget
// (a batch's members are loaded one by one, each within it), scoring fuzzMaxBatch
// rigs on a mesh at the vertex limit, and the body bound of TestHostileBodiesMemory
// (4 B per body byte + 32 MiB: the body, its parts, their base64 decodings and the
// parse). It is 651 MiB for a 1 MiB body; the heaviest seed, eight streams on a
// mesh at the vertex limit, allocates 360 to 370 MiB (0.57 of it), so twice that
// fails.
func fuzzRequestAlloc(body int) uint64 {
	b := fuzzServeBudget
	rigs := int64(fuzzMaxBatch) * fuzzRigAllocPerVertex * int64(b.Vertices)
	return uint64(2*format.BudgetAllocBytes(b) + rigs + 4*int64(body) + 32<<20)
}

// FuzzRequests posts arbitrary bodies to /score/tokens, /score/batch and /score
// (the first byte picks the endpoint and whether the body is multipart): every answer must
// be JSON with a status of its own (200, 400, 413), never 500 or 503, and a
// request may allocate at most fuzzRequestAlloc of its body, the bound that
// docs/hardening.md states. The seed corpus runs in a fixed order on one server
// without a cache, so its run is deterministic.
func FuzzRequests(f *testing.F) {
	for _, seed := range fuzzRequestSeeds(f) {
		f.Add(seed)
	}
	s := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		req := fuzzRequest(in)
		rec := httptest.NewRecorder()
		fuzzbound.Check(t, fuzzbound.Bound{Alloc: fuzzRequestAlloc(len(in)), Time: 20 * time.Second}, func() {
			s.ServeHTTP(rec, req)
		})
		if err := checkAnswer(rec); err != nil {
			t.Fatalf("%s: %v", req.URL.Path, err)
		}
	})
}

// fuzzRequestSeeds are FuzzRequests' seed corpus: a token request and a batch on a
// 156-vertex tube, empty GLBs as JSON and as multipart, a stream without a mesh,
// the tube posted to /score, and the heaviest request within the limits: a batch
// of fuzzMaxBatch streams on a mesh at the budget's vertex limit.
func fuzzRequestSeeds(t testing.TB) [][]byte {
	mesh, sf := tubeStream(t)
	tokens, _ := json.Marshal(map[string]any{"mesh": mesh, "tokens": sf.Tokens})
	batch, _ := json.Marshal(map[string]any{"mesh": mesh, "streams": []any{sf.Tokens, sf.Tokens}})
	return [][]byte{
		streamsBatch(budgetMesh(t), sf.Tokens, fuzzMaxBatch),
		append([]byte{0}, tokens...),
		append([]byte{1}, batch...),
		append([]byte{1}, `{"glbs":["","",""]}`...),
		append([]byte{5}, "--fuzzB\r\nContent-Disposition: form-data; name=\"glb\"\r\n\r\n\r\n--fuzzB--\r\n"...),
		{0, '[', '1', ',', '1', ']'},
		append([]byte{2}, mesh...),
	}
}

// fuzzTimeout is the fuzz servers' request timeout (newFuzzServer).
const fuzzTimeout = 5 * time.Second

// newFuzzServer is FuzzRequests' server, its skin tokenizer loaded beforehand: that
// is once per process, not part of any request's cost. Its Timeout (fuzzTimeout)
// stays under the 10 s after which Go's fuzzing engine takes an input for a hang
// and kills the worker: a request that waits out the whole timeout (the corpus's
// b82872c9f32d696f, a batch on a budget-size mesh whose streams all time out
// waiting for the one scoring slot) must end before that.
func newFuzzServer(t testing.TB) *Server {
	s := New(Config{MaxBodyBytes: 1 << 20, MaxBatch: fuzzMaxBatch, Concurrency: 1, CacheBytes: -1, Timeout: fuzzTimeout,
		Budget: fuzzServeBudget, ErrorLog: log.New(io.Discard, "", 0)})
	if _, err := s.skinTokenizer(); err != nil {
		t.Fatal(err)
	}
	return s
}

// streamsBatch is a FuzzRequests input: a /score/batch of n copies of stream on
// mesh.
func streamsBatch(mesh []byte, stream []int, n int) []byte {
	streams := make([]any, n)
	for i := range streams {
		streams[i] = stream
	}
	body, _ := json.Marshal(map[string]any{"mesh": mesh, "streams": streams})
	return append([]byte{1}, body...)
}

// fuzzRequest turns a fuzz input into a request: the first byte picks the
// endpoint (mod 4 mod 3: /score/tokens, /score/batch, /score) and, with bit 4, a
// multipart body of boundary fuzzB; the rest is the body.
func fuzzRequest(in []byte) *http.Request {
	path := []string{"/score/tokens", "/score/batch", "/score"}[in[0]%4%3]
	req := httptest.NewRequest("POST", path, bytes.NewReader(in[1:]))
	if in[0]&4 != 0 {
		req.Header.Set("Content-Type", "multipart/form-data; boundary=fuzzB")
	}
	return req
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
