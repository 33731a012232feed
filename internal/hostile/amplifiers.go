package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The cases in this file are small files that make a reader repeat work or copy
// data many times over: each must be refused by a budget limit, or loaded without
// the copies.

// animationBomb: 6,000 channels share one 32,000-key rotation sampler.
func animationBomb(dir string) (Case, error) {
	d, err := caseDir(dir, "animation-bomb")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(3, 1)
	const keys, channels = 32_000, 6_000
	var anim bytes.Buffer
	for k := 0; k < keys; k++ {
		binary.Write(&anim, binary.LittleEndian, math.Float32bits(float32(k)/30))
	}
	for k := 0; k < keys; k++ {
		for _, v := range []float32{0, 0, 0, 1} {
			binary.Write(&anim, binary.LittleEndian, math.Float32bits(v))
		}
	}
	off := len(bin)
	bin = append(bin, anim.Bytes()...)
	addView := func(offset, length int) int {
		views := doc["bufferViews"].([]any)
		doc["bufferViews"] = append(views, map[string]any{"buffer": 0, "byteOffset": offset, "byteLength": length})
		return len(views)
	}
	addAccessor := func(view, count int, typ string) int {
		acc := doc["accessors"].([]any)
		doc["accessors"] = append(acc, map[string]any{"bufferView": view, "componentType": 5126, "count": count, "type": typ})
		return len(acc)
	}
	in := addAccessor(addView(off, 4*keys), keys, "SCALAR")
	out := addAccessor(addView(off+4*keys, 16*keys), keys, "VEC4")
	doc["buffers"] = []any{map[string]any{"byteLength": len(bin)}}
	nodes := doc["nodes"].([]map[string]any)
	doc["nodes"] = append(nodes, map[string]any{"name": "joint"})
	doc["skins"] = []any{map[string]any{"joints": []int{len(nodes)}}}
	chans := make([]any, channels)
	for i := range chans {
		chans[i] = map[string]any{"sampler": 0, "target": map[string]any{"node": len(nodes), "path": "rotation"}}
	}
	doc["animations"] = []any{map[string]any{"channels": chans,
		"samplers": []any{map[string]any{"input": in, "output": out}}}}
	p, err := writeGLB(d, "animation-bomb.glb", doc, bin)
	return Case{Name: "animation-bomb", Path: p, Want: "Budget.AnimationKeys",
		What: "6,000 animation channels sharing one 32,000-key sampler (192M keys from 1 MB)"}, err
}

// sharedImageView: 500 images, textures and materials over one 8 MiB buffer view.
func sharedImageView(dir string) (Case, error) {
	d, err := caseDir(dir, "shared-image-view")
	if err != nil {
		return Case{}, err
	}
	doc, bin := mesh(3, 1)
	const images, size = 500, 8 << 20
	img := make([]byte, size)
	copy(img, "\x89PNG\r\n\x1a\n")
	off := len(bin)
	bin = append(bin, img...)
	views := doc["bufferViews"].([]any)
	doc["bufferViews"] = append(views, map[string]any{"buffer": 0, "byteOffset": off, "byteLength": size})
	doc["buffers"] = []any{map[string]any{"byteLength": len(bin)}}
	var ims, texs, mats []any
	for i := 0; i < images; i++ {
		ims = append(ims, map[string]any{"bufferView": len(views), "mimeType": "image/png"})
		texs = append(texs, map[string]any{"source": i})
		mats = append(mats, map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": i}}})
	}
	doc["images"], doc["textures"], doc["materials"] = ims, texs, mats
	p, err := writeGLB(d, "shared-image-view.glb", doc, bin)
	return Case{Name: "shared-image-view", Path: p,
		What: "500 images over one 8 MiB buffer view (4 GiB if each copied it)"}, err
}

// nodesKey: a key the JSON decoder reads as "nodes" although it is not spelled so.
func nodesKey(key, name string) func(string) (Case, error) {
	return func(dir string) (Case, error) {
		d, err := caseDir(dir, name)
		if err != nil {
			return Case{}, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, `{"asset":{"version":"2.0"},%q:[`, "KEY")
		for i := 0; i < 120_000; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("{}")
		}
		b.WriteString("]}")
		text := strings.Replace(b.String(), `"KEY"`, `"`+key+`"`, 1)
		p := filepath.Join(d, name+".gltf")
		return Case{Name: name, Path: p, Want: "Budget.Nodes",
			What: fmt.Sprintf("120,000 nodes under the key %s, which the decoder reads as \"nodes\"", key)}, os.WriteFile(p, []byte(text), 0o644)
	}
}

// objTriangles: an OBJ whose 200-corner faces, all over the same 200 vertices,
// make 2.4 million triangles from 9 MB.
func objTriangles(dir string) (Case, error) {
	d, err := caseDir(dir, "obj-triangles")
	if err != nil {
		return Case{}, err
	}
	var b strings.Builder
	const corners, faces = 200, 12_200
	for i := 0; i < corners; i++ {
		a := 2 * math.Pi * float64(i) / corners
		fmt.Fprintf(&b, "v %.4f %.4f 0\n", math.Cos(a), math.Sin(a))
	}
	face := "f"
	for i := 1; i <= corners; i++ {
		face += fmt.Sprintf(" %d", i)
	}
	for i := 0; i < faces; i++ {
		b.WriteString(face)
		b.WriteByte('\n')
	}
	p := filepath.Join(d, "triangles.obj")
	return Case{Name: "obj-triangles", Path: p, Want: "Budget.Triangles",
		What: "12,200 faces of 200 corners (2.4M triangles from 9 MB of OBJ)"}, os.WriteFile(p, []byte(b.String()), 0o644)
}
