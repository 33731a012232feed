package nn

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestCheckShapes checks a config's wanted shapes against a written checkpoint's
// header, and that a header declaring more data than the file holds is refused.
func TestCheckShapes(t *testing.T) {
	var buf bytes.Buffer
	params := []*Param[float32]{NewParam[float32]("emb", 10, 4), NewParam[float32]("blocks.0.ln", 4)}
	if err := SaveCheckpoint(&buf, params, nil); err != nil {
		t.Fatal(err)
	}
	have, err := CheckpointShapes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want []ShapeWant
		err  string
	}{
		{"matching", []ShapeWant{{"emb", []int{10, 4}, "seq, d"}, {"blocks.1.ln", nil, "layers"}}, ""},
		{"wider", []ShapeWant{{"emb", []int{10, 65536}, "seq, d"}}, `config seq, d gives tensor "emb" shape [10 65536], the file declares [10 4]`},
		{"missing", []ShapeWant{{"pos", []int{3}, "max_seq"}}, `config max_seq: the file has no tensor "pos"`},
		{"past the count", []ShapeWant{{"blocks.0.ln", nil, "layers"}}, `config layers: the file holds tensor "blocks.0.ln"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckShapes(have, tc.want)
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
	// A header that declares a 2^20 × 2^20 tensor over 160 bytes of data.
	data := buf.Bytes()
	n := binary.LittleEndian.Uint64(data[:8])
	hdr := strings.Replace(string(data[8:8+n]), `"shape":[10,4]`, `"shape":[1048576,1048576]`, 1)
	lie := append(binary.LittleEndian.AppendUint64(nil, uint64(len(hdr))), hdr...)
	lie = append(lie, data[8+n:]...)
	if _, err := CheckpointShapes(lie); err == nil || !strings.Contains(err.Error(), "larger than the file") {
		t.Fatalf("a lying shape: error %v", err)
	}
	if err := CheckSizeLimits([]SizeLimit{{"d_model", 65536, 1, 4096}}); err == nil || !strings.Contains(err.Error(), "d_model is 65536, want 1..4096") {
		t.Fatalf("size limit: %v", err)
	}
}
