package nn

import (
	"bytes"
	"fmt"
	"slices"
)

// A checkpoint's config decides how large a model its loader builds, and the
// builder allocates every parameter before the tensors are read. A loader checks
// the config against the shapes the file's header declares first (CheckShapes):
// a config that claims d_model 65536 or max_seq 2^40 in a file of small tensors is
// refused before any allocation, naming the tensor and the config fields.

// ShapeWant is one tensor a config implies: its name, the shape the config gives
// it, and the config fields that shape comes from (for the error message).
type ShapeWant struct {
	Name   string
	Shape  []int
	Fields string
}

// CheckpointShapes returns the declared shape of every tensor in a safetensors
// checkpoint, reading only its header (bounded by MaxCheckpointHeader).
func CheckpointShapes(data []byte) (map[string][]int, error) {
	r := bytes.NewReader(data)
	_, entries, err := readSafetensorsHeader(r)
	if err != nil {
		return nil, err
	}
	stored := r.Len() // the tensor data after the header
	shapes := make(map[string][]int, len(entries))
	for name, e := range entries {
		if err := checkEntrySize(e, stored); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		shapes[name] = e.Shape
	}
	return shapes, nil
}

// checkEntrySize refuses an entry whose shape does not fit its data_offsets or
// whose data runs past the stored bytes, so that a declared shape is one the file
// holds: a model built from checked shapes is no larger than its file.
func checkEntrySize(e tensorEntry, stored int) error {
	size := 8
	if e.DType == "F32" {
		size = 4
	}
	n := size
	for _, d := range e.Shape {
		if d < 0 || (d > 0 && n > stored/d) {
			return fmt.Errorf("shape %v is larger than the file's %d bytes of tensor data", e.Shape, stored)
		}
		n *= d
	}
	lo, hi := e.DataOffsets[0], e.DataOffsets[1]
	if lo < 0 || hi > stored || hi-lo != n {
		return fmt.Errorf("shape %v (%d bytes) does not match data_offsets %v in %d bytes of tensor data", e.Shape, n, e.DataOffsets, stored)
	}
	return nil
}

// CheckShapes reports the first wanted tensor that have (CheckpointShapes) lacks or
// declares with another shape; a Shape of nil wants the tensor absent (a layer
// past the configured count).
func CheckShapes(have map[string][]int, want []ShapeWant) error {
	for _, w := range want {
		got, ok := have[w.Name]
		switch {
		case w.Shape == nil && ok:
			return fmt.Errorf("config %s: the file holds tensor %q (shape %v) past the configured size", w.Fields, w.Name, got)
		case w.Shape == nil:
		case !ok:
			return fmt.Errorf("config %s: the file has no tensor %q (shape %v)", w.Fields, w.Name, w.Shape)
		case !slices.Equal(got, w.Shape):
			return fmt.Errorf("config %s gives tensor %q shape %v, the file declares %v", w.Fields, w.Name, w.Shape, got)
		}
	}
	return nil
}

// SizeLimit is an upper bound on one config field, checked before the config's
// shapes are even computed (a product of huge fields could overflow).
type SizeLimit struct {
	Field    string
	Value    int
	Min, Max int
}

// CheckSizeLimits reports the first field outside its bounds, naming it.
func CheckSizeLimits(limits []SizeLimit) error {
	for _, l := range limits {
		if l.Value < l.Min || l.Value > l.Max {
			return fmt.Errorf("config field %s is %d, want %d..%d", l.Field, l.Value, l.Min, l.Max)
		}
	}
	return nil
}
