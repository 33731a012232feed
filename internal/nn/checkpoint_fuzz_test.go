package nn

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/fuzzbound"
)

// fuzzParams are the parameters FuzzCheckpoint reads into.
func fuzzParams() []*Param[float32] {
	return []*Param[float32]{NewParam[float32]("a.weight", 2, 3), NewParam[float32]("b", 4)}
}

// FuzzCheckpoint feeds arbitrary bytes to the safetensors reader. It must refuse
// them or fill the parameters, never panic, and stay within bounded time and
// allocation (a header may claim 64 MiB; only what the input holds may be
// allocated). A checkpoint it accepts must save and load back to the same values.
func FuzzCheckpoint(f *testing.F) {
	params := fuzzParams()
	for i, p := range params {
		for j := range p.Data() {
			p.Data()[j] = float32(i*10 + j)
		}
	}
	var valid bytes.Buffer
	if err := SaveCheckpoint(&valid, params, map[string]int{"d": 4}); err != nil {
		f.Fatal(err)
	}
	f.Add(valid.Bytes())
	f.Add(valid.Bytes()[:valid.Len()-5])
	f.Add(valid.Bytes()[:20])
	f.Add([]byte{0xff, 0xff, 0xff, 0x03, 0, 0, 0, 0, '{'})
	f.Add([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{\"b\":{}}        "))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := fuzzParams()
		var err error
		bound := fuzzbound.Bound{Alloc: 1<<20 + 64*uint64(len(data)), Time: 10 * time.Second}
		fuzzbound.Check(t, bound, func() { _, err = LoadCheckpoint(bytes.NewReader(data), got) })
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := SaveCheckpoint(&again, got, nil); err != nil {
			t.Fatalf("save a loaded checkpoint: %v", err)
		}
		back := fuzzParams()
		if _, err := LoadCheckpoint(bytes.NewReader(again.Bytes()), back); err != nil {
			t.Fatalf("load a re-saved checkpoint: %v", err)
		}
		for i := range got {
			if !slices.EqualFunc(got[i].Data(), back[i].Data(), func(a, b float32) bool { return a == b || a != a && b != b }) {
				t.Fatalf("%s changed through save and load", got[i].Name)
			}
		}
	})
}
