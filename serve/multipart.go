package serve

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/rigkit/rigkit/internal/bigcopy"
)

// readParts calls part with the form name and content of every part of a
// multipart/form-data body, in order, and stops at the first error, or with
// errTooMany at part maxParts+1 (millions of empty parts would each cost a parsed
// header). isMultipart is false, and part is never called, for any other content
// type: the body is then JSON, which the caller reads.
func readParts(r *http.Request, data []byte, maxParts int, part func(name string, b []byte) error) (isMultipart bool, err error) {
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "multipart/form-data" {
		return false, nil
	}
	mr := multipart.NewReader(bytes.NewReader(data), params["boundary"])
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == nil && n == maxParts {
			return true, fmt.Errorf("multipart: more than %d parts: %w", maxParts, errTooMany)
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, fmt.Errorf("multipart: %w", err)
		}
		b, err := bigcopy.ReadAll(p) // preemptible growth: see package bigcopy
		if err != nil {
			return true, fmt.Errorf("multipart part %q: %w", p.FormName(), err)
		}
		if err := part(p.FormName(), b); err != nil {
			return true, err
		}
	}
}
