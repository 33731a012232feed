package bigcopy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestCopy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dst, src int
		want     int
	}{
		{"empty", 0, 0, 0},
		{"shorter source", 10, 3, 3},
		{"shorter destination", 3, 10, 3},
		{"one piece", Piece, Piece, Piece},
		{"pieces and a remainder", 3*Piece + 17, 3*Piece + 17, 3*Piece + 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := make([]byte, tc.src)
			for i := range src {
				src[i] = byte(i*7 + i/Piece)
			}
			dst := make([]byte, tc.dst)
			if n := Copy(dst, src); n != tc.want {
				t.Fatalf("Copy = %d, want %d", n, tc.want)
			}
			if !bytes.Equal(dst[:tc.want], src[:tc.want]) {
				t.Fatal("copied bytes differ from the source")
			}
		})
	}
}

func TestClone(t *testing.T) {
	if Clone(nil) != nil {
		t.Error("Clone(nil) is not nil")
	}
	b := bytes.Repeat([]byte("rig"), Piece)
	c := Clone(b)
	if !bytes.Equal(b, c) || &b[0] == &c[0] {
		t.Error("Clone is not an equal copy in its own memory")
	}
}

func ExampleCopy() {
	src := []byte("skin tokens")
	dst := make([]byte, 4)
	n := Copy(dst, src)
	fmt.Println(n, string(dst))
	// Output: 4 skin
}

// errReader returns its data a few bytes at a time, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p[:min(len(p), 7)], r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadAll(t *testing.T) {
	big := bytes.Repeat([]byte("weights"), Piece)
	broken := errors.New("connection reset")
	for _, tc := range []struct {
		name    string
		r       io.Reader
		want    []byte
		wantErr error
	}{
		{"empty", bytes.NewReader(nil), []byte{}, nil},
		{"several pieces", bytes.NewReader(big), big, nil},
		{"short reads", &errReader{data: []byte("joint names"), err: io.EOF}, []byte("joint names"), nil},
		{"error after data", &errReader{data: []byte("half"), err: broken}, []byte("half"), broken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadAll(tc.r)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("read %d bytes, want %d", len(got), len(tc.want))
			}
		})
	}
}
