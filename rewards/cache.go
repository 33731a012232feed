package rewards

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/rigkit/rigkit/character"
)

// meshKey is the content hash of a mesh as scoring sees it: vertex positions and
// triangle indices (normals, UVs, materials and any rig are left out), so every rig of
// an RL group on one mesh has the same key whatever file it came in.
type meshKey [sha256.Size]byte

// keyOf returns m's meshKey.
func keyOf(m *character.Mesh) meshKey {
	h := sha256.New()
	var buf [8 * 3 * 64]byte
	n := 0
	flush := func() {
		h.Write(buf[:n])
		n = 0
	}
	binary.LittleEndian.PutUint64(buf[0:], uint64(len(m.Positions)))
	binary.LittleEndian.PutUint64(buf[8:], uint64(len(m.Triangles)))
	n = 16
	for _, p := range m.Positions {
		if n+24 > len(buf) {
			flush()
		}
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint64(buf[n:], math.Float64bits(p[k]))
			n += 8
		}
	}
	for _, t := range m.Triangles {
		if n+24 > len(buf) {
			flush()
		}
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint64(buf[n:], uint64(int64(t[k])))
			n += 8
		}
	}
	flush()
	var k meshKey
	h.Sum(k[:0])
	return k
}

// Cache keeps prepared meshes by content (meshKey and the options preparation depends
// on) in a least-recently-used list bounded by an estimate of their memory, so that
// a GRPO group of rigs on one mesh pays preparation once. Concurrent requests for a
// mesh being prepared wait for that one preparation. A nil *Cache prepares every time.
// Safe for concurrent use.
type Cache struct {
	maxBytes int64

	mu      sync.Mutex
	entries map[cacheKey]*list.Element
	lru     *list.List // front: most recently used; values *cacheEntry
	bytes   int64
	hits    int64
	misses  int64
}

type cacheKey struct {
	mesh         meshKey
	seed         int64
	samples      int
	maxTriangles int
}

type cacheEntry struct {
	key   cacheKey
	ready chan struct{} // closed when p and err are set
	p     *Prepared
	err   error
	bytes int64
	// counted is whether bytes are in Cache.bytes (set under Cache.mu).
	counted bool
}

// CacheStats are a Cache's counters.
type CacheStats struct {
	Hits    int64 `json:"hits"`
	Misses  int64 `json:"misses"`
	Entries int   `json:"entries"`
	// Bytes is the estimated memory of the cached meshes.
	Bytes    int64 `json:"bytes"`
	MaxBytes int64 `json:"max_bytes"`
}

// NewCache returns a cache holding prepared meshes up to about maxBytes of memory
// (estimated by Prepared.SizeBytes); a mesh larger than that on its own is prepared
// but not kept.
func NewCache(maxBytes int64) *Cache {
	return &Cache{maxBytes: maxBytes, entries: map[cacheKey]*list.Element{}, lru: list.New()}
}

// Prepare returns the prepared form of m for opt, from the cache when an equal mesh
// was prepared with the same seed and sample count. Failures are not cached.
func (c *Cache) Prepare(m *character.Mesh, opt Options) (*Prepared, error) {
	if c == nil {
		return preparePanicSafe(m, opt)
	}
	opt = opt.withDefaults()
	key := cacheKey{keyOf(m), opt.Seed, opt.SurfaceSamples, opt.MaxTriangles}
	for {
		p, waited, err := c.prepare(m, key, opt)
		// A preparation another request canceled is not this request's failure.
		if !waited || !errors.Is(err, ErrCanceled) || opt.canceled() {
			return p, err
		}
	}
}

// prepare returns the cached or newly prepared mesh; waited is whether it came from
// another request's preparation.
func (c *Cache) prepare(m *character.Mesh, key cacheKey, opt Options) (p *Prepared, waited bool, err error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		c.hits++
		c.mu.Unlock()
		select {
		case <-e.ready:
			return e.p, true, e.err
		case <-opt.Cancel:
			return nil, false, ErrCanceled
		}
	}
	c.misses++
	e := &cacheEntry{key: key, ready: make(chan struct{})}
	el := c.lru.PushFront(e)
	c.entries[key] = el
	c.mu.Unlock()

	e.p, e.err = preparePanicSafe(m, opt)
	if e.p != nil {
		e.bytes = e.p.sizeBytes()
	}
	// The entry is final before waiters wake: a failure is removed below, so a later
	// request prepares again instead of waiting on, or reusing, a failed entry.
	close(e.ready)

	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.entries[key]; !ok || cur != el {
		return e.p, false, e.err // evicted while being prepared
	}
	if e.err != nil || e.bytes > c.maxBytes {
		c.remove(el)
		return e.p, false, e.err
	}
	c.bytes += e.bytes
	e.counted = true
	for c.bytes > c.maxBytes {
		back := c.lru.Back()
		if back == nil || back == el {
			break
		}
		c.remove(back)
	}
	return e.p, false, e.err
}

// preparePanicSafe is Prepare with a panic turned into an error, so that a mesh
// that crashes preparation fails its own request and never leaves a cache entry
// whose waiters block forever.
func preparePanicSafe(m *character.Mesh, opt Options) (p *Prepared, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("prepare mesh: internal error: %v", r)
		}
	}()
	return prepareHook(m, opt)
}

// prepareHook is Prepare; tests replace it to make preparation fail.
var prepareHook = Prepare

// remove drops an element; callers hold c.mu. Waiters on an entry still being
// prepared keep their reference and get its result.
func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	if cur, ok := c.entries[e.key]; ok && cur == el {
		delete(c.entries, e.key)
	}
	c.lru.Remove(el)
	if e.counted {
		c.bytes -= e.bytes
		e.counted = false
	}
}

// Stats returns the cache's counters (zero for a nil cache).
func (c *Cache) Stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Entries: c.lru.Len(), Bytes: c.bytes, MaxBytes: c.maxBytes}
}

// Score prepares ch's mesh through the cache and scores its rig (see Score).
func (c *Cache) Score(ch *character.Character, opt Options) (*Report, error) {
	if ch == nil {
		return nil, errors.New("score: nil character")
	}
	p, err := c.Prepare(&ch.Mesh, opt)
	if err != nil {
		return nil, fmt.Errorf("score %s: %w", ch.Name, err)
	}
	return p.Score(ch, opt)
}
