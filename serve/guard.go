package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/internal/bigcopy"
	"github.com/rigkit/rigkit/rewards"
)

// This file is what keeps one hostile client from hurting the others: a budget for
// the bytes of request bodies in flight (answered 503 at once when full), the
// connection deadlines of the http.Server, and panics turned into a 500 for the
// one request that caused them. GLB sizes are the loader's budget (Config.Budget).

// bodyBudget counts the body bytes the server has promised to hold in memory, in
// all and per client address.
type bodyBudget struct {
	mu          sync.Mutex
	used        int64
	limit       int64
	byClient    map[string]int64
	clientLimit int64
}

// reserve takes n bytes of the budget for client, or reports which limit they do
// not fit ("" when they fit).
func (b *bodyBudget) reserve(client string, n int64) (full string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.used+n > b.limit:
		return "server"
	case b.byClient[client]+n > b.clientLimit:
		return "client"
	}
	if b.byClient == nil {
		b.byClient = map[string]int64{}
	}
	b.used += n
	b.byClient[client] += n
	return ""
}

func (b *bodyBudget) release(client string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.byClient[client] -= n; b.byClient[client] <= 0 {
		delete(b.byClient, client)
	}
}

// clientOf is the address a request's budget is counted under: the remote host,
// without the port (one client opens many connections).
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// InFlightBytes returns the body bytes currently reserved by requests being served.
func (s *Server) InFlightBytes() int64 {
	s.bodies.mu.Lock()
	defer s.bodies.mu.Unlock()
	return s.bodies.used
}

// admitBody reserves the request's body in the budget before a byte of it is read:
// its Content-Length, or MaxBodyBytes when the length is unknown (chunked). A body
// above MaxBodyBytes gets 413 and a full budget 503, both without reading the body.
// The returned release must be called when the body's bytes are no longer held.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	n := r.ContentLength
	if n > s.cfg.MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "body of %d bytes above the limit of %d", n, s.cfg.MaxBodyBytes)
		return nil, false
	}
	if n < 0 {
		n = s.cfg.MaxBodyBytes
	}
	client := clientOf(r)
	switch s.bodies.reserve(client, n) {
	case "server":
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "server busy: %d bytes of request bodies in flight, the limit is %d", s.InFlightBytes(), s.cfg.MaxInFlightBytes)
		return nil, false
	case "client":
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "too many request bodies in flight from %s: the limit per client is %d bytes", client, s.cfg.Client.MaxInFlightBytes)
		return nil, false
	}
	return func() { s.bodies.release(client, n) }, true
}

// readBody reads at most MaxBodyBytes, answering 413 above the limit, 408 for a
// body arriving slower than Client.MinBodyRate and 400 for one that breaks off (a
// client too slow for ReadTimeout gets there too). The buffer starts at the
// announced size up to 1 MiB and grows with what arrives, so a client that
// announces much and sends little holds little memory, and not for long.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	capacity := int64(512)
	if r.ContentLength > 0 {
		capacity = min(r.ContentLength+1, 1<<20) // +1: reading to EOF needs no growth
	}
	buf := make([]byte, 0, capacity)
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	pace := s.newPacer(w)
	for {
		if len(buf) == cap(buf) {
			buf = grow(buf, r.ContentLength, s.cfg.MaxBodyBytes)
		}
		pace.before(len(buf))
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			pace.done()
			return buf, true
		}
		if err != nil {
			s.bodyError(w, err, pace.slow(err))
			return nil, false
		}
	}
}

// bodyError answers a body that could not be read.
func (s *Server) bodyError(w http.ResponseWriter, err error, slow bool) {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "body above the limit of %d bytes", s.cfg.MaxBodyBytes)
	case slow:
		writeError(w, http.StatusRequestTimeout, "body arrived slower than %d bytes/s", s.cfg.Client.MinBodyRate)
	default:
		writeError(w, http.StatusBadRequest, "read body: %v", err)
	}
}

// pacer moves a body's read deadline with what has arrived: a body that has
// received got bytes must receive more before start + grace + got/rate, and all
// of it before start + ReadTimeout (the server's own limit, which setting a
// deadline replaces). A client trickling a byte a second is cut after the grace,
// not at the end of ReadTimeout, and frees its share of the in-flight budget.
type pacer struct {
	rc       *http.ResponseController
	start    time.Time
	rate     float64
	grace    time.Duration
	last     time.Time // the whole-request deadline
	rateDead time.Time // the last rate deadline set
}

