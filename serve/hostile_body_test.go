package serve

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/rigkit/rigkit/internal/fuzzbound"
	"github.com/rigkit/rigkit/internal/hostile"
)

// hostileBodySize is the size of each hostile body: just under the default
// --max-body of 64 MiB, as an attacker would send.
const hostileBodySize = 60 << 20

// TestHostileBodiesMemory posts each hostile body of internal/hostile (60 MiB of
// "1," as a token stream, a batch of millions of empty parts or empty GLBs) and
// requires its status and an allocation, client and server together, of at most
// 4 bytes per body byte + 32 MiB: the body read into memory (its buffer grows by
// doubling), one copy of a part, and what parsing keeps. Parsed whole, the same
// bodies cost a slice header per element, gigabytes.
func TestHostileBodiesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("posts 60 MiB bodies")
	}
	mesh, _ := tubeStream(t)
	srv := New(Config{Concurrency: 1})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, req := range hostile.Requests(mesh, hostileBodySize) {
		t.Run(req.Name, func(t *testing.T) {
			body, ctype := req.Body()
			runtime.GC()
			var status int
			var answer []byte
			bound := uint64(4*len(body) + 32<<20)
			before := fuzzbound.Allocated()
			fuzzbound.Check(t, fuzzbound.Bound{Alloc: bound}, func() {
				resp, err := http.Post(ts.URL+req.Path, ctype, bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				answer, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				status = resp.StatusCode
			})
			t.Logf("%s: %d, %.1f MiB allocated for a %.1f MiB body: %.200s", req.What, status,
				float64(fuzzbound.Allocated()-before)/(1<<20), float64(len(body))/(1<<20), answer)
			if status != req.Status {
				t.Errorf("status %d, want %d: %s", status, req.Status, answer)
			}
		})
	}
	if n := srv.InFlightBytes(); n != 0 {
		t.Errorf("%d body bytes still reserved", n)
	}
}
