// Package hostile writes inputs built to exhaust or trick rigkit: glTF and OBJ
// files (geometry amplified by instancing, millions of empty JSON objects, huge
// index buffers, sparse multi-gigabyte files, symlinks that leave the input folder,
// FIFOs, enum values outside the specification, rigs whose repair is quadratic,
// coordinates that overflow), checkpoints whose config lies about the network's
// size (Checkpoints), and request bodies for the scoring service (Requests).
// Tests feed them to the loader, the commands and the service and check that each
// one gets a clear error (or a correct result) with bounded memory and time and
// without reading any file outside its folder.
//
// It writes raw bytes and imports nothing from rigkit, so that any package's tests
// can use it.
package hostile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Secret is the content of the file outside the input folder that the symlink
// cases point at; no output may contain it.
const Secret = "RIGKIT-OUTSIDE-SECRET-0123456789abcdef"

// Case is one hostile input.
type Case struct {
	// Name identifies the case.
	Name string
	// Path is the input file to load.
	Path string
	// Want is a substring of the error the loader must give ("" when the file must
	// load).
	Want string
	// What says what the file does.
	What string
}

// Write creates every case under dir (which should be empty: it makes one folder
// per case plus "outside" for the symlink targets) and returns them. Cases the
// platform cannot make (FIFOs off Unix) are left out.
func Write(dir string) ([]Case, error) {
	var out []Case
	for _, g := range generators {
		c, err := g(dir)
		if err != nil {
			return nil, err
		}
		if c.Path != "" {
			out = append(out, c)
		}
	}
	return out, nil
}

var generators = []func(string) (Case, error){
	valid, amplified, emptyNodes, byteTriangles, tinyPrimitives, sparseFile, sparseBuffer,
	symlinkBuffer, symlinkImage, fifoInput, fifoBuffer, badComponentType, badMode,
	animationBomb, sharedImageView, nodesKey("Nodes", "nodes-case-folded"), nodesKey(`node\u0073`, "nodes-escaped"), objTriangles,
	orphanGrid, OrphanSphere, jointChain,
}

// caseDir makes dir/name and returns it.
func caseDir(dir, name string) (string, error) {
	d := filepath.Join(dir, name)
	return d, os.MkdirAll(d, 0o755)
}

// mesh builds a document with one grid-like mesh of nv vertices (a strip of
// triangles over them), placed by instances nodes, and returns it with its BIN.
func mesh(nv, instances int) (map[string]any, []byte) {
	var bin bytes.Buffer
	for i := 0; i < nv; i++ {
		x, y := float32(i%100)*0.01, float32(i/100)*0.01
		for _, v := range []float32{x, y, float32(i%2) * 0.01} {
			binary.Write(&bin, binary.LittleEndian, math.Float32bits(v))
		}
	}
	posBytes := bin.Len()
	ntri := nv - 2
	for t := 0; t < ntri; t++ {
		for _, v := range []uint32{uint32(t), uint32(t + 1), uint32(t + 2)} {
			binary.Write(&bin, binary.LittleEndian, v)
		}
	}
	nodes := make([]map[string]any, instances)
	roots := make([]int, instances)
	for i := range nodes {
		nodes[i] = map[string]any{"mesh": 0, "translation": []float64{float64(i), 0, 0}}
		roots[i] = i
	}
	doc := map[string]any{
		"asset":   map[string]any{"version": "2.0"},
		"scene":   0,
		"scenes":  []any{map[string]any{"nodes": roots}},
		"nodes":   nodes,
		"meshes":  []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": 0}, "indices": 1}}}},
		"buffers": []any{map[string]any{"byteLength": bin.Len()}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": posBytes},
			map[string]any{"buffer": 0, "byteOffset": posBytes, "byteLength": bin.Len() - posBytes},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3",
				"min": []float64{0, 0, 0}, "max": []float64{0.99, float64(nv/100) * 0.01, 0.01}},
			map[string]any{"bufferView": 1, "componentType": 5125, "count": 3 * ntri, "type": "SCALAR"},
		},
	}
	return doc, bin.Bytes()
}

// glb encodes a document and its BIN chunk as a GLB.
func glb(doc map[string]any, bin []byte) ([]byte, error) {
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	for len(bin)%4 != 0 {
		bin = append(bin, 0)
	}
	var out bytes.Buffer
	w := func(v uint32) { binary.Write(&out, binary.LittleEndian, v) }
	total := 12 + 8 + len(js)
	if len(bin) > 0 {
		total += 8 + len(bin)
	}
	w(0x46546C67)
	w(2)
	w(uint32(total))
	w(uint32(len(js)))
	w(0x4E4F534A)
	out.Write(js)
	if len(bin) > 0 {
		w(uint32(len(bin)))
		w(0x004E4942)
		out.Write(bin)
	}
	return out.Bytes(), nil
}

