// Package serve is rigkit's HTTP scoring service: outside RL trainers POST rigged GLB
// files, or a mesh and the token streams a model generated for it, and get the
// rewards JSON of package rewards, one at a time or as a GRPO group with advantages.
// Requests are size-limited, time-limited and run at most a fixed number at a time
// (the core count by default); prepared meshes are cached by content, so a group of
// rigs on one mesh pays mesh preparation once.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/skincodec"
)

// Config sets the service's limits. The zero value gives the defaults.
type Config struct {
	// MaxBodyBytes caps one request body (default 64 MiB); larger requests get 413.
	MaxBodyBytes int64
	// MaxBatch caps the rigs of one batch (default 64).
	MaxBatch int
	// Concurrency caps rigs scored at once (default runtime.NumCPU()).
	Concurrency int
	// Timeout caps one request, including waiting for a scoring slot (default 60 s);
	// a request that runs out gets 503.
	Timeout time.Duration
	// CacheBytes bounds the memory of the prepared-mesh cache (default 512 MiB,
	// roughly a hundred 10k-triangle meshes); negative disables the cache.
	CacheBytes int64
	// SkinTokenizer decodes the skin tokens of /score/tokens (default: the shipped
	// skincodec.Load(""), loaded on the first token request).
	SkinTokenizer *skincodec.SkinTokenizer
	// Options are the scoring options (poses, seed, limits).
	Options rewards.Options
	// MaxInFlightBytes caps the request bodies held at once (default 4 ×
	// MaxBodyBytes): a request whose Content-Length (MaxBodyBytes when unknown)
	// does not fit gets 503 before its body is read.
	MaxInFlightBytes int64
	// Budget caps every GLB the service decodes (the scored files, the meshes of
	// token requests): the loader's budget, checked on the declared counts before
	// any geometry is read. A file over it gets 413 with the loader's error, which
	// names the limit and the flag that raises it. Zero fields take
	// format.CurrentBudget's, which rig serve's --max-* flags set.
	Budget format.Budget
	Conn   ConnTimeouts
	// Client bounds what one client address may hold: body bytes in flight, and
	// the slowest rate its bodies may arrive at.
	Client ClientLimits
	// ErrorLog receives internal errors (recovered panics with their stacks) and the
	// http.Server's connection errors (default: the standard logger).
	ErrorLog *log.Logger
}

// ConnTimeouts are the connection deadlines of HTTPServer, apart from the request's
// Timeout because they bound the connection, not the work: ReadHeaderTimeout
// (default 10 s), ReadTimeout for the whole request with its body (default 30 s),
// WriteTimeout (default ReadTimeout + Config.Timeout + 10 s), IdleTimeout (default
// 2 min).
type ConnTimeouts struct {
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// ClientLimits bound one client address, so that one client's slow bodies cannot
// hold the whole in-flight budget: MaxInFlightBytes of bodies at once (default
// half of Config.MaxInFlightBytes, at least one largest body; beyond it 503
// before reading), and bodies that
// arrive slower than MinBodyRate bytes per second once BodyGrace has passed
// (default 64 KiB/s after 2 s) are cut with 408 and the connection closed.
type ClientLimits struct {
	MaxInFlightBytes int64
	MinBodyRate      int64
	BodyGrace        time.Duration
}

func (c Config) withDefaults() Config {
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 64 << 20
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 64
	}
	if c.Concurrency <= 0 {
		c.Concurrency = runtime.NumCPU()
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = 512 << 20
	}
	if c.MaxInFlightBytes <= 0 {
		c.MaxInFlightBytes = 4 * c.MaxBodyBytes
	}
	if c.Client.MaxInFlightBytes <= 0 {
		c.Client.MaxInFlightBytes = max(c.MaxInFlightBytes/2, min(c.MaxBodyBytes, c.MaxInFlightBytes))
	}
	if c.Client.MinBodyRate <= 0 {
		c.Client.MinBodyRate = 64 << 10
	}
	if c.Client.BodyGrace <= 0 {
		c.Client.BodyGrace = 2 * time.Second
	}
	if c.ErrorLog == nil {
		c.ErrorLog = log.Default()
	}
	return c.connDefaults()
}

// Server scores rigs over HTTP. Create it with New; it is an http.Handler.
type Server struct {
	cfg   Config
	sem   chan struct{}
	large chan struct{} // the slots large bodies may take: one fewer than sem's
	mux   *http.ServeMux
	cache *rewards.Cache // nil when disabled
	// bodies is the budget of request body bytes in flight.
	bodies bodyBudget

	tokOnce sync.Once
	tok     *skincodec.SkinTokenizer
	tokErr  error
	tokFP   string // tok's Fingerprint
}

