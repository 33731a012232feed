package rewards

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/character"
)

// The mesh key depends on positions and triangles only.
func TestKeyOf(t *testing.T) {
	c := capsuleMan(1, false).character(24)
	k := keyOf(&c.Mesh)
	same := c.Mesh.Clone()
	same.Normals = nil
	same.UVs = nil
	if keyOf(&same) != k {
		t.Error("dropping normals and UVs changed the key")
	}
	moved := c.Mesh.Clone()
	moved.Positions[3][1] += 1e-9
	if keyOf(&moved) == k {
		t.Error("moving a vertex kept the key")
	}
	flipped := c.Mesh.Clone()
	flipped.Triangles[0][0], flipped.Triangles[0][1] = flipped.Triangles[0][1], flipped.Triangles[0][0]
	if keyOf(&flipped) == k {
		t.Error("reordering a triangle kept the key")
	}
}

// Concurrent requests for one mesh prepare it once, later ones hit, scores equal the
// uncached ones, and the memory bound evicts the least recently used mesh.
func TestCache(t *testing.T) {
	a := capsuleMan(1, false).character(24)
	b := capsuleMan(2, true).character(24)
	opt := Options{Poses: 2}
	pa, err := Prepare(&a.Mesh, opt)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := Prepare(&b.Mesh, opt)
	if err != nil {
		t.Fatal(err)
	}
	if pa.sizeBytes() <= 0 || pb.sizeBytes() <= 0 {
		t.Fatalf("sizes %d %d", pa.sizeBytes(), pb.sizeBytes())
	}
	// Room for one of the two meshes only.
	c := NewCache(max(pa.sizeBytes(), pb.sizeBytes()) + max(pa.sizeBytes(), pb.sizeBytes())/2)
	var wg sync.WaitGroup
	got := make([]*Prepared, 6)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p, err := c.Prepare(&a.Mesh, opt)
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		}(i)
	}
	wg.Wait()
	for _, p := range got[1:] {
		if p != got[0] {
			t.Fatal("concurrent requests got different prepared meshes")
		}
	}
	if s := c.Stats(); s.Misses != 1 || s.Hits != 5 || s.Entries != 1 {
		t.Errorf("after 6 requests for one mesh: %+v, want 1 miss, 5 hits, 1 entry", s)
	}
	want, err := Score(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Score(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Score != want.Score {
		t.Errorf("cached score %v, uncached %v", rep.Score, want.Score)
	}
	// Another seed is another preparation.
	if p, _ := c.Prepare(&a.Mesh, Options{Seed: 5}); p == got[0] {
		t.Error("a different seed reused the prepared mesh")
	}
	// A second mesh evicts the older entries; asking for a again prepares it again.
	if _, err := c.Prepare(&b.Mesh, opt); err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Entries != 1 || s.Bytes > s.MaxBytes {
		t.Errorf("after a second mesh: %+v, want 1 entry within the bound", s)
	}
	misses := c.Stats().Misses
	if _, err := c.Prepare(&a.Mesh, opt); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Misses != misses+1 {
		t.Error("an evicted mesh was not prepared again")
	}
	// Failures are not cached; a nil cache prepares every time.
	if _, err := c.Prepare(&character.Mesh{}, opt); err == nil {
		t.Error("empty mesh: no error")
	}
	var none *Cache
	if rep, err := none.Score(a, opt); err != nil || rep.Score != want.Score {
		t.Errorf("nil cache: %v, %v", rep, err)
	}
}

// A panic during preparation fails that request with an error, leaves no entry, and
// the next request for the mesh prepares it again instead of blocking or reusing the
// failure.
func TestCacheDropsFailedEntry(t *testing.T) {
	a := capsuleMan(1, false).character(24)
	cache := NewCache(1 << 30)
	prepareHook = func(*character.Mesh, Options) (*Prepared, error) { panic("boom") }
	_, err := cache.Prepare(&a.Mesh, Options{})
	prepareHook = Prepare
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panicking preparation: err %v, want the panic as an error", err)
	}
	if st := cache.Stats(); st.Entries != 0 {
		t.Fatalf("failed preparation left %d entries", st.Entries)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cache.Prepare(&a.Mesh, Options{})
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatalf("second preparation: %v", err)
	}
	if st := cache.Stats(); st.Entries != 1 {
		t.Fatalf("entries %d after a good preparation, want 1", st.Entries)
	}
}

// A closed Cancel stops Prepare and Score with ErrCanceled and caches nothing; an
// open one leaves every reward bit for bit as without it.
func TestCancel(t *testing.T) {
	c := capsuleMan(1, false).character(24)
	closed := make(chan struct{})
	close(closed)
	cache := NewCache(1 << 30)
	if _, err := cache.Score(c, Options{Poses: 2, Cancel: closed}); !errors.Is(err, ErrCanceled) {
		t.Fatalf("canceled score: err %v, want ErrCanceled", err)
	}
	if st := cache.Stats(); st.Entries != 0 {
		t.Fatalf("canceled preparation left %d entries", st.Entries)
	}
	p, err := Prepare(&c.Mesh, Options{Poses: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Score(c, Options{Poses: 2, Cancel: closed}); !errors.Is(err, ErrCanceled) {
		t.Fatalf("canceled score on a prepared mesh: err %v, want ErrCanceled", err)
	}
	want, err := Score(c, Options{Poses: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cache.Score(c, Options{Poses: 2, Cancel: make(chan struct{})})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range want.Rewards {
		if math.Float64bits(got.Rewards[name]) != math.Float64bits(v) {
			t.Errorf("%s: %v with an open Cancel, %v without", name, got.Rewards[name], v)
		}
	}
}