// Mesh writes dir/name: a GLB of one mesh of nv vertices and nv-2 triangles (a
// strip, 32-bit indices) placed by instances nodes. Memory tests use it as a file
// at a known budget.
func Mesh(dir, name string, nv, instances int) (string, error) {
	doc, bin := mesh(nv, instances)
	return writeGLB(dir, name, doc, bin)
}

// writeGLB writes doc+bin as dir/name.
func writeGLB(dir, name string, doc map[string]any, bin []byte) (string, error) {
	data, err := glb(doc, bin)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, data, 0o644)
}

// writeGLTF writes doc as dir/name with its buffer 0 in the file bufName beside it.
func writeGLTF(dir, name string, doc map[string]any, bin []byte, bufName string) (string, error) {
	if bufName != "" {
		doc["buffers"] = []any{map[string]any{"byteLength": len(bin), "uri": bufName}}
		if err := os.WriteFile(filepath.Join(dir, bufName), bin, 0o644); err != nil {
			return "", err
		}
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, js, 0o644)
}

func valid(dir string) (Case, error) {
	d, err := caseDir(dir, "valid")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(400, 1)
	p, err := writeGLB(d, "valid.glb", doc, bin)
	return Case{Name: "valid", Path: p, What: "a 400-vertex strip: loads"}, err
}

func amplified(dir string) (Case, error) {
	d, err := caseDir(dir, "amplified")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(10_000, 2_000)
	p, err := writeGLB(d, "amplified.glb", doc, bin)
	return Case{Name: "amplified", Path: p, Want: "Budget.Vertices",
		What: "2,000 nodes placing one 10k-vertex mesh (20M vertices from a few hundred KB)"}, err
}

func emptyNodes(dir string) (Case, error) {
	d, err := caseDir(dir, "empty-nodes")
	if err != nil {
		return Case{}, err
	}
	p, err := EmptyNodes(d, "empty-nodes.gltf", 2_000_000) // 6 MB of "{},"
	return Case{Name: "empty-nodes", Path: p, Want: "Budget.JSONObjects",
		What: "6 MB of empty JSON nodes (2M nodes)"}, err
}

