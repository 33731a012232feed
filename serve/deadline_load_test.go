package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/internal/hostile"
)

// TestDeadlineStopsDecoding posts a GLB whose orphan repair takes many seconds
// (hostile.OrphanSphere, under a repair budget raised so that it is not refused)
// to a server of one scoring slot and a 2 s deadline: the request gets 503 at the
// deadline, and the decoding stops there too, so a valid request sent next gets
// the slot and 200 within its own deadline.
func TestDeadlineStopsDecoding(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10 MB GLB and waits for a deadline")
	}
	tc, err := hostile.OrphanSphere(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tc.Path)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Concurrency: 1, Timeout: 2 * time.Second, CacheBytes: -1,
		Budget: format.Budget{RepairWork: 2_000_000_000}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	post := func(body []byte) (int, time.Duration) {
		t0 := time.Now()
		resp, err := http.Post(ts.URL+"/score", "model/gltf-binary", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, time.Since(t0)
	}
	status, took := post(data)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("%s: status %d after %v, want 503 at the deadline", tc.What, status, took)
	}
	valid, tookValid := post(tube(t, 0))
	t.Logf("hostile: %d after %v; the valid request next: %d after %v", status, took, valid, tookValid)
	if valid != http.StatusOK {
		t.Fatalf("the valid request after the hostile one: status %d (its slot was not freed at the deadline)", valid)
	}
}
