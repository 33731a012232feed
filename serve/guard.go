package serve

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets/format"

	"github.com/rigkit/rigkit/rewards"
)

// This file is what keeps one hostile client from hurting the others: a budget for
// the bytes of request bodies in flight (answered 503 at once when full), the
// connection deadlines of the http.Server, and panics turned into a 500 for the
// one request that caused them. GLB sizes are the loader's budget (Config.Budget).

// bodyBudget counts the body bytes the server has promised to hold in memory.
type bodyBudget struct {
	mu    sync.Mutex
	used  int64
	limit int64
}

// reserve takes n bytes of the budget, or reports false when they do not fit.
func (b *bodyBudget) reserve(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

func (b *bodyBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
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
	if !s.bodies.reserve(n) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "server busy: %d bytes of request bodies in flight, the limit is %d", s.InFlightBytes(), s.cfg.MaxInFlightBytes)
		return nil, false
	}
	return func() { s.bodies.release(n) }, true
}

// readBody reads at most MaxBodyBytes, answering 413 above the limit and 400 for a
// body that breaks off (a client too slow for ReadTimeout gets there too). The
// buffer starts at the announced size up to 1 MiB and grows with what arrives, so a
// client that announces much and sends little holds little memory.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	capacity := int64(512)
	if r.ContentLength > 0 {
		capacity = min(r.ContentLength+1, 1<<20) // +1: reading to EOF needs no growth
	}
	buf := make([]byte, 0, capacity)
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	for {
		if len(buf) == cap(buf) {
			buf = grow(buf, r.ContentLength, s.cfg.MaxBodyBytes)
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, true
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusRequestEntityTooLarge, "body above the limit of %d bytes", s.cfg.MaxBodyBytes)
			} else {
				writeError(w, http.StatusBadRequest, "read body: %v", err)
			}
			return nil, false
		}
	}
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
	copy(out, buf)
	return out
}

// errStatus maps a scoring error to its HTTP status: 413 for a file over the load
// budget or a mesh above the triangle limit, 503 for a request whose time ran out, 400 for everything else the input is
// to blame for.
func errStatus(err error) int {
	switch {
	case errors.Is(err, rewards.ErrMeshTooLarge), format.IsBudgetError(err), errors.Is(err, errTooMany):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, rewards.ErrCanceled), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
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
