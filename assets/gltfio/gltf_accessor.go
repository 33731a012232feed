package gltfio

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"path"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
)

// This file holds the defensive lower half of the glTF reader: the GLB container,
// buffers, and typed accessor reads. Every length and offset a file declares is checked
// against the bytes actually present before anything is allocated from it, so a
// corrupt or hostile file costs at most a small multiple of its own size.

const (
	glbMagic     = 0x46546C67 // "glTF"
	glbChunkJSON = 0x4E4F534A // "JSON"
	glbChunkBIN  = 0x004E4942 // "BIN\0"
	// maxAccessorElements caps any single accessor independently of the buffer checks.
	maxAccessorElements = 1 << 27
)

// unsupportedExtensions are glTF extensions whose data rigkit cannot decode.
var unsupportedExtensions = map[string]string{
	"KHR_draco_mesh_compression": "Draco-compressed geometry",
	"EXT_meshopt_compression":    "meshopt-compressed buffers",
	"KHR_meshopt_compression":    "meshopt-compressed buffers",
}

// parseContainer splits a .glb into its JSON and BIN chunks, or returns a .gltf's
// bytes as the JSON with no BIN chunk. It validates every declared length against
// len(data).
func parseContainer(data []byte) (jsonData, bin []byte, isGLB bool, err error) {
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic {
		isGLB = true
	} else {
		trimmed := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
		if len(trimmed) == 0 || trimmed[0] != '{' {
			if len(data) == 0 {
				return nil, nil, false, errors.New("empty file")
			}
			return nil, nil, false, errors.New("not a glTF file: no GLB magic and no JSON object")
		}
		return data, nil, false, nil
	}
	if len(data) < 20 {
		return nil, nil, true, fmt.Errorf("truncated GLB: %d bytes, header needs 20", len(data))
	}
	version := binary.LittleEndian.Uint32(data[4:])
	if version != 2 {
		return nil, nil, true, fmt.Errorf("GLB version %d, only version 2 is supported", version)
	}
	total := uint64(binary.LittleEndian.Uint32(data[8:]))
	if total > uint64(len(data)) {
		return nil, nil, true, fmt.Errorf("truncated GLB: header declares %d bytes, file has %d", total, len(data))
	}
	if total < 20 {
		return nil, nil, true, fmt.Errorf("bad GLB length %d", total)
	}
	data = data[:total]
	off := uint64(12)
	for off+8 <= total {
		clen := uint64(binary.LittleEndian.Uint32(data[off:]))
		ctype := binary.LittleEndian.Uint32(data[off+4:])
		start := off + 8
		if clen > total-start {
			return nil, nil, true, fmt.Errorf("bad GLB chunk at byte %d: length %d runs past the end of the file (%d bytes)", off, clen, total)
		}
		chunk := data[start : start+clen]
		switch {
		case off == 12 && ctype != glbChunkJSON:
			return nil, nil, true, fmt.Errorf("bad GLB: first chunk has type 0x%08x, want JSON", ctype)
		case ctype == glbChunkJSON && jsonData == nil:
			jsonData = chunk
		case ctype == glbChunkBIN && bin == nil:
			bin = chunk
		}
		off = start + clen
		// Chunks are 4-byte aligned; tolerate writers that forgot the padding.
		if rem := off % 4; rem != 0 && off+(4-rem) <= total {
			off += 4 - rem
		}
	}
	if jsonData == nil {
		return nil, nil, true, errors.New("bad GLB: no JSON chunk")
	}
	return jsonData, bin, true, nil
}

// ErrDecoderPanic marks an error recovered from a panic while decoding: the input
// is rejected, but the panic is a bug (FuzzLoad fails on it).
var ErrDecoderPanic = errors.New("internal error on malformed input")

// decodeDocument unmarshals glTF JSON into the qmuntal/gltf document model. A panic
// inside the third-party decoder becomes an error.
func decodeDocument(jsonData []byte) (doc *gltf.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w in the glTF decoder: %v", ErrDecoderPanic, r)
		}
	}()
	doc = new(gltf.Document)
	if err := json.Unmarshal(jsonData, doc); err != nil {
		return nil, fmt.Errorf("bad glTF JSON: %w", err)
	}
	return doc, nil
}

