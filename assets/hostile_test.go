package assets_test

import (
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/hostile"
)

// TestHostileInputs loads every case of internal/hostile with the default budget:
// each must give its clear error (or load, for the valid and image cases) within
// seconds, allocating a bounded amount, and no character may carry bytes of the
// file outside the case's folder.
func TestHostileInputs(t *testing.T) {
	cases, err := hostile.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			done := make(chan struct{})
			var c *character.Character
			var rep *format.LoadReport
			var lerr error
			before := allocated()
			go func() {
				defer close(done)
				c, rep, lerr = assets.Load(tc.Path, assets.Options{AllowOrphans: true})
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%v: no answer after 30 s", tc)
			}
			alloc := allocated() - before
			t.Logf("%s: %d MiB allocated, err: %v", tc.Name, alloc>>20, lerr)
			if alloc > 1<<30 {
				t.Errorf("%v: allocated %d MiB", tc, alloc>>20)
			}
			if tc.Want == "" {
				if lerr != nil {
					t.Fatalf("%v: %v", tc, lerr)
				}
				for _, m := range c.Materials {
					if m.BaseColorTexture != nil && strings.Contains(string(m.BaseColorTexture.Data), hostile.Secret) {
						t.Errorf("%v: the texture holds the outside file's bytes", tc)
					}
				}
				_ = rep
				return
			}
			if lerr == nil {
				t.Fatalf("%v: loaded without error", tc)
			}
			if !strings.Contains(lerr.Error(), tc.Want) || !strings.Contains(lerr.Error(), tc.Path) {
				t.Errorf("%v: error %q does not name the file and %q", tc, lerr, tc.Want)
			}
		})
	}
}

// allocated returns the bytes this process has allocated on the heap so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