// EmptyNodes writes dir/name: a .gltf of n empty nodes and nothing else.
func EmptyNodes(dir, name string, n int) (string, error) {
	var b strings.Builder
	b.WriteString(`{"asset":{"version":"2.0"},"nodes":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("{}")
	}
	b.WriteString("]}")
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

func byteTriangles(dir string) (Case, error) {
	d, err := caseDir(dir, "byte-triangles")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(256, 1)
	const ntri = 10_000_000
	posBytes := 256 * 12
	idx := make([]byte, 3*ntri)
	for i := range idx {
		idx[i] = byte((i/3 + i%3) % 256)
	}
	bin = append(bin[:posBytes], idx...)
	doc["buffers"] = []any{map[string]any{"byteLength": len(bin)}}
	doc["bufferViews"].([]any)[1] = map[string]any{"buffer": 0, "byteOffset": posBytes, "byteLength": len(idx)}
	doc["accessors"].([]any)[1] = map[string]any{"bufferView": 1, "componentType": 5121, "count": 3 * ntri, "type": "SCALAR"}
	p, err := writeGLB(d, "byte-triangles.glb", doc, bin)
	return Case{Name: "byte-triangles", Path: p, Want: "Budget.Triangles",
		What: "10M triangles of byte indices in a 30 MB file"}, err
}

func tinyPrimitives(dir string) (Case, error) {
	d, err := caseDir(dir, "tiny-primitives")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(3, 1)
	prims := make([]any, 200_000)
	for i := range prims {
		prims[i] = map[string]any{"attributes": map[string]any{"POSITION": 0}, "indices": 1}
	}
	doc["meshes"] = []any{map[string]any{"primitives": prims}}
	p, err := writeGLB(d, "tiny-primitives.glb", doc, bin)
	return Case{Name: "tiny-primitives", Path: p, Want: "Budget.JSONObjects",
		What: "200k one-triangle primitives"}, err
}

// sparseSize is the apparent size of the sparse-file cases (2 GiB).
const sparseSize = 2 << 30

func sparseFile(dir string) (Case, error) {
	d, err := caseDir(dir, "sparse-file")
	if err != nil {
		return Case{}, err
	}
	p := filepath.Join(d, "sparse.glb")
	f, err := os.Create(p)
	if err != nil {
		return Case{}, err
	}
	defer f.Close()
	// A GLB header that declares the whole 2 GiB, then holes.
	hdr := make([]byte, 12)
	binary.LittleEndian.PutUint32(hdr, 0x46546C67)
	binary.LittleEndian.PutUint32(hdr[4:], 2)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(sparseSize-1))
	if _, err := f.Write(hdr); err != nil {
		return Case{}, err
	}
	return Case{Name: "sparse-file", Path: p, Want: "Budget.FileBytes",
		What: "a 2 GiB sparse GLB"}, f.Truncate(sparseSize)
}

func sparseBuffer(dir string) (Case, error) {
	d, err := caseDir(dir, "sparse-buffer")
	if err != nil {
		return Case{}, err
	}
	doc, _ := mesh(3, 1)
	f, err := os.Create(filepath.Join(d, "huge.bin"))
	if err != nil {
		return Case{}, err
	}
	defer f.Close()
	if err := f.Truncate(sparseSize); err != nil {
		return Case{}, err
	}
	doc["buffers"] = []any{map[string]any{"byteLength": sparseSize, "uri": "huge.bin"}}
	p, err := writeGLTF(d, "sparse-buffer.gltf", doc, nil, "")
	return Case{Name: "sparse-buffer", Path: p, Want: "Budget.FileBytes",
		What: "a .gltf whose buffer is a 2 GiB sparse file"}, err
}

// outside writes the secret file outside every case folder and returns its path.
func outside(dir string) (string, error) {
	d, err := caseDir(dir, "outside")
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "secret.bin")
	// Long enough to serve as any small buffer, and a valid PNG signature first so
	// that an image read through the link would be kept.
	data := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte(Secret), 64)...)
	return p, os.WriteFile(p, data, 0o644)
}

func symlinkBuffer(dir string) (Case, error) {
	secret, err := outside(dir)
	if err != nil {
		return Case{}, err
	}
	d, err := caseDir(dir, "symlink-buffer")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(3, 1)
	if err := os.Symlink(secret, filepath.Join(d, "mesh.bin")); err != nil {
		return Case{}, err
	}
	doc["buffers"] = []any{map[string]any{"byteLength": len(bin), "uri": "mesh.bin"}}
	p, err := writeGLTF(d, "symlink-buffer.gltf", doc, nil, "")
	return Case{Name: "symlink-buffer", Path: p, Want: "mesh.bin",
		What: "a .gltf whose buffer is a symlink to a file outside its folder"}, err
}

func symlinkImage(dir string) (Case, error) {
	secret, err := outside(dir)
	if err != nil {
		return Case{}, err
	}
	d, err := caseDir(dir, "symlink-image")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(400, 1)
	if err := os.Symlink(secret, filepath.Join(d, "skin.png")); err != nil {
		return Case{}, err
	}
	doc["images"] = []any{map[string]any{"uri": "skin.png"}}
	doc["textures"] = []any{map[string]any{"source": 0}}
	doc["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": 0}}}}
	doc["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)["material"] = 0
	p, err := writeGLTF(d, "symlink-image.gltf", doc, bin, "mesh.bin")
	return Case{Name: "symlink-image", Path: p,
		What: "a .gltf whose texture image is a symlink outside its folder: loads without the image"}, err
}

func badComponentType(dir string) (Case, error) {
	d, err := caseDir(dir, "component-type")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(400, 1)
	doc["accessors"].([]any)[0].(map[string]any)["componentType"] = 9999
	p, err := writeGLB(d, "component-type.glb", doc, bin)
	return Case{Name: "component-type", Path: p, Want: "componentType 9999",
		What: "POSITION with componentType 9999"}, err
}

func badMode(dir string) (Case, error) {
	d, err := caseDir(dir, "mode")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(400, 1)
	doc["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)["mode"] = 77
	p, err := writeGLB(d, "mode.glb", doc, bin)
	return Case{Name: "mode", Path: p, Want: "mode 77", What: "a primitive with mode 77"}, err
}

func fifoInput(dir string) (Case, error) {
	d, err := caseDir(dir, "fifo-input")
	if err != nil {
		return Case{}, err
	}
	p := filepath.Join(d, "pipe.glb")
	ok, err := mkfifo(p)
	if !ok || err != nil {
		return Case{}, err
	}
	return Case{Name: "fifo-input", Path: p, Want: "not a regular file", What: "a FIFO as the input"}, nil
}

func fifoBuffer(dir string) (Case, error) {
	d, err := caseDir(dir, "fifo-buffer")
	if err != nil {
		return Case{}, err
	}
	ok, err := mkfifo(filepath.Join(d, "pipe.bin"))
	if !ok || err != nil {
		return Case{}, err
	}
	doc, bin := mesh(3, 1)
	doc["buffers"] = []any{map[string]any{"byteLength": len(bin), "uri": "pipe.bin"}}
	p, err := writeGLTF(d, "fifo-buffer.gltf", doc, nil, "")
	return Case{Name: "fifo-buffer", Path: p, Want: "not a regular file", What: "a FIFO as a .gltf's buffer"}, err
}

// String describes the case.
func (c Case) String() string {
	want := "loads"
	if c.Want != "" {
		want = fmt.Sprintf("error containing %q", c.Want)
	}
	return fmt.Sprintf("%s (%s): %s", c.Name, c.What, want)
}