// passThroughRequired are the extensions a file may require that leave its geometry,
// skin and animation readable as rigkit reads them (materials, textures, lights and
// metadata the writer keeps as they are; quantized attributes the accessor reader
// decodes). A file that requires any other extension is refused: glTF says a reader
// must not load what it does not understand, and a guess could be a silent wrong rig.
var passThroughRequired = map[string]bool{
	"KHR_mesh_quantization":  true,
	"KHR_texture_transform":  true,
	"KHR_texture_basisu":     true,
	"EXT_texture_webp":       true,
	"EXT_texture_avif":       true,
	"KHR_lights_punctual":    true,
	"KHR_xmp_json_ld":        true,
	"KHR_materials_variants": true,
}

// checkExtensions rejects compression extensions rigkit cannot decode and required
// extensions it does not know.
func checkExtensions(doc *gltf.Document) error {
	for _, e := range doc.ExtensionsRequired {
		if _, bad := unsupportedExtensions[e]; bad {
			continue // refused below with its own message
		}
		if !passThroughRequired[e] && !strings.HasPrefix(e, "KHR_materials_") {
			return fmt.Errorf("the file requires extension %s, which rigkit does not read; re-export it without that extension", e)
		}
	}
	for _, list := range [][]string{doc.ExtensionsRequired, doc.ExtensionsUsed} {
		for _, e := range list {
			if what, bad := unsupportedExtensions[e]; bad {
				return fmt.Errorf("unsupported extension %s (%s); re-export the file without compression", e, what)
			}
		}
	}
	for _, m := range doc.Meshes {
		if m == nil {
			continue
		}
		for _, p := range m.Primitives {
			if p == nil {
				continue
			}
			for e := range p.Extensions {
				if what, bad := unsupportedExtensions[e]; bad {
					return fmt.Errorf("unsupported extension %s (%s); re-export the file without compression", e, what)
				}
			}
		}
	}
	for _, v := range doc.BufferViews {
		if v == nil {
			continue
		}
		for e := range v.Extensions {
			if what, bad := unsupportedExtensions[e]; bad {
				return fmt.Errorf("unsupported extension %s (%s); re-export the file without compression", e, what)
			}
		}
	}
	return nil
}

// loadBuffers fills every buffer's Data: buffer 0 of a GLB from the BIN chunk, data:
// URIs by decoding them, other URIs from dir (relative to the glTF file). Declared
// byte lengths are checked against the bytes available before anything is read.
func loadBuffers(doc *gltf.Document, bin []byte, isGLB bool, dir fs.FS, budget *format.Counter) error {
	for i, b := range doc.Buffers {
		if b == nil {
			return fmt.Errorf("buffer %d is null", i)
		}
		if b.ByteLength < 0 {
			return fmt.Errorf("buffer %d: negative byteLength %d", i, b.ByteLength)
		}
		switch {
		case b.URI == "" && i == 0 && isGLB:
			if bin == nil {
				return fmt.Errorf("buffer 0: GLB has no BIN chunk")
			}
			if b.ByteLength > len(bin) {
				return fmt.Errorf("buffer 0: byteLength %d exceeds the BIN chunk (%d bytes)", b.ByteLength, len(bin))
			}
			b.Data = bin[:b.ByteLength:b.ByteLength]
		case b.URI == "":
			return fmt.Errorf("buffer %d has no uri", i)
		case strings.HasPrefix(b.URI, "data:"):
			data, err := decodeDataURI(b.URI)
			if err != nil {
				return fmt.Errorf("buffer %d: %w", i, err)
			}
			if len(data) < b.ByteLength {
				return fmt.Errorf("buffer %d: data URI holds %d bytes, byteLength says %d", i, len(data), b.ByteLength)
			}
			b.Data = data[:b.ByteLength:b.ByteLength]
		default:
			if err := budget.ReadBytes(int64(b.ByteLength), fmt.Sprintf("buffer %d", i)); err != nil {
				return err
			}
			data, err := readExternal(dir, b.URI, int64(b.ByteLength))
			if err != nil {
				return fmt.Errorf("buffer %d: %w", i, err)
			}
			b.Data = data
		}
	}
	return nil
}

// decodeDataURI decodes a base64 data: URI.
func decodeDataURI(uri string) ([]byte, error) {
	comma := strings.IndexByte(uri, ',')
	if comma < 0 || !strings.HasSuffix(uri[:comma], ";base64") {
		return nil, errors.New("data URI is not base64")
	}
	data, err := base64.StdEncoding.DecodeString(uri[comma+1:])
	if err != nil {
		return nil, fmt.Errorf("bad base64 in data URI: %w", err)
	}
	return data, nil
}

