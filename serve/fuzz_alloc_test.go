package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/internal/fuzzbound"
	"github.com/rigkit/rigkit/internal/hostile"
)

// TestRequestAllocation posts FuzzRequests' seed corpus and the hostile bodies of
// internal/hostile (sized to the fuzz server's 1 MiB body limit) to the fuzz
// server and requires each request's allocation within fuzzRequestAlloc of its
// body; with -v it logs each measurement, the figures behind that bound.
func TestRequestAllocation(t *testing.T) {
	s := newFuzzServer(t)
	type input struct {
		name string
		in   []byte // as FuzzRequests reads it
	}
	var inputs []input
	for i, seed := range fuzzRequestSeeds(t) {
		inputs = append(inputs, input{fmt.Sprintf("seed %d %s", i, fuzzRequest(seed).URL.Path), seed})
	}
	mesh, sf := tubeStream(t)
	big := budgetMesh(t)
	inputs = append(inputs, input{"budget mesh, 1 stream", streamsBatch(big, sf.Tokens, 1)})
	body, _ := json.Marshal(map[string]any{"mesh": big, "tokens": sf.Tokens})
	inputs = append(inputs, input{"budget mesh, tokens", append([]byte{0}, body...)})
	inputs = append(inputs, input{"budget mesh, /score", append([]byte{2}, big...)})
	for _, r := range hostile.Requests(mesh, 1<<20-4<<10) {
		body, ctype := r.Body()
		inputs = append(inputs, input{r.Name, hostileFuzzInput(r.Path, ctype, body)})
	}
	var worst float64
	for _, tc := range inputs {
		rec := httptest.NewRecorder()
		req := fuzzRequest(tc.in)
		runtime.GC()
		before := fuzzbound.Allocated()
		s.ServeHTTP(rec, req)
		alloc := fuzzbound.Allocated() - before
		bound := fuzzRequestAlloc(len(tc.in))
		worst = max(worst, float64(alloc)/float64(bound))
		t.Logf("%-28s %d: %8d B body, %6.2f MiB allocated, bound %6.2f MiB (%.2f)", tc.name, rec.Code, len(tc.in),
			float64(alloc)/(1<<20), float64(bound)/(1<<20), float64(alloc)/float64(bound))
		if alloc > bound {
			t.Errorf("%s: allocated %d B, bound %d B", tc.name, alloc, bound)
		}
		if err := checkAnswer(rec); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	t.Logf("largest share of the bound: %.2f", worst)
}

// hostileFuzzInput encodes a hostile request as a FuzzRequests input; a multipart
// body has its boundary renamed fuzzB, the one fuzzRequest announces.
func hostileFuzzInput(path, ctype string, body []byte) []byte {
	sel := map[string]byte{"/score/tokens": 0, "/score/batch": 1, "/score": 2}[path]
	if _, boundary, ok := bytes.Cut([]byte(ctype), []byte("boundary=")); ok {
		body = bytes.ReplaceAll(body, boundary, []byte("fuzzB"))
		sel |= 4
	}
	return append([]byte{sel}, body...)
}

// budgetMesh is a GLB at fuzzServeBudget's vertex limit: one strip of 20,000
// vertices and 19,998 triangles.
func budgetMesh(t testing.TB) []byte {
	p, err := hostile.Mesh(t.TempDir(), "budget.glb", fuzzServeBudget.Vertices, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
