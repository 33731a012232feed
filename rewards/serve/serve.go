// Package serve is rigkit's HTTP scoring service: outside RL trainers POST rigged GLB
// files and get the rewards JSON of package rewards, one at a time or as a GRPO group
// with advantages. Requests are size-limited, time-limited and run at most a fixed
// number at a time (the core count by default).
package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/rigkit/rigkit/rewards"
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
	// Options are the scoring options (poses, seed, limits).
	Options rewards.Options
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
	return c
}

// Server scores rigs over HTTP. Create it with New; it is an http.Handler.
type Server struct {
	cfg Config
	sem chan struct{}
	mux *http.ServeMux
}

// New returns a scoring server with cfg's limits.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /healthz", s.health)
	s.mux.HandleFunc("POST /score", s.score)
	s.mux.HandleFunc("POST /score/batch", s.batch)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

// errorBody is every error response.
type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: fmt.Sprintf(format, args...)})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "concurrency": s.cfg.Concurrency})
}

// readBody reads at most MaxBodyBytes, answering 413 above it.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > s.cfg.MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "body of %d bytes above the limit of %d", r.ContentLength, s.cfg.MaxBodyBytes)
		return nil, false
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "body above the limit of %d bytes", s.cfg.MaxBodyBytes)
		} else {
			writeError(w, http.StatusBadRequest, "read body: %v", err)
		}
		return nil, false
	}
	return data, true
}

// scoreOne runs one scoring under the concurrency bound; status is the HTTP status
// for an error.
func (s *Server) scoreOne(ctx context.Context, data []byte, name string) (rep *rewards.Report, status int, err error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, http.StatusServiceUnavailable, fmt.Errorf("%s: timed out waiting for a scoring slot", name)
	}
	defer func() { <-s.sem }()
	defer func() {
		if p := recover(); p != nil {
			rep, status, err = nil, http.StatusInternalServerError, fmt.Errorf("%s: internal error: %v", name, p)
		}
	}()
	rep, err = rewards.ScoreGLB(data, name, s.cfg.Options)
	if err != nil {
		if errors.Is(err, rewards.ErrMeshTooLarge) {
			return nil, http.StatusRequestEntityTooLarge, err
		}
		return nil, http.StatusBadRequest, err
	}
	return rep, http.StatusOK, nil
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
	rep, status, err := s.scoreOne(r.Context(), data, "request.glb")
	if err != nil {
		writeError(w, status, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// BatchRequest is the JSON form of POST /score/batch.
type BatchRequest struct {
	// GLBs are base64-encoded GLB files, one group.
	GLBs []string `json:"glbs"`
	// ScaleByStd divides advantages by the group's standard deviation.
	ScaleByStd bool `json:"scale_by_std"`
}

// BatchItem is one rig's result in a batch; a rig that fails to score gets score 0
// and its error.
type BatchItem struct {
	Score     float64            `json:"score"`
	Rewards   map[string]float64 `json:"rewards,omitempty"`
	Problems  []string           `json:"problems,omitempty"`
	Error     string             `json:"error,omitempty"`
	Advantage float64            `json:"advantage"`
}

// BatchResponse is the answer of POST /score/batch.
type BatchResponse struct {
	Results    []BatchItem `json:"results"`
	Advantages []float64   `json:"advantages"`
}

func (s *Server) batch(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	var files [][]byte
	scale := false
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == "multipart/form-data":
		mr := multipart.NewReader(bytes.NewReader(data), params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				writeError(w, http.StatusBadRequest, "multipart: %v", err)
				return
			}
			b, err := io.ReadAll(part)
			if err != nil {
				writeError(w, http.StatusBadRequest, "multipart part %q: %v", part.FormName(), err)
				return
			}
			if part.FormName() == "scale_by_std" {
				scale = strings.TrimSpace(string(b)) == "true"
				continue
			}
			files = append(files, b)
		}
	default:
		var req BatchRequest
		if err := json.Unmarshal(data, &req); err != nil {
			writeError(w, http.StatusBadRequest, "batch: body is neither multipart nor JSON {\"glbs\": [base64...]}: %v", err)
			return
		}
		scale = req.ScaleByStd
		for i, g := range req.GLBs {
			b, err := base64.StdEncoding.DecodeString(g)
			if err != nil {
				writeError(w, http.StatusBadRequest, "batch: glbs[%d] is not base64: %v", i, err)
				return
			}
			files = append(files, b)
		}
	}
	if len(files) == 0 {
		writeError(w, http.StatusBadRequest, "batch: no GLB files")
		return
	}
	if len(files) > s.cfg.MaxBatch {
		writeError(w, http.StatusRequestEntityTooLarge, "batch of %d rigs above the limit of %d", len(files), s.cfg.MaxBatch)
		return
	}
	resp := BatchResponse{Results: make([]BatchItem, len(files))}
	done := make(chan struct{}, len(files))
	for i, f := range files {
		go func(i int, f []byte) {
			defer func() { done <- struct{}{} }()
			rep, status, err := s.scoreOne(r.Context(), f, fmt.Sprintf("glbs[%d]", i))
			if err != nil {
				if status == http.StatusServiceUnavailable {
					resp.Results[i] = BatchItem{Error: "timeout: " + err.Error()}
					return
				}
				resp.Results[i] = BatchItem{Error: err.Error()}
				return
			}
			resp.Results[i] = BatchItem{Score: rep.Score, Rewards: rep.Rewards, Problems: rep.Problems}
		}(i, f)
	}
	for range files {
		<-done
	}
	scores := make([]float64, len(files))
	for i, it := range resp.Results {
		scores[i] = it.Score
	}
	resp.Advantages = rewards.GroupAdvantages(scores, scale)
	for i := range resp.Results {
		resp.Results[i].Advantage = resp.Advantages[i]
	}
	writeJSON(w, http.StatusOK, resp)
}