func (s *Server) newPacer(w http.ResponseWriter) *pacer {
	now := time.Now()
	return &pacer{rc: http.NewResponseController(w), start: now, rate: float64(s.cfg.Client.MinBodyRate),
		grace: s.cfg.Client.BodyGrace, last: now.Add(s.cfg.Conn.ReadTimeout)}
}

// before sets the deadline of the next read, got bytes in.
func (p *pacer) before(got int) {
	p.rateDead = p.start.Add(p.grace + time.Duration(float64(got)/p.rate*float64(time.Second)))
	d := p.rateDead
	if p.last.Before(d) {
		d = p.last
	}
	p.rc.SetReadDeadline(d) // not supported (HTTP/2, recorders): ReadTimeout alone holds
}

// done puts back the whole-request deadline once the body is in: a rate deadline
// passing while the request is scored would end the server's background read of
// the connection, and with it the request's context.
func (p *pacer) done() { p.rc.SetReadDeadline(p.last) }

// slow reports whether err is the rate deadline passing (not ReadTimeout's).
func (p *pacer) slow(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && p.rateDead.Before(p.last) && !time.Now().Before(p.rateDead)
}

// grow doubles buf's capacity, up to the announced length (+1, so that reading to
// EOF needs no growth) or the body limit: append's own growth is 1.25x for large
// slices, which allocates about five times a large body before it is read.
func grow(buf []byte, announced, limit int64) []byte {
	c := int64(cap(buf)) * 2
	if announced > 0 && announced+1 > int64(cap(buf)) {
		c = min(c, announced+1)
	}
	c = max(min(c, limit+1), int64(cap(buf))+512)
	out := make([]byte, len(buf), c)
	bigcopy.Copy(out, buf) // preemptible: see package bigcopy
	return out
}

// errStatus maps a scoring error to its HTTP status: 413 for a file over the load
// budget or a mesh above the triangle limit, 503 for a request whose time ran out, 400 for everything else the input is
// to blame for.
func errStatus(err error) int {
	switch {
	case errors.Is(err, rewards.ErrMeshTooLarge), format.IsBudgetError(err), errors.Is(err, errTooMany):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, rewards.ErrCanceled), errors.Is(err, format.ErrLoadCanceled),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// statusWriter remembers whether a response was started, so that a recovered panic
// answers 500 only when nothing was written yet.
type statusWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recoverRequest turns a panic in a handler into a 500 for that request alone and
// logs its stack; deferred by ServeHTTP.
func (s *Server) recoverRequest(w *statusWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p) // the server's own signal to drop the connection
	}
	s.cfg.ErrorLog.Printf("rig serve: %s %s: internal error: %v\n%s", r.Method, r.URL.Path, p, debug.Stack())
	if !w.wrote {
		writeError(w, http.StatusInternalServerError, "internal error: %v", p)
	}
}

// HTTPServer returns an http.Server for s with the connection deadlines of its
// Config, so that slow or stalled clients are dropped: headers within
// ReadHeaderTimeout, the whole request within ReadTimeout, the response within
// WriteTimeout (ReadTimeout + Timeout + 10 s by default, counted from the end of
// the headers), idle keep-alive connections after IdleTimeout.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.Conn.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.Conn.ReadTimeout,
		WriteTimeout:      s.cfg.Conn.WriteTimeout,
		IdleTimeout:       s.cfg.Conn.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.cfg.ErrorLog,
	}
}

// connDefaults fills in the connection deadlines.
func (c Config) connDefaults() Config {
	if c.Conn.ReadHeaderTimeout <= 0 {
		c.Conn.ReadHeaderTimeout = 10 * time.Second
	}
	if c.Conn.ReadTimeout <= 0 {
		c.Conn.ReadTimeout = 30 * time.Second
	}
	if c.Conn.WriteTimeout <= 0 {
		c.Conn.WriteTimeout = c.Conn.ReadTimeout + c.Timeout + 10*time.Second
	}
	if c.Conn.IdleTimeout <= 0 {
		c.Conn.IdleTimeout = 2 * time.Minute
	}
	return c
}
