package nn

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
)

// Checkpoints use the safetensors layout, so they open with Python's safetensors:
//
//	8 bytes    little-endian uint64 N, the header length
//	N bytes    JSON: {"<name>": {"dtype": "F32"|"F64", "shape": [...],
//	           "data_offsets": [begin, end]}, ..., "__metadata__": {"config": "<JSON>"}}
//	           padded with spaces to a multiple of 8
//	rest       raw little-endian tensor data; offsets count from the end of the header
//
// Tensors are written in parameter order, contiguously.

// MaxCheckpointHeader bounds the JSON header a checkpoint may declare, so a hostile
// or corrupt file cannot make LoadCheckpoint allocate gigabytes.
const MaxCheckpointHeader = 64 << 20

type tensorEntry struct {
	DType       string `json:"dtype"`
	Shape       []int  `json:"shape"`
	DataOffsets [2]int `json:"data_offsets"`
}

func dtypeOf[F Float]() (string, int) {
	var z F
	if _, ok := any(z).(float32); ok {
		return "F32", 4
	}
	return "F64", 8
}

// SaveCheckpoint writes params in the safetensors layout, with config (any value
// that encodes to JSON, or nil) stored as a JSON string under
// __metadata__["config"].
func SaveCheckpoint[F Float](w io.Writer, params []*Param[F], config any) error {
	meta := map[string]string{"format": "rigkit"}
	if config != nil {
		cj, err := json.Marshal(config)
		if err != nil {
			return fmt.Errorf("save checkpoint: encode config: %w", err)
		}
		meta["config"] = string(cj)
	}
	tensors := make([]namedTensor[F], len(params))
	for i, p := range params {
		tensors[i] = namedTensor[F]{p.Name, p.Shape(), p.w}
	}
	if err := writeSafetensors(w, tensors, meta); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// LoadCheckpoint reads a safetensors checkpoint into params, converting F32 or F64
// data to F, and returns the config JSON stored in its metadata (nil if none). It
// refuses a file whose tensor names or shapes differ from params, naming the tensor
// and both shapes, and a header that is oversized, malformed, or whose offsets
// overlap, leave holes or run past the data. Names and shapes are checked before
// any value is written; a file that fails later (truncated data) may leave params
// partly overwritten.
func LoadCheckpoint[F Float](r io.Reader, params []*Param[F]) (config []byte, err error) {
	tensors := make([]namedTensor[F], len(params))
	for i, p := range params {
		tensors[i] = namedTensor[F]{p.Name, p.Shape(), p.w}
	}
	meta, err := readSafetensors(r, tensors)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	if c, ok := meta["config"]; ok {
		config = []byte(c)
	}
	return config, nil
}

// namedTensor is one tensor of a safetensors file: its name, shape and the slice
// its values are written from or read into.
type namedTensor[F Float] struct {
	name  string
	shape []int
	data  []F
}

// writeSafetensors writes tensors contiguously in the given order, after a header
// holding their entries and meta under "__metadata__".
func writeSafetensors[F Float](w io.Writer, tensors []namedTensor[F], meta map[string]string) error {
	dtype, size := dtypeOf[F]()
	header := map[string]any{"__metadata__": meta}
	off := 0
	for _, t := range tensors {
		if _, dup := header[t.name]; dup || t.name == "" {
			return fmt.Errorf("tensor name %q is empty or repeated", t.name)
		}
		n := len(t.data) * size
		header[t.name] = tensorEntry{DType: dtype, Shape: t.shape, DataOffsets: [2]int{off, off + n}}
		off += n
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("encode header: %w", err)
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	bw := bufio.NewWriter(w)
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(hj)))
	bw.Write(lenBuf[:])
	bw.Write(hj)
	buf := make([]byte, 0, 1<<16)
	for _, t := range tensors {
		for _, v := range t.data {
			if size == 4 {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v)))
			} else {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(float64(v)))
			}
			if len(buf) >= 1<<16-8 {
				bw.Write(buf)
				buf = buf[:0]
			}
		}
	}
	bw.Write(buf)
	return bw.Flush()
}