// New returns a scoring server with cfg's limits.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), mux: http.NewServeMux(),
		large: make(chan struct{}, max(1, cfg.Concurrency-1))}
	s.bodies.limit, s.bodies.clientLimit = cfg.MaxInFlightBytes, cfg.Client.MaxInFlightBytes
	if cfg.CacheBytes > 0 {
		s.cache = rewards.NewCache(cfg.CacheBytes)
	}
	s.mux.HandleFunc("GET /healthz", s.health)
	s.mux.HandleFunc("POST /score", s.score)
	s.mux.HandleFunc("POST /score/tokens", s.scoreTokens)
	s.mux.HandleFunc("POST /score/batch", s.batch)
	return s
}

// ServeHTTP implements http.Handler: it admits a POST body into the in-flight
// budget, limits the request to Timeout and answers a panic with 500. /healthz
// passes none of the gates, so it answers however busy the scoring is.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &statusWriter{ResponseWriter: rw}
	defer s.recoverRequest(w, r)
	if r.Method == http.MethodPost {
		release, ok := s.admitBody(w, r)
		if !ok {
			return
		}
		defer release()
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	if r.Method == http.MethodPost && (r.ContentLength < 0 || r.ContentLength > smallBody) {
		ctx = context.WithValue(ctx, largeBody{}, true)
	}
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

// smallBody is the largest body (bytes) that may take the last free scoring slot.
// Bodies over it (or of unknown length) share Concurrency−1 slots, so a slot stays
// free for ordinary rigs (a 5k-vertex GLB is about 0.4 MiB) while large uploads
// decode, repair and score: a few slow large requests cannot hold every slot.
const smallBody = 1 << 20

// largeBody marks a request context whose body is over smallBody.
type largeBody struct{}

// options are the scoring options of one request: scoring stops when ctx ends.
func (s *Server) options(ctx context.Context) rewards.Options {
	opt := s.cfg.Options
	opt.Cancel = ctx.Done()
	return opt
}

// CacheStats returns the prepared-mesh cache's counters.
func (s *Server) CacheStats() rewards.CacheStats { return s.cache.Stats() }

// errorBody is every error response. Position is set for a token stream that breaks
// the grammar: the index of the first token not allowed.
type errorBody struct {
	Error    string `json:"error"`
	Position *int   `json:"position,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // error messages quote tokens such as <EOS>
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: fmt.Sprintf(format, args...)})
}

// writeErr answers err with status, adding the position of a stream error.
func writeErr(w http.ResponseWriter, status int, err error) {
	body := errorBody{Error: err.Error()}
	var se *StreamError
	if errors.As(err, &se) {
		pos := se.Position
		body.Position = &pos
	}
	writeJSON(w, status, body)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "reward_version": rewards.RewardVersion, "reward_change": rewards.RewardChange, "rewards": rewards.RewardNames, "concurrency": s.cfg.Concurrency, "cache": s.cache.Stats()})
}

// withSlot runs job under the concurrency bound, turning a panic into a 500; status
// is the HTTP status for an error (503 when no slot came before the deadline).
//
// The request is answered at its deadline even when job is inside a step that cannot
// be interrupted (decoding, the BVH build, skin decoding of a huge mesh): job then
// finishes on its own goroutine and keeps its slot until it does, so the CPU and
// memory bound of Concurrency holds. Callers read what job writes only when withSlot
// returns no error.
func (s *Server) withSlot(ctx context.Context, name string, job func() error) (status int, err error) {
	release, ok := s.acquire(ctx)
	if !ok {
		return http.StatusServiceUnavailable, fmt.Errorf("%s: timed out waiting for a scoring slot", name)
	}
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		defer release()
		defer func() {
			if p := recover(); p != nil {
				s.cfg.ErrorLog.Printf("rig serve: %s: internal error: %v\n%s", name, p, debug.Stack())
				done <- result{http.StatusInternalServerError, fmt.Errorf("%s: internal error: %v", name, p)}
			}
		}()
		if err := job(); err != nil {
			done <- result{errStatus(err), err}
			return
		}
		done <- result{http.StatusOK, nil}
	}()
	select {
	case r := <-done:
		if r.err == nil && ctx.Err() != nil { // the deadline came while the job ran
			return http.StatusServiceUnavailable, fmt.Errorf("%s: %w", name, rewards.ErrCanceled)
		}
		return r.status, r.err
	case <-ctx.Done():
		return http.StatusServiceUnavailable, fmt.Errorf("%s: %w at the request deadline", name, rewards.ErrCanceled)
	}
}

// acquire takes a scoring slot before ctx ends, and for a large body one of the
// slots large bodies share first (smallBody); release gives back what it took.
func (s *Server) acquire(ctx context.Context) (release func(), ok bool) {
	large, _ := ctx.Value(largeBody{}).(bool)
	if large {
		select {
		case s.large <- struct{}{}:
		case <-ctx.Done():
			return nil, false
		}
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		if large {
			<-s.large
		}
		return nil, false
	}
	return func() {
		<-s.sem
		if large {
			<-s.large
		}
	}, true
}

// load is the loader's options for every GLB the service decodes: the budget,
// and the request's deadline, at which decoding stops (format.ErrLoadCanceled) and
// frees its scoring slot.
func (s *Server) load(ctx context.Context) assets.Options {
	return assets.Options{Budget: s.cfg.Budget, Cancel: ctx.Done()}
}

// scoreGLB decodes (within the budget) and scores one rigged GLB under a scoring
// slot, its mesh prepared through the cache.
func (s *Server) scoreGLB(ctx context.Context, data []byte, name string) (rep *rewards.Report, status int, err error) {
	status, err = s.withSlot(ctx, name, func() (err error) {
		rep, err = s.cache.ScoreGLBWith(data, name, s.options(ctx), s.load(ctx))
		return err
	})
	if err != nil {
		return nil, status, err
	}
	return rep, status, nil
}

func (s *Server) score(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	if len(data) == 0 {
		writeError(w, http.StatusBadRequest, "empty body: POST the GLB bytes")
		return
	}
	rep, status, err := s.scoreGLB(r.Context(), data, "request.glb")
	if err != nil {
		writeErr(w, status, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// BatchRequest is the JSON form of POST /score/batch: either GLBs, or one Mesh with
// Streams (token streams for that mesh, each a JSON array of token ids or an object
// with "tokens" and optional "names" as `rig tokenize` writes).
type BatchRequest struct {
	// GLBs are base64-encoded rigged GLB files, one group.
	GLBs []string `json:"glbs,omitempty"`
	// Mesh is a base64-encoded GLB whose mesh the Streams rig (any rig in it is
	// ignored).
	Mesh string `json:"mesh,omitempty"`
	// Streams are the group's token streams on Mesh.
	Streams []json.RawMessage `json:"streams,omitempty"`
	// ScaleByStd divides advantages by the group's standard deviation.
	ScaleByStd bool `json:"scale_by_std"`
}

// BatchItem is one rig's result in a batch; a rig that fails to score (a broken GLB,
// a token stream that breaks the grammar) gets score 0 and its error, and the
// position of the first bad token for a stream.
type BatchItem struct {
	Score     float64            `json:"score"`
	Rewards   map[string]float64 `json:"rewards,omitempty"`
	Problems  []string           `json:"problems,omitempty"`
	Error     string             `json:"error,omitempty"`
	Position  *int               `json:"position,omitempty"`
	Advantage float64            `json:"advantage"`
}

// BatchResponse is the answer of POST /score/batch.
type BatchResponse struct {
	Results    []BatchItem `json:"results"`
	Advantages []float64   `json:"advantages"`
}

// batchInput is a parsed batch: GLB files, or a mesh and token streams.
type batchInput struct {
	glbs    [][]byte
	mesh    []byte
	streams [][]byte // raw JSON, parsed per item so one bad stream fails alone
	scale   bool
}

// parseBatch reads a batch from a multipart body or from JSON, streamed and
// counted: more rigs than MaxBatch stop the parse with errTooMany (413) at the
// first one over.
func (s *Server) parseBatch(r *http.Request, data []byte) (*batchInput, error) {
	in := &batchInput{}
	// The rigs, a mesh and scale_by_std.
	isMultipart, err := readParts(r, data, s.cfg.MaxBatch+2, func(name string, b []byte) error {
		switch name {
		case "scale_by_std":
			in.scale = strings.TrimSpace(string(b)) == "true"
		case "mesh":
			if in.mesh != nil {
				return errors.New("batch: more than one mesh part")
			}
			in.mesh = b
		case "tokens":
			in.streams = append(in.streams, b)
		default: // any other part is a rigged GLB
			in.glbs = append(in.glbs, b)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !isMultipart {
		err := in.readJSON(data, s.cfg.MaxBatch)
		if errors.Is(err, errTooMany) {
			return nil, fmt.Errorf("batch: %w", err)
		}
		if err != nil {
			return nil, fmt.Errorf("batch: body is neither multipart nor JSON {\"glbs\": [base64...]} or {\"mesh\": base64, \"streams\": [...]}: %w", err)
		}
	}
	if n := len(in.glbs) + len(in.streams); n > s.cfg.MaxBatch {
		return nil, fmt.Errorf("batch of %d rigs above the limit of %d: %w", n, s.cfg.MaxBatch, errTooMany)
	}
	switch {
	case len(in.glbs) > 0 && (in.mesh != nil || len(in.streams) > 0):
		return nil, errors.New("batch: send either GLB files or a mesh with token streams, not both")
	case in.mesh == nil && len(in.streams) > 0:
		return nil, errors.New("batch: token streams without a mesh")
	case in.mesh != nil && len(in.streams) == 0:
		return nil, errors.New("batch: a mesh without token streams")
	case len(in.glbs) == 0 && len(in.streams) == 0:
		return nil, errors.New("batch: no GLB files and no token streams")
	}
	return in, nil
}

// readJSON reads a BatchRequest element by element, at most maxRigs GLBs and
// streams each.
func (in *batchInput) readJSON(data []byte, maxRigs int) error {
	dec := newDecoder(data)
	return jsonObject(dec, func(key string) (bool, error) {
		switch key {
		case "glbs":
			return true, jsonArray(dec, maxRigs, "glbs", func(i int) (bool, error) {
				b, err := decodeBase64(dec, fmt.Sprintf("glbs[%d]", i))
				in.glbs = append(in.glbs, b)
				return err == nil, err
			})
		case "streams":
			return true, jsonArray(dec, maxRigs, "streams", func(i int) (bool, error) {
				var raw json.RawMessage
				err := dec.Decode(&raw)
				in.streams = append(in.streams, raw)
				return err == nil, err
			})
		case "mesh":
			b, err := decodeBase64(dec, "mesh")
			if len(b) > 0 {
				in.mesh = b
			}
			return true, err
		case "scale_by_std":
			return true, dec.Decode(&in.scale)
		}
		return false, nil
	})
}

func (s *Server) batch(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	var in *batchInput
	status, err := s.withSlot(r.Context(), "batch", func() (err error) {
		in, err = s.parseBatch(r, data)
		return err
	})
	if err != nil {
		writeErr(w, status, err)
		return
	}
	data = nil // the parsed parts are all that is needed now
	n := len(in.glbs) + len(in.streams)
	score := func(i int) (*rewards.Report, int, error) {
		return s.scoreGLB(r.Context(), in.glbs[i], fmt.Sprintf("glbs[%d]", i))
	}
	if in.mesh != nil {
		tok, err := s.skinTokenizer()
		if err != nil {
			writeErr(w, http.StatusInternalServerError, fmt.Errorf("skin tokenizer: %w", err))
			return
		}
		mesh, status, err := s.loadMesh(r.Context(), in.mesh)
		if err != nil {
			writeErr(w, status, err)
			return
		}
		score = func(i int) (*rewards.Report, int, error) {
			name := fmt.Sprintf("streams[%d]", i)
			st, err := parseStream(in.streams[i], tok.K(), s.tokFP)
			if err != nil {
				return nil, http.StatusBadRequest, fmt.Errorf("%s: %w", name, err)
			}
			return s.scoreStream(r.Context(), mesh, st, name)
		}
	}
	resp := BatchResponse{Results: make([]BatchItem, n)}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rep, status, err := scoreMember(score, i)
			if err != nil {
				it := BatchItem{Error: err.Error()}
				if status == http.StatusServiceUnavailable {
					it.Error = "timeout: " + it.Error
				}
				var se *StreamError
				if errors.As(err, &se) {
					pos := se.Position
					it.Position = &pos
				}
				resp.Results[i] = it
				return
			}
			resp.Results[i] = BatchItem{Score: rep.Score, Rewards: rep.Rewards, Problems: rep.Problems}
		}(i)
	}
	wg.Wait()
	scores := make([]float64, n)
	for i, it := range resp.Results {
		scores[i] = it.Score
	}
	resp.Advantages = rewards.GroupAdvantages(scores, in.scale)
	for i := range resp.Results {
		resp.Results[i].Advantage = resp.Advantages[i]
	}
	writeJSON(w, http.StatusOK, resp)
}

// scoreMember runs score(i) with a panic turned into that member's error (500), so
// that one bad member neither kills the process nor fails the others.
func scoreMember(score func(int) (*rewards.Report, int, error), i int) (rep *rewards.Report, status int, err error) {
	defer func() {
		if p := recover(); p != nil {
			rep, status, err = nil, http.StatusInternalServerError, fmt.Errorf("internal error: %v", p)
		}
	}()
	return score(i)
}

// decodeMesh decodes a mesh GLB within load's budget (any rig in it is ignored by
// the callers).
func decodeMesh(data []byte, load assets.Options) (*character.Character, error) {
	if len(data) == 0 {
		return nil, errors.New("mesh: empty")
	}
	load.AllowOrphans = true
	c, _, err := assets.DecodeBytes(data, "mesh.glb", nil, load)
	if err != nil {
		return nil, fmt.Errorf("mesh: %w", err)
	}
	return c, nil
}
