package hostile

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
)

// The cases in this file are request bodies for rig serve that are small on the
// wire for what a decoder that parses them whole would allocate: each JSON
// element or multipart part costs a slice header or a parsed header on top of its
// bytes.

// Request is one hostile request to the scoring service.
type Request struct {
	Name string
	// Path is the URL path it is posted to.
	Path string
	// Body builds the body and its content type (tens of MiB: built when sent,
	// not all at once).
	Body func() (body []byte, contentType string)
	// Status is the answer it must get.
	Status int
	What   string
}

// Requests returns the hostile request bodies of about size bytes each, around
// mesh, a valid mesh GLB.
func Requests(mesh []byte, size int) []Request {
	return []Request{
		{Name: "tokens-ones", Path: "/score/tokens", Status: 400,
			What: fmt.Sprintf("a %d-byte /score/tokens body whose stream is [1,1,1,...]", size),
			Body: func() ([]byte, string) {
				var b bytes.Buffer
				fmt.Fprintf(&b, `{"mesh":%q,"tokens":[`, base64.StdEncoding.EncodeToString(mesh))
				return ones(&b, size, "]}"), "application/json"
			}},
		{Name: "tokens-ones-object", Path: "/score/tokens", Status: 413,
			What: "the same stream as an object with \"tokens\", after it \"names\": [\"\",\"\",...]",
			Body: func() ([]byte, string) {
				var b bytes.Buffer
				fmt.Fprintf(&b, `{"mesh":%q,"tokens":{"names":[`, base64.StdEncoding.EncodeToString(mesh))
				for b.Len() < size/2 {
					b.WriteString(`"",`)
				}
				b.WriteString(`""],"tokens":[`)
				return ones(&b, size, "]}}"), "application/json"
			}},
		{Name: "batch-empty-parts", Path: "/score/batch", Status: 413,
			What: fmt.Sprintf("a %d-byte multipart /score/batch body of empty parts", size),
			Body: func() ([]byte, string) { return emptyParts(size) }},
		{Name: "batch-empty-glbs", Path: "/score/batch", Status: 413,
			What: fmt.Sprintf("a %d-byte JSON /score/batch body whose glbs are [\"\",\"\",...]", size),
			Body: func() ([]byte, string) {
				var b bytes.Buffer
				b.WriteString(`{"glbs":[`)
				for b.Len() < size {
					b.WriteString(`"",`)
				}
				b.WriteString(`""]}`)
				return b.Bytes(), "application/json"
			}},
		{Name: "batch-ones-streams", Path: "/score/batch", Status: 413,
			What: fmt.Sprintf("a %d-byte JSON /score/batch body whose streams are [1,1,...]", size),
			Body: func() ([]byte, string) {
				var b bytes.Buffer
				fmt.Fprintf(&b, `{"mesh":%q,"streams":[`, base64.StdEncoding.EncodeToString(mesh))
				return ones(&b, size, "]}"), "application/json"
			}},
	}
}

// emptyParts returns a multipart body of about size bytes made of empty parts, and
// its content type.
func emptyParts(size int) (body []byte, contentType string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for b.Len() < size {
		w.CreateFormFile("glb", "")
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// ones appends "1,1,...,1" to b up to size bytes, then tail.
func ones(b *bytes.Buffer, size int, tail string) []byte {
	b.Grow(size - b.Len() + len(tail))
	for b.Len() < size {
		b.WriteString("1,")
	}
	b.WriteString("1" + tail)
	return b.Bytes()
}
