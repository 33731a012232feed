package assets

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// GLTFSize is what decoding a glTF file would build, counted from its JSON alone
// (no buffer is read): every node with a mesh instances all of that mesh's
// primitives, so a small file whose nodes reuse one big mesh counts as big as the
// character it decodes into. It is an upper bound for the default scene (nodes of
// other scenes are counted too).
type GLTFSize struct {
	// FileBytes is the size of the whole file.
	FileBytes int64 `json:"file_bytes"`
	// JSONBytes is the size of the JSON document (the JSON chunk of a GLB).
	JSONBytes int64 `json:"json_bytes"`
	// Nodes is the number of nodes.
	Nodes int `json:"nodes"`
	// Primitives counts primitive instances: the primitives of each node's mesh.
	Primitives int `json:"primitives"`
	// Vertices counts vertex instances: each primitive instance's POSITION count.
	Vertices int `json:"vertices"`
	// Triangles counts triangle instances (index or vertex counts of triangle lists,
	// strips and fans).
	Triangles int `json:"triangles"`
}

// DefaultGLTFSizeLimit is the size above which batch rigging and the scoring service
// refuse a file before decoding it. Decoding costs about 300 bytes per vertex
// instance, so the vertex limit bounds one decode near 1.2 GB; the real characters
// of the test data stay below 1/10 of every limit.
var DefaultGLTFSizeLimit = GLTFSize{
	FileBytes:  1 << 30,
	JSONBytes:  64 << 20,
	Nodes:      100_000,
	Primitives: 20_000,
	Vertices:   4_000_000,
	Triangles:  4_000_000,
}

// ErrOverSize marks a file whose GLTFSize is above a limit.
var ErrOverSize = errors.New("over the size limit")

// Check returns an error wrapping ErrOverSize naming the first count of s above
// limit (a zero limit field is no limit).
func (s GLTFSize) Check(limit GLTFSize) error {
	checks := []struct {
		name   string
		have   int64
		within int64
	}{
		{"file bytes", s.FileBytes, limit.FileBytes},
		{"JSON bytes", s.JSONBytes, limit.JSONBytes},
		{"nodes", int64(s.Nodes), int64(limit.Nodes)},
		{"primitive instances", int64(s.Primitives), int64(limit.Primitives)},
		{"vertex instances", int64(s.Vertices), int64(limit.Vertices)},
		{"triangle instances", int64(s.Triangles), int64(limit.Triangles)},
	}
	for _, c := range checks {
		if c.within > 0 && c.have > c.within {
			return fmt.Errorf("%d %s, limit %d: %w", c.have, c.name, c.within, ErrOverSize)
		}
	}
	return nil
}

// gltfCounts is the part of a glTF document MeasureGLTF reads.
type gltfCounts struct {
	Nodes []struct {
		Mesh *int `json:"mesh"`
	} `json:"nodes"`
	Meshes []struct {
		Primitives []struct {
			Attributes map[string]int `json:"attributes"`
			Indices    *int           `json:"indices"`
			Mode       *int           `json:"mode"`
		} `json:"primitives"`
	} `json:"meshes"`
	Accessors []struct {
		Count int `json:"count"`
	} `json:"accessors"`
}

// MeasureGLTF counts what a GLB or .gltf file in memory decodes into (see GLTFSize).
func MeasureGLTF(data []byte) (GLTFSize, error) {
	doc := data
	if len(data) >= 4 && string(data[:4]) == "glTF" {
		var err error
		if doc, err = glbJSONChunk(data); err != nil {
			return GLTFSize{}, err
		}
	}
	s, err := measureJSON(doc)
	s.FileBytes = int64(len(data))
	return s, err
}

// glbJSONChunk returns the JSON chunk of a GLB.
func glbJSONChunk(data []byte) ([]byte, error) {
	if len(data) < 20 {
		return nil, errors.New("GLB header truncated")
	}
	n := int64(binary.LittleEndian.Uint32(data[12:16]))
	if string(data[16:20]) != "JSON" {
		return nil, errors.New("GLB: first chunk is not JSON")
	}
	if 20+n > int64(len(data)) {
		return nil, fmt.Errorf("GLB: JSON chunk of %d bytes past the end of the file", n)
	}
	return data[20 : 20+n], nil
}

// measureJSON counts the instances a glTF JSON document describes.
func measureJSON(doc []byte) (GLTFSize, error) {
	s := GLTFSize{JSONBytes: int64(len(doc))}
	var g gltfCounts
	if err := json.Unmarshal(doc, &g); err != nil {
		return s, fmt.Errorf("glTF JSON: %w", err)
	}
	count := func(i *int) int {
		if i == nil || *i < 0 || *i >= len(g.Accessors) {
			return 0
		}
		return max(g.Accessors[*i].Count, 0)
	}
	s.Nodes = len(g.Nodes)
	for _, n := range g.Nodes {
		if n.Mesh == nil || *n.Mesh < 0 || *n.Mesh >= len(g.Meshes) {
			continue
		}
		for _, p := range g.Meshes[*n.Mesh].Primitives {
			s.Primitives++
			pos, ok := p.Attributes["POSITION"]
			verts := 0
			if ok {
				verts = count(&pos)
			}
			s.Vertices += verts
			corners := verts
			if p.Indices != nil {
				corners = count(p.Indices)
			}
			switch {
			case p.Mode == nil || *p.Mode == 4: // triangles
				s.Triangles += corners / 3
			case *p.Mode == 5 || *p.Mode == 6: // strip, fan
				s.Triangles += max(corners-2, 0)
			}
		}
	}
	return s, nil
}
