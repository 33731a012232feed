package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzScore posts arbitrary bodies to /score. Every answer must be 200 with a
// report, or 400, 413 or 503 with a JSON error; a 500 (a recovered panic) or an
// error naming an internal error fails, as does a request slower than 10 s.
func FuzzScore(f *testing.F) {
	glb := tube(f, 0)
	f.Add(glb)
	f.Add(glb[:len(glb)/2])
	f.Add(amplificationGLB(40, 10))
	f.Add(amplificationGLB(1, 10))
	f.Add([]byte("glTF"))
	f.Add([]byte(`{"asset":{"version":"2.0"},"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"accessors":[{"count":3,"componentType":5126,"type":"VEC3"}]}`))
	s := New(Config{MaxBodyBytes: 1 << 20, Concurrency: 1, CacheBytes: -1, Timeout: fuzzTimeout,
		ErrorLog: log.New(io.Discard, "", 0)})
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("POST", "/score", bytes.NewReader(body)))
		var v struct {
			Error string   `json:"error"`
			Score *float64 `json:"score"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("status %d with a body that is not JSON: %q", rec.Code, rec.Body.String())
		}
		switch rec.Code {
		case 200:
			if v.Score == nil {
				t.Fatalf("200 without a score: %s", rec.Body.String())
			}
		case 400, 413:
			if v.Error == "" || strings.Contains(v.Error, "internal error") {
				t.Fatalf("status %d: error %q", rec.Code, v.Error)
			}
		case 503:
			t.Fatalf("503 (timed out) on a %d-byte body: %s", len(body), v.Error)
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	})
}