// readExternal reads want bytes of the file uri names relative to dir. The file must
// hold at least want bytes; its size is checked before the read.
func readExternal(dir fs.FS, uri string, want int64) ([]byte, error) {
	name, err := url.PathUnescape(strings.ReplaceAll(uri, "\\", "/"))
	if err != nil {
		return nil, fmt.Errorf("bad uri %q: %w", uri, err)
	}
	name = path.Clean(strings.TrimPrefix(name, "./"))
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("external file %q is outside the file's folder", uri)
	}
	if dir == nil {
		return nil, fmt.Errorf("external file %q: no folder to read it from", uri)
	}
	// Refuse FIFOs and devices before opening: opening a FIFO blocks on an fs.FS
	// that is not a RootFS (which opens without blocking and checks again).
	if st, err := fs.Stat(dir, name); err != nil {
		return nil, fmt.Errorf("external file %q: %w", uri, err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("external file %q is not a regular file (%s)", uri, format.KindOf(st.Mode()))
	}
	f, err := dir.Open(name)
	if err != nil {
		return nil, fmt.Errorf("external file %q: %w", uri, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("external file %q: %w", uri, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("external file %q is not a regular file (%s)", uri, format.KindOf(st.Mode()))
	}
	if st.Size() < want {
		return nil, fmt.Errorf("external file %q has %d bytes, byteLength says %d", uri, st.Size(), want)
	}
	data, err := format.ReadAtMost(f, want)
	if err != nil {
		return nil, fmt.Errorf("external file %q: %w", uri, err)
	}
	return data, nil
}

// componentSize returns the byte size of a glTF component type.
func componentSize(c gltf.ComponentType) int {
	switch c {
	case gltf.ComponentByte, gltf.ComponentUbyte:
		return 1
	case gltf.ComponentShort, gltf.ComponentUshort:
		return 2
	default:
		return 4
	}
}

// elementLayout returns an accessor element's column count, rows per column and the
// byte size of one element including the column padding glTF requires for matrices
// of small components.
func elementLayout(c gltf.ComponentType, t gltf.AccessorType) (cols, rows, size int) {
	cs := componentSize(c)
	switch t {
	case gltf.AccessorMat2:
		cols, rows = 2, 2
	case gltf.AccessorMat3:
		cols, rows = 3, 3
	case gltf.AccessorMat4:
		cols, rows = 4, 4
	default:
		cols, rows = 1, t.Components()
	}
	if cols == 1 {
		return cols, rows, cs * rows
	}
	colBytes := (cs*rows + 3) &^ 3
	return cols, rows, colBytes * cols
}

// readComponent decodes one component at b as float64, normalizing integers when asked.
func readComponent(b []byte, c gltf.ComponentType, normalized bool) float64 {
	switch c {
	case gltf.ComponentByte:
		v := float64(int8(b[0]))
		if normalized {
			return math.Max(v/127, -1)
		}
		return v
	case gltf.ComponentUbyte:
		v := float64(b[0])
		if normalized {
			return v / 255
		}
		return v
	case gltf.ComponentShort:
		v := float64(int16(binary.LittleEndian.Uint16(b)))
		if normalized {
			return math.Max(v/32767, -1)
		}
		return v
	case gltf.ComponentUshort:
		v := float64(binary.LittleEndian.Uint16(b))
		if normalized {
			return v / 65535
		}
		return v
	case gltf.ComponentUint:
		v := float64(binary.LittleEndian.Uint32(b))
		if normalized {
			return v / 4294967295
		}
		return v
	default:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
}

// accessorReader reads accessors of one document with bounds checks.
type accessorReader struct {
	doc    *gltf.Document
	budget *format.Counter // charged for external images; nil: not charged
	// totalBytes is the size of all buffers, the cap for accessors without a bufferView.
	totalBytes int
}

func newAccessorReader(doc *gltf.Document) *accessorReader {
	r := &accessorReader{doc: doc}
	for _, b := range doc.Buffers {
		r.totalBytes += len(b.Data)
	}
	return r
}

// accessor returns accessor i after checking that it exists.
func (r *accessorReader) accessor(i int) (*gltf.Accessor, error) {
	if i < 0 || i >= len(r.doc.Accessors) || r.doc.Accessors[i] == nil {
		return nil, fmt.Errorf("accessor %d does not exist (%d accessors)", i, len(r.doc.Accessors))
	}
	return r.doc.Accessors[i], nil
}

// view returns the bytes of buffer view i and its stride (0 when tightly packed).
func (r *accessorReader) view(i int) ([]byte, int, error) {
	if i < 0 || i >= len(r.doc.BufferViews) || r.doc.BufferViews[i] == nil {
		return nil, 0, fmt.Errorf("bufferView %d does not exist (%d bufferViews)", i, len(r.doc.BufferViews))
	}
	v := r.doc.BufferViews[i]
	if v.Buffer < 0 || v.Buffer >= len(r.doc.Buffers) {
		return nil, 0, fmt.Errorf("bufferView %d: buffer %d does not exist", i, v.Buffer)
	}
	data := r.doc.Buffers[v.Buffer].Data
	if v.ByteOffset < 0 || v.ByteLength < 0 || v.ByteStride < 0 ||
		v.ByteOffset > len(data) || v.ByteLength > len(data)-v.ByteOffset {
		return nil, 0, fmt.Errorf("bufferView %d: bytes [%d, %d+%d) lie outside buffer %d (%d bytes)",
			i, v.ByteOffset, v.ByteOffset, v.ByteLength, v.Buffer, len(data))
	}
	return data[v.ByteOffset : v.ByteOffset+v.ByteLength], v.ByteStride, nil
}

// read returns accessor i as count×components float64 values (row-major per element;
// matrices column-major as stored), with sparse substitutions applied.
func (r *accessorReader) read(i int) (vals []float64, ncomp int, err error) {
	a, err := r.accessor(i)
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("accessor %d: %w", i, err)
		}
	}()
	cols, rows, elemSize := elementLayout(a.ComponentType, a.Type)
	ncomp = cols * rows
	cs := componentSize(a.ComponentType)
	if a.Count < 0 || a.Count > maxAccessorElements {
		return nil, 0, fmt.Errorf("bad count %d", a.Count)
	}
	if a.ByteOffset < 0 {
		return nil, 0, fmt.Errorf("negative byteOffset %d", a.ByteOffset)
	}
	if a.BufferView == nil {
		// All zeros (plus sparse values); cap it by the data the file actually has.
		if a.Count*ncomp > r.totalBytes+1024 {
			return nil, 0, fmt.Errorf("count %d without a bufferView exceeds the file's data", a.Count)
		}
		vals = make([]float64, a.Count*ncomp)
	} else {
		data, stride, err := r.view(*a.BufferView)
		if err != nil {
			return nil, 0, err
		}
		if stride == 0 {
			stride = elemSize
		}
		if stride < elemSize {
			return nil, 0, fmt.Errorf("byteStride %d is smaller than the element (%d bytes)", stride, elemSize)
		}
		if stride > len(data) || a.ByteOffset > len(data) {
			return nil, 0, fmt.Errorf("byteStride %d / byteOffset %d exceed bufferView %d (%d bytes)", stride, a.ByteOffset, *a.BufferView, len(data))
		}
		if a.Count > 0 {
			need := int64(a.ByteOffset) + int64(stride)*int64(a.Count-1) + int64(elemSize)
			if need > int64(len(data)) {
				return nil, 0, fmt.Errorf("%d elements of %d bytes at offset %d need %d bytes, bufferView %d has %d",
					a.Count, elemSize, a.ByteOffset, need, *a.BufferView, len(data))
			}
		}
		vals = make([]float64, a.Count*ncomp)
		colBytes := elemSize / cols
		for e := 0; e < a.Count; e++ {
			base := a.ByteOffset + e*stride
			for c := 0; c < cols; c++ {
				for k := 0; k < rows; k++ {
					vals[e*ncomp+c*rows+k] = readComponent(data[base+c*colBytes+k*cs:], a.ComponentType, a.Normalized)
				}
			}
		}
	}
	if a.Sparse != nil {
		if err := r.applySparse(a, vals, ncomp); err != nil {
			return nil, 0, err
		}
	}
	return vals, ncomp, nil
}

// applySparse overwrites the sparse elements of an accessor.
func (r *accessorReader) applySparse(a *gltf.Accessor, vals []float64, ncomp int) error {
	s := a.Sparse
	if s.Count < 0 || s.Count > a.Count {
		return fmt.Errorf("sparse count %d for %d elements", s.Count, a.Count)
	}
	idata, _, err := r.view(s.Indices.BufferView)
	if err != nil {
		return fmt.Errorf("sparse indices: %w", err)
	}
	vdata, _, err := r.view(s.Values.BufferView)
	if err != nil {
		return fmt.Errorf("sparse values: %w", err)
	}
	ics := componentSize(s.Indices.ComponentType)
	if s.Indices.ComponentType == gltf.ComponentFloat || s.Indices.ComponentType == gltf.ComponentByte ||
		s.Indices.ComponentType == gltf.ComponentShort {
		return errors.New("sparse indices must be unsigned integers")
	}
	cols, rows, elemSize := elementLayout(a.ComponentType, a.Type)
	cs := componentSize(a.ComponentType)
	if s.Indices.ByteOffset < 0 || s.Indices.ByteOffset > len(idata) || int64(s.Indices.ByteOffset)+int64(ics)*int64(s.Count) > int64(len(idata)) {
		return errors.New("sparse indices run past their bufferView")
	}
	if s.Values.ByteOffset < 0 || s.Values.ByteOffset > len(vdata) || int64(s.Values.ByteOffset)+int64(elemSize)*int64(s.Count) > int64(len(vdata)) {
		return errors.New("sparse values run past their bufferView")
	}
	colBytes := elemSize / cols
	for k := 0; k < s.Count; k++ {
		idx := int(readComponent(idata[s.Indices.ByteOffset+k*ics:], s.Indices.ComponentType, false))
		if idx < 0 || idx >= a.Count {
			return fmt.Errorf("sparse index %d out of range [0,%d)", idx, a.Count)
		}
		base := s.Values.ByteOffset + k*elemSize
		for c := 0; c < cols; c++ {
			for q := 0; q < rows; q++ {
				vals[idx*ncomp+c*rows+q] = readComponent(vdata[base+c*colBytes+q*cs:], a.ComponentType, a.Normalized)
			}
		}
	}
	return nil
}

// readTyped reads accessor i and checks its type against the allowed element types.
func (r *accessorReader) readTyped(i int, want gltf.AccessorType, what string) ([]float64, error) {
	a, err := r.accessor(i)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if a.Type != want {
		return nil, fmt.Errorf("%s: accessor %d has type %s, want %s", what, i, a.Type, want)
	}
	v, _, err := r.read(i)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// imageBytes returns the encoded bytes and MIME type of image i, from a bufferView, a
// data: URI or an external file. Failures are returned for a warning, never fatal.
func (r *accessorReader) imageBytes(i int, dir fs.FS, maxBytes int64) (*character.Image, error) {
	if i < 0 || i >= len(r.doc.Images) || r.doc.Images[i] == nil {
		return nil, fmt.Errorf("image %d does not exist", i)
	}
	im := r.doc.Images[i]
	var data []byte
	switch {
	case im.BufferView != nil:
		d, _, err := r.view(*im.BufferView)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", i, err)
		}
		// Shared, not copied: images are read-only, and 500 images over one view
		// must not cost 500 copies of it.
		data = d[:len(d):len(d)]
	case strings.HasPrefix(im.URI, "data:"):
		d, err := decodeDataURI(im.URI)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", i, err)
		}
		data = d
	case im.URI != "":
		if dir == nil {
			return nil, fmt.Errorf("image %d: external file %q: no folder to read it from", i, im.URI)
		}
		name, err := url.PathUnescape(strings.ReplaceAll(im.URI, "\\", "/"))
		if err != nil {
			return nil, fmt.Errorf("image %d: bad uri: %w", i, err)
		}
		name = path.Clean(strings.TrimPrefix(name, "./"))
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("image %d: external file %q is outside the file's folder", i, im.URI)
		}
		st, err := fs.Stat(dir, name)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", i, err)
		}
		size := min(st.Size(), maxBytes)
		if r.budget != nil {
			if err := r.budget.ReadBytes(size, fmt.Sprintf("image %d", i)); err != nil {
				return nil, err
			}
		}
		d, err := readExternal(dir, im.URI, size)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", i, err)
		}
		data = d
	default:
		return nil, fmt.Errorf("image %d has neither bufferView nor uri", i)
	}
	mime := sniffImage(data)
	if mime == "" {
		return nil, fmt.Errorf("image %d is neither PNG nor JPEG", i)
	}
	return &character.Image{MIMEType: mime, Data: data}, nil
}

// sniffImage returns "image/png" or "image/jpeg" from the data's magic bytes, or "".
func sniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	}
	return ""
}
