package gltfio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/meshtest"

	"github.com/qmuntal/gltf"
)

// corruptCases returns named corrupt inputs derived from a valid small rig, each with
// a fragment the error must contain.
func corruptCases(t testing.TB) []struct {
	name, want string
	data       []byte
} {
	good := glbBytes(t, docOf(t, meshtest.Tube(t, 3, 4, 2)))
	mutDoc := func(fn func(d *gltf.Document)) []byte {
		d := docOf(t, meshtest.Tube(t, 3, 4, 2))
		fn(d)
		return glbBytes(t, d)
	}
	patch := func(off int, v uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	jsonLen := int(binary.LittleEndian.Uint32(good[12:]))
	binHeader := 20 + jsonLen
	posBytes := func(d *gltf.Document) []byte {
		a := d.Accessors[d.Meshes[0].Primitives[0].Attributes[gltf.POSITION]]
		v := d.BufferViews[*a.BufferView]
		return d.Buffers[0].Data[v.ByteOffset:]
	}
	return []struct {
		name, want string
		data       []byte
	}{
		{"empty", "empty", nil},
		{"text", "not a glTF", []byte("hello world")},
		{"wrong magic", "not a glTF", append([]byte("gLTF"), good[4:]...)},
		{"version 1", "version", patch(4, 1)},
		{"truncated header", "truncated", good[:15]},
		{"truncated body", "truncated", good[:len(good)/2]},
		{"length beyond file", "truncated", patch(8, uint32(len(good)+100))},
		{"huge JSON chunk", "chunk", patch(12, 0xFFFFFFF0)},
		{"huge BIN chunk", "chunk", patch(binHeader, 0xFFFFFFF0)},
		{"BIN chunk shorter than buffer", "exceeds the BIN chunk", func() []byte {
			b := patch(binHeader, 8)[:binHeader+16]
			binary.LittleEndian.PutUint32(b[8:], uint32(len(b)))
			return b
		}()},
		{"bad JSON", "JSON", append(append(append([]byte(nil), good[:20]...), bytes.Repeat([]byte("{"), jsonLen)...), good[20+jsonLen:]...)},
		{"accessor count beyond buffer", "need", mutDoc(func(d *gltf.Document) { d.Accessors[0].Count = 1 << 26 })},
		{"huge accessor count", "count", mutDoc(func(d *gltf.Document) { d.Accessors[0].Count = math.MaxInt32 * 8 })},
		{"accessor offset beyond view", "exceed", mutDoc(func(d *gltf.Document) { d.Accessors[0].ByteOffset = 1 << 20 })},
		{"huge accessor offset", "exceed", mutDoc(func(d *gltf.Document) { d.Accessors[0].ByteOffset = math.MaxInt64 - 4 })},
		{"huge stride", "exceed", mutDoc(func(d *gltf.Document) { d.BufferViews[0].ByteStride = math.MaxInt64 / 2 })},
		{"view beyond buffer", "outside buffer", mutDoc(func(d *gltf.Document) { d.BufferViews[0].ByteLength = 1 << 30 })},
		{"missing bufferView", "does not exist", mutDoc(func(d *gltf.Document) { d.Accessors[0].BufferView = gltf.Index(999) })},
		{"missing accessor", "does not exist", mutDoc(func(d *gltf.Document) { d.Meshes[0].Primitives[0].Attributes[gltf.POSITION] = 999 })},
		{"NaN position", "not finite", mutDoc(func(d *gltf.Document) {
			binary.LittleEndian.PutUint32(posBytes(d)[4:], math.Float32bits(float32(math.NaN())))
		})},
		{"Inf position", "not finite", mutDoc(func(d *gltf.Document) {
			binary.LittleEndian.PutUint32(posBytes(d)[8:], math.Float32bits(float32(math.Inf(1))))
		})},
		{"index out of range", "out of range", mutDoc(func(d *gltf.Document) {
			a := d.Accessors[*d.Meshes[0].Primitives[0].Indices]
			binary.LittleEndian.PutUint16(d.Buffers[0].Data[d.BufferViews[*a.BufferView].ByteOffset:], 60000)
		})},
		{"joint index out of range", "out of range", mutDoc(func(d *gltf.Document) {
			a := d.Accessors[d.Meshes[0].Primitives[0].Attributes[gltf.JOINTS_0]]
			d.Buffers[0].Data[d.BufferViews[*a.BufferView].ByteOffset] = 200
		})},
		{"skin joint node missing", "does not exist", mutDoc(func(d *gltf.Document) { d.Skins[0].Joints[1] = 500 })},
		{"IBM wrong type", "MAT4", mutDoc(func(d *gltf.Document) { d.Accessors[*d.Skins[0].InverseBindMatrices].Type = gltf.AccessorVec4 })},
		{"node cycle", "cycle", mutDoc(func(d *gltf.Document) { d.Nodes[1].Children = append(d.Nodes[1].Children, 0) })},
		{"child out of range", "does not exist", mutDoc(func(d *gltf.Document) { d.Nodes[0].Children = []int{1000} })},
		{"two parents", "more than one parent", mutDoc(func(d *gltf.Document) { d.Nodes[len(d.Nodes)-1].Children = []int{1} })},
		{"mesh missing", "does not exist", mutDoc(func(d *gltf.Document) { d.Nodes[len(d.Nodes)-1].Mesh = gltf.Index(5) })},
		{"Draco", "unsupported extension KHR_draco_mesh_compression", mutDoc(func(d *gltf.Document) {
			d.ExtensionsUsed = []string{"KHR_draco_mesh_compression"}
			d.ExtensionsRequired = []string{"KHR_draco_mesh_compression"}
		})},
		{"unknown required extension", "requires extension EXT_unknown_geometry", mutDoc(func(d *gltf.Document) {
			d.ExtensionsUsed = []string{"EXT_unknown_geometry"}
			d.ExtensionsRequired = []string{"EXT_unknown_geometry"}
		})},
		{"meshopt", "unsupported extension EXT_meshopt_compression", mutDoc(func(d *gltf.Document) {
			d.ExtensionsUsed = []string{"EXT_meshopt_compression"}
		})},
		{"missing external bin", "missing.bin", mutDoc(func(d *gltf.Document) {
			d.Buffers = append(d.Buffers, &gltf.Buffer{URI: "missing.bin", ByteLength: 16, Data: make([]byte, 16)})
		})},
		{"bad data URI", "base64", mutDoc(func(d *gltf.Document) {
			d.Buffers = append(d.Buffers, &gltf.Buffer{URI: "data:application/octet-stream;base64,@@@", ByteLength: 16})
		})},
		{"no triangles", "no triangle", mutDoc(func(d *gltf.Document) {
			for _, p := range d.Meshes[0].Primitives {
				p.Mode = gltf.PrimitivePoints
			}
		})},
		{"non-finite node", "not finite", mutDoc(func(d *gltf.Document) {
			d.Nodes[0].Translation[0], d.Nodes[1].Translation[0] = 1.7e308, 1.7e308
		})},
	}
}

// TestCorruptInputs: every corrupt input returns an error naming the file and the
// problem, through both Decode and Load, without panicking.
func TestCorruptInputs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range corruptCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			name := "corrupt-" + strings.ReplaceAll(tc.name, " ", "_") + ".glb"
			c, _, err := testDecode(bytes.NewReader(tc.data), name, nil, testOptions{AllowOrphans: true})
			if err == nil {
				t.Fatalf("no error; loaded %d vertices", len(c.Mesh.Positions))
			}
			if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q should name %q and say %q", err, name, tc.want)
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := testLoad(path, testOptions{}); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("Load: error %v should name %s", err, path)
			}
		})
	}
}

// TestHugeCountsAllocateLittle: declared sizes far beyond the file must fail before
// allocating anything near them.
func TestHugeCountsAllocateLittle(t *testing.T) {
	for _, tc := range corruptCases(t) {
		if !strings.HasPrefix(tc.name, "huge") && !strings.Contains(tc.name, "beyond") {
			continue
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err := testDecode(bytes.NewReader(tc.data), "huge.glb", nil, testOptions{AllowOrphans: true})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: allocated %d MiB for a %d-byte file", tc.name, alloc>>20, len(tc.data))
		}
	}
}
