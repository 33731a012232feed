package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/bigcopy"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

// StreamError is a token stream the service refuses: Position is the index of the
// first token the grammar of tokens/stream.go does not allow there (or that is not
// an integer id), len(tokens) for a stream that ends before EOS.
type StreamError struct {
	Position int
	Err      error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("token stream: position %d: %v", e.Position, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// stream is one parsed token stream with the optional joint names in token order.
type stream struct {
	tokens []int
	names  []string
}

// parseStream reads a stream as a JSON array of token ids or as an object with
// "tokens" (and optional "names" and "skin_tokens_per_joint", as `rig tokenize`
// writes), then checks it against the grammar of k skin tokens per joint (the K of
// the server's skin tokenizer); a recorded "skin_tokenizer" must be fp, that
// tokenizer's fingerprint. It reads the JSON as a stream (parse.go), so a long
// array costs no more than the ids the grammar can take.
func parseStream(raw []byte, k int, fp string) (*stream, error) {
	raw = bytes.TrimSpace(raw)
	st := &stream{}
	var cut bool
	var err error
	if len(raw) > 0 && raw[0] == '{' {
		cut, err = st.readObject(raw, k, fp)
	} else {
		dec := newDecoder(raw)
		if st.tokens, cut, err = readTokenIDs(dec); err == nil && !cut {
			err = expectEnd(dec)
		}
		if err != nil && !errors.As(err, new(*StreamError)) {
			err = fmt.Errorf("token stream: want a JSON array of token ids or {\"tokens\": [...]}: %w", err)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := checkStream(st.tokens, k); err != nil {
		return nil, err
	}
	return st, nil
}

// readObject reads the object form of a stream into st and checks its recorded K
// and tokenizer; cut reports a token array cut at the longest stream, whose
// remaining members are not read (the grammar refuses the stream anyway).
func (st *stream) readObject(raw []byte, k int, fp string) (cut bool, err error) {
	dec := newDecoder(raw)
	var fileK int
	var fileFP string
	err = jsonObject(dec, func(key string) (bool, error) {
		var err error
		switch key {
		case "tokens":
			if st.tokens, cut, err = readTokenIDs(dec); cut {
				return true, errStreamCut
			}
		case "names":
			st.names, err = readStrings(dec, tokens.MaxJoints, "names")
		case "skin_tokens_per_joint":
			err = dec.Decode(&fileK)
		case "skin_tokenizer":
			err = dec.Decode(&fileFP)
		default:
			return false, nil
		}
		return true, err
	})
	switch {
	case errors.Is(err, errStreamCut):
		return true, nil
	case errors.As(err, new(*StreamError)):
		return false, err
	case err != nil:
		return false, fmt.Errorf("token stream: %w", err)
	}
	if err := skincodec.CheckK(fileK, k); err != nil {
		return false, fmt.Errorf("token stream: %w (start rig serve --checkpoint with the tokenizer that wrote it)", err)
	}
	if err := skincodec.CheckSkinTokenizer(fileFP, fp); err != nil {
		return false, fmt.Errorf("token stream: %w (start rig serve --checkpoint with the tokenizer that wrote it)", err)
	}
	return false, nil
}

// errStreamCut stops reading a stream object at a token array cut at the longest
// stream.
var errStreamCut = errors.New("token stream cut at the longest stream")

// checkStream runs the grammar of k skin tokens per joint over stream and returns a
// *StreamError at the first token it does not allow, or at the end of a stream
// without EOS.
func checkStream(stream []int, k int) error {
	s := tokens.NewGrammar(tokens.MaxJoints, k).Start()
	for i, t := range stream {
		if err := s.Next(t); err != nil {
			return &StreamError{Position: i, Err: err}
		}
	}
	if !s.Done() {
		return &StreamError{Position: len(stream), Err: errors.New("stream ends before EOS")}
	}
	return nil
}

// preparedMesh is a decoded mesh and its prepared form for scoring.
type preparedMesh struct {
	c *character.Character
	p *rewards.Prepared
}

// loadMesh decodes a mesh GLB and prepares it through the cache (under a scoring
// slot): 400 for a broken or empty mesh, 413 over the load budget or the triangle
// limit.
func (s *Server) loadMesh(ctx context.Context, data []byte) (*preparedMesh, int, error) {
	pm := &preparedMesh{}
	status, err := s.withSlot(ctx, "mesh", func() (err error) {
		if pm.c, err = decodeMesh(data, s.load(ctx)); err != nil {
			return err
		}
		pm.p, err = s.cache.Prepare(&pm.c.Mesh, s.options(ctx))
		if err != nil {
			return fmt.Errorf("mesh: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, status, err
	}
	return pm, http.StatusOK, nil
}

// skinTokenizer returns the configured skin tokenizer, loading the shipped one once,
// with its fingerprint computed once too (it hashes the whole checkpoint).
func (s *Server) skinTokenizer() (*skincodec.SkinTokenizer, error) {
	s.tokOnce.Do(func() {
		s.tok = s.cfg.SkinTokenizer
		if s.tok == nil {
			s.tok, s.tokErr = skincodec.Load("")
		}
		if s.tokErr == nil {
			s.tokFP = s.tok.Fingerprint()
		}
	})
	return s.tok, s.tokErr
}

// scoreStream decodes a checked token stream into a rig on the prepared mesh
// (skincodec.DetokenizeContext) and scores it; both stop when ctx ends, so the
// scoring slot frees within milliseconds of the request's deadline.
func (s *Server) scoreStream(ctx context.Context, pm *preparedMesh, st *stream, name string) (rep *rewards.Report, status int, err error) {
	tok, err := s.skinTokenizer()
	if err != nil {
		return nil, http.StatusInternalServerError, fmt.Errorf("%s: skin tokenizer: %w", name, err)
	}
	status, err = s.withSlot(ctx, name, func() error {
		c, err := skincodec.DetokenizeContext(ctx, st.tokens, st.names, pm.c, tok)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rep, err = pm.p.Score(c, s.options(ctx))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return nil, status, err
	}
	return rep, status, nil
}

// TokensRequest is the JSON form of POST /score/tokens.
type TokensRequest struct {
	// Mesh is a base64-encoded GLB; any rig in it is ignored.
	Mesh string `json:"mesh"`
	// Tokens is the stream: a JSON array of token ids, or an object with "tokens"
	// and optional "names" (the StreamFile `rig tokenize` writes).
	Tokens json.RawMessage `json:"tokens"`
}

// tokensWire is how a TokensRequest body is read: encoding/json decodes a []byte
// field's base64 straight from the body, where a string field would first copy the
// whole text in one piece (see package bigcopy), and the stream is kept likewise.
type tokensWire struct {
	Mesh   []byte  `json:"mesh"`
	Tokens rawJSON `json:"tokens"`
}

// rawJSON is a json.RawMessage copied in pieces.
type rawJSON []byte

// UnmarshalJSON keeps a copy of data, made by bigcopy.Clone.
func (r *rawJSON) UnmarshalJSON(data []byte) error {
	*r = bigcopy.Clone(data)
	return nil
}

// parseTokensRequest reads the mesh GLB and the raw stream from multipart parts
// "mesh" and "tokens", or from a TokensRequest.
func parseTokensRequest(r *http.Request, data []byte) (mesh, tokens []byte, err error) {
	isMultipart, err := readParts(r, data, 2, func(name string, b []byte) error {
		switch name {
		case "mesh":
			mesh = b
		case "tokens":
			tokens = b
		default:
			return fmt.Errorf("multipart: unexpected part %q (want \"mesh\" and \"tokens\")", name)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !isMultipart {
		var req tokensWire
		if err := json.Unmarshal(data, &req); err != nil {
			return nil, nil, fmt.Errorf("tokens: body is neither multipart (mesh, tokens) nor JSON {\"mesh\": base64, \"tokens\": [...]}: %w", err)
		}
		if len(req.Mesh) > 0 {
			mesh = req.Mesh
		}
		tokens = req.Tokens
	}
	if mesh == nil {
		return nil, nil, errors.New("tokens: no mesh")
	}
	if len(bytes.TrimSpace(tokens)) == 0 {
		return nil, nil, errors.New("tokens: no token stream")
	}
	return mesh, tokens, nil
}

// scoreTokens answers POST /score/tokens: a mesh and one token stream → the report.
func (s *Server) scoreTokens(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	tok, err := s.skinTokenizer()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, fmt.Errorf("skin tokenizer: %w", err))
		return
	}
	var meshData []byte
	var st *stream
	status, err := s.withSlot(r.Context(), "tokens", func() error {
		m, raw, err := parseTokensRequest(r, data)
		if err != nil {
			return err
		}
		parsed, err := parseStream(raw, tok.K(), s.tokFP)
		meshData, st = m, parsed
		return err
	})
	if err != nil {
		writeErr(w, status, err)
		return
	}
	data = nil // the parsed parts are all that is needed now
	pm, status, err := s.loadMesh(r.Context(), meshData)
	if err != nil {
		writeErr(w, status, err)
		return
	}
	rep, status, err := s.scoreStream(r.Context(), pm, st, "stream")
	if err != nil {
		writeErr(w, status, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
