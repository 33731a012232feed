package hostile

import (
	"bytes"
	"encoding/binary"
	"math"
)

// The cases in this file are rigs whose repair work grows faster than the file: a
// loader that compares every orphan vertex with every joint, or walks up from
// every joint through every plain node above it, spends minutes on a few MB.

// orphanGrid: 200,000 vertices without joint weights and 20,000 joints spread
// over the same area (4 billion vertex-joint pairs; a spatial index looks at a
// few joints per vertex).
func orphanGrid(dir string) (Case, error) {
	const nv, nj = 200_000, 20_000
	joints := make([][3]float64, nj)
	for j := range joints {
		joints[j] = [3]float64{float64(j%100) * 0.01, float64(j/100) * 0.1, 0.005}
	}
	p, err := orphanRig(dir, "orphan-grid", nv, func(i int) [3]float32 {
		return [3]float32{float32(i%100) * 0.01, float32(i/100) * 0.01, float32(i%2) * 0.01}
	}, joints)
	return Case{Name: "orphan-grid", Path: p,
		What: "200,000 orphan vertices and 20,000 joints over the same area (4e9 pairs)"}, err
}

// OrphanSphere writes dir/orphan-sphere/orphan-sphere.glb: 200,000 orphan
// vertices within a micrometre of the centre of a
// sphere of 2,000 joints: every joint is about as near as the nearest, so any
// nearest-neighbour search looks at all of them (4e8 steps).
func OrphanSphere(dir string) (Case, error) {
	const nv, nj = 200_000, 2_000
	joints := make([][3]float64, nj)
	golden := math.Pi * (3 - math.Sqrt(5))
	for j := range joints {
		y := 1 - 2*(float64(j)+0.5)/nj
		r := math.Sqrt(1 - y*y)
		joints[j] = [3]float64{r * math.Cos(golden*float64(j)), y, r * math.Sin(golden*float64(j))}
	}
	p, err := orphanRig(dir, "orphan-sphere", nv, func(i int) [3]float32 {
		return [3]float32{float32(i%100) * 1e-8, float32(i/100) * 1e-8, float32(i%2) * 1e-8}
	}, joints)
	return Case{Name: "orphan-sphere", Path: p, Want: "Budget.RepairWork",
		What: "200,000 orphan vertices at the centre of a sphere of 2,000 joints"}, err
}

// jointChain: 24,000 joints, each a leaf under its own node of a 24,000-node chain
// of plain nodes (a walk up from every joint: 288M steps).
func jointChain(dir string) (Case, error) {
	d, err := caseDir(dir, "joint-chain")
	if err != nil {
		return Case{}, err
	}
	const n = 24_000
	doc, bin := mesh(3, 1)
	nodes := doc["nodes"].([]map[string]any)
	first := len(nodes)
	joints := make([]int, n)
	for i := 0; i < n; i++ {
		chain, joint := first+2*i, first+2*i+1
		children := []int{joint}
		if i+1 < n {
			children = append(children, chain+2)
		}
		nodes = append(nodes, map[string]any{"children": children},
			map[string]any{"name": "j", "translation": []float64{0, 0.001, 0}})
		joints[i] = joint
	}
	doc["nodes"] = nodes
	scene := doc["scenes"].([]any)[0].(map[string]any)
	scene["nodes"] = append(scene["nodes"].([]int), first)
	doc["skins"] = []any{map[string]any{"joints": joints}}
	p, err := writeGLB(d, "joint-chain.glb", doc, bin)
	return Case{Name: "joint-chain", Path: p,
		What: "24,000 joints, each under its own node of a 24,000-node chain of plain nodes"}, err
}

// orphanRig writes dir/name/name.glb: a strip of nv vertices at pos(i), skinned to
// joints (root nodes at the given places) with every weight zero.
func orphanRig(dir, name string, nv int, pos func(int) [3]float32, joints [][3]float64) (string, error) {
	d, err := caseDir(dir, name)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	for i := 0; i < nv; i++ {
		binary.Write(&b, binary.LittleEndian, pos(i))
	}
	posLen := b.Len()
	for t := 0; t < nv-2; t++ {
		binary.Write(&b, binary.LittleEndian, [3]uint32{uint32(t), uint32(t + 1), uint32(t + 2)})
	}
	idxLen := b.Len() - posLen
	b.Write(make([]byte, 16*nv)) // zero JOINTS_0 (its first 8 bytes a vertex) and WEIGHTS_0
	nodes := []any{map[string]any{"mesh": 0, "skin": 0}}
	jointIDs := make([]int, len(joints))
	roots := []int{0}
	for j, p := range joints {
		nodes = append(nodes, map[string]any{"translation": p[:]})
		jointIDs[j] = j + 1
		roots = append(roots, j+1)
	}
	doc := map[string]any{
		"asset": map[string]any{"version": "2.0"}, "scene": 0,
		"scenes": []any{map[string]any{"nodes": roots}}, "nodes": nodes,
		"skins": []any{map[string]any{"joints": jointIDs}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{"indices": 1,
			"attributes": map[string]any{"POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3}}}}},
		"buffers": []any{map[string]any{"byteLength": b.Len()}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteLength": posLen},
			map[string]any{"buffer": 0, "byteOffset": posLen, "byteLength": idxLen},
			map[string]any{"buffer": 0, "byteOffset": posLen + idxLen, "byteLength": 16 * nv},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3",
				"min": []float64{-1, -1, -1}, "max": []float64{1, 20, 1}},
			map[string]any{"bufferView": 1, "componentType": 5125, "count": 3 * (nv - 2), "type": "SCALAR"},
			map[string]any{"bufferView": 2, "componentType": 5123, "count": nv, "type": "VEC4"},
			map[string]any{"bufferView": 2, "componentType": 5126, "count": nv, "type": "VEC4"},
		},
	}
	return writeGLB(d, name+".glb", doc, b.Bytes())
}
