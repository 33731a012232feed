package serve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/tokens"
)

// The request bodies are parsed as streams, counting as they go: a JSON array is
// read element by element and a multipart body part by part, and reading stops at
// the first element past a limit. Decoding a whole body at once costs per element
// (a slice header for each of 30M "1,"s of a 60 MiB body: about 1 GiB) before
// any count can be checked; streamed, a request's parse allocates at most about
// three times its body (the body, the copies of its parts and their base64
// decodings) whatever it holds.

// errTooMany marks a request with more elements (rigs, parts, names) than the
// service takes; it is answered 413.
var errTooMany = errors.New("over the request limit")

// jsonObject reads the members of the JSON object that dec is at the start of,
// calling member with each key (matched case-insensitively, as encoding/json
// does), which must consume the value; unknown keys' values are skipped.
func jsonObject(dec *json.Decoder, member func(key string) (bool, error)) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		known, err := member(strings.ToLower(key))
		if err != nil {
			return err
		}
		if !known {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	return expectEnd(dec)
}

// jsonArray calls elem for each element of the JSON array dec is at (elem must
// consume it) and stops with errTooMany at element max, or early, without an
// error and leaving the rest unread, when elem returns false.
func jsonArray(dec *json.Decoder, max int, what string, elem func(i int) (bool, error)) error {
	if err := expectDelim(dec, '['); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for i := 0; dec.More(); i++ {
		if i >= max {
			return fmt.Errorf("%s: more than %d: %w", what, max, errTooMany)
		}
		if more, err := elem(i); err != nil || !more {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("want %q, found %v", d, t)
	}
	return nil
}

// expectEnd refuses data after the top-level value, as json.Unmarshal does.
func expectEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the top-level value")
	}
	return nil
}

// newDecoder reads raw with numbers kept as text, so that token ids are checked as
// integers rather than rounded through float64.
func newDecoder(raw []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec
}

// readTokenIDs reads the JSON array of token ids dec is at. It stops after
// tokens.MaxStreamLen+1 ids, reporting the stream cut: no stream the grammar
// accepts is longer, so the grammar check names where such a stream fails, and the
// rest of the body is not read.
func readTokenIDs(dec *json.Decoder) (ids []int, cut bool, err error) {
	err = jsonArray(dec, tokens.MaxStreamLen+2, "tokens", func(i int) (bool, error) {
		if i > tokens.MaxStreamLen {
			cut = true
			return false, nil
		}
		t, err := dec.Token()
		if err != nil {
			return false, err
		}
		n, ok := t.(json.Number)
		v, verr := n.Int64()
		if !ok || verr != nil || int64(int(v)) != v {
			return false, &StreamError{Position: i, Err: fmt.Errorf("%v is not an integer token id", t)}
		}
		ids = append(ids, int(v))
		return true, nil
	})
	return ids, cut, err
}

// readStrings reads a JSON array of at most max strings.
func readStrings(dec *json.Decoder, max int, what string) ([]string, error) {
	var out []string
	err := jsonArray(dec, max, what, func(int) (bool, error) {
		var s string
		if err := dec.Decode(&s); err != nil {
			return false, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, s)
		return true, nil
	})
	return out, err
}

// decodeBase64 decodes one base64 field, naming it in the error.
func decodeBase64(dec *json.Decoder, what string) ([]byte, error) {
	var s string
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64: %w", what, err)
	}
	return b, nil
}