// readSafetensors reads a safetensors stream into tensors, which must match the
// file's tensors exactly in names and shapes, and returns the file's metadata.
// readSafetensorsHeader reads the length-prefixed JSON header: the metadata and
// each tensor's entry. The length is bounded by MaxCheckpointHeader and read
// through a limit, so a short file claiming a large header costs only what it holds.
func readSafetensorsHeader(r io.Reader) (map[string]string, map[string]tensorEntry, error) {
	var lenBuf [8]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, nil, fmt.Errorf("read header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxCheckpointHeader {
		return nil, nil, fmt.Errorf("header length %d exceeds the %d-byte limit", n, MaxCheckpointHeader)
	}
	// Read through a limit rather than allocating n up front: a short file claiming
	// a large header costs only what it holds.
	hj, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, nil, fmt.Errorf("read header: %w", err)
	}
	if uint64(len(hj)) != n {
		return nil, nil, fmt.Errorf("header truncated: %d of %d bytes", len(hj), n)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hj, &raw); err != nil {
		return nil, nil, fmt.Errorf("header JSON: %w", err)
	}
	var meta map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, fmt.Errorf("__metadata__: %w", err)
		}
		delete(raw, "__metadata__")
	}
	entries := make(map[string]tensorEntry, len(raw))
	for name, msg := range raw {
		var e tensorEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		entries[name] = e
	}
	return meta, entries, nil
}

func readSafetensors[F Float](r io.Reader, tensors []namedTensor[F]) (map[string]string, error) {
	meta, entries, err := readSafetensorsHeader(r)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]namedTensor[F], len(tensors))
	for _, t := range tensors {
		byName[t.name] = t
		e, ok := entries[t.name]
		if !ok {
			return nil, fmt.Errorf("tensor %q (shape %v) missing from the file", t.name, t.shape)
		}
		if !slices.Equal(e.Shape, t.shape) {
			return nil, fmt.Errorf("tensor %q has shape %v in the file, the model expects %v", t.name, e.Shape, t.shape)
		}
	}
	type located struct {
		name string
		e    tensorEntry
		size int
	}
	var order []located
	for name, e := range entries {
		t, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("file holds tensor %q (shape %v) that the model does not have", name, e.Shape)
		}
		size := 0
		switch e.DType {
		case "F32":
			size = 4
		case "F64":
			size = 8
		default:
			return nil, fmt.Errorf("tensor %q has dtype %q, want F32 or F64", name, e.DType)
		}
		if e.DataOffsets[1]-e.DataOffsets[0] != len(t.data)*size {
			return nil, fmt.Errorf("tensor %q: data_offsets %v do not hold %d %s values", name, e.DataOffsets, len(t.data), e.DType)
		}
		order = append(order, located{name, e, size})
	}
	sort.Slice(order, func(i, j int) bool { return order[i].e.DataOffsets[0] < order[j].e.DataOffsets[0] })
	pos := 0
	buf := make([]byte, 1<<16)
	for _, t := range order {
		if t.e.DataOffsets[0] != pos {
			return nil, fmt.Errorf("tensor %q starts at byte %d, expected %d (overlap or hole)", t.name, t.e.DataOffsets[0], pos)
		}
		w := byName[t.name].data
		for i := 0; i < len(w); {
			k := min(len(w)-i, len(buf)/t.size)
			chunk := buf[:k*t.size]
			if _, err := io.ReadFull(r, chunk); err != nil {
				return nil, fmt.Errorf("tensor %q data: %w", t.name, err)
			}
			for j := 0; j < k; j++ {
				if t.size == 4 {
					w[i+j] = F(math.Float32frombits(binary.LittleEndian.Uint32(chunk[4*j:])))
				} else {
					w[i+j] = F(math.Float64frombits(binary.LittleEndian.Uint64(chunk[8*j:])))
				}
			}
			i += k
		}
		pos = t.e.DataOffsets[1]
	}
	if len(order) == 0 && len(tensors) > 0 {
		return nil, errors.New("no tensors")
	}
	return meta, nil
}
