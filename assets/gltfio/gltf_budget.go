package gltfio

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/assets/format"
)

// checkJSON checks the JSON's size and, by a scan that allocates nothing per
// element, its object and node counts before the document is decoded.
func checkJSON(c *format.Counter, jsonData []byte) error {
	if int64(len(jsonData)) > c.Limits().JSONBytes {
		return &format.BudgetError{Limit: "JSONBytes", Flag: format.BudgetFlags["JSONBytes"], Need: int64(len(jsonData)), Max: c.Limits().JSONBytes, What: "glTF JSON"}
	}
	objects, nodes := scanJSONCounts(jsonData)
	if objects > c.Limits().JSONObjects {
		return &format.BudgetError{Limit: "JSONObjects", Flag: format.BudgetFlags["JSONObjects"], Need: int64(objects), Max: int64(c.Limits().JSONObjects), What: "glTF JSON"}
	}
	if nodes > c.Limits().Nodes {
		return &format.BudgetError{Limit: "Nodes", Flag: format.BudgetFlags["Nodes"], Need: int64(nodes), Max: int64(c.Limits().Nodes), What: "glTF JSON"}
	}
	return nil
}

// scanJSONCounts counts the objects and arrays in a JSON text and the elements of
// its top-level "nodes" arrays without decoding it. A top-level key counts as
// "nodes" the way the decoder reads keys: unescaped ("node\u0073") and compared
// case-insensitively ("Nodes"); every such array counts, so a repeated key cannot
// hide one. Malformed JSON gives some counts; the decoder rejects it afterwards.
func scanJSONCounts(data []byte) (objects, nodes int) {
	depth := 0
	inString, escaped := false, false
	var keyStart int
	lastKey := ""       // the last string seen at depth 1 (a top-level key)
	nodesDepth := -1    // depth of a top-level "nodes" array while inside it
	nodesEmpty := false // whether that array has no element yet
	for i := 0; i < len(data); i++ {
		ch := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
				if depth == 1 {
					lastKey = jsonKey(data[keyStart-1 : i+1])
				}
			}
			continue
		}
		if nodesDepth >= 0 && depth == nodesDepth && nodesEmpty && ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != ']' {
			nodes++
			nodesEmpty = false
		}
		switch ch {
		case '"':
			inString, keyStart = true, i+1
		case '{':
			objects++
			depth++
		case '[':
			objects++
			depth++
			if depth == 2 && strings.EqualFold(lastKey, "nodes") {
				nodesDepth, nodesEmpty = depth, true
			}
		case '}', ']':
			if depth == nodesDepth {
				nodesDepth = -1
			}
			depth--
		case ',':
			if depth == nodesDepth {
				nodes++
			}
		}
	}
	return objects, nodes
}

// jsonKey is a quoted JSON string as the decoder reads it (escapes resolved); a
// malformed one is returned as written, which the decoder then rejects.
func jsonKey(quoted []byte) string {
	if len(quoted) > 64 { // no glTF key is this long; skip the unescaping work
		return string(quoted)
	}
	var k string
	if err := json.Unmarshal(quoted, &k); err != nil {
		return string(quoted)
	}
	return k
}

// chargeTriangles charges the triangles primitive p can make before they are read.
func (l *loader) chargeTriangles(p *gltf.Primitive, nv int) error {
	return l.budget.AddTriangles(declaredTriangles(l.acc, p, nv), "indices")
}

// checkDeclared compares the primitives, vertices and triangles the scene declares
// (each mesh counted once per node that places it) with the budget before any
// geometry is read, so that amplification by instancing fails in microseconds.
// It counts as readGeometry reads: a node's primitives that share their vertex
// attributes share vertices. The counts while reading stay as a second check.
func (l *loader) checkDeclared(meshNodes []int) error {
	var prims, verts, tris int64
	for _, n := range meshNodes {
		m := *l.doc.Nodes[n].Mesh
		if m < 0 || m >= len(l.doc.Meshes) || l.doc.Meshes[m] == nil {
			continue // reported by readGeometry
		}
		seen := map[string]bool{}
		for _, p := range l.doc.Meshes[m].Primitives {
			if p == nil {
				continue
			}
			prims++
			if !isTriangleMode(p.Mode) {
				continue
			}
			pos, ok := p.Attributes["POSITION"]
			a, err := l.acc.accessor(pos)
			if !ok || err != nil {
				continue
			}
			if key := attrKey(p); !seen[key] {
				seen[key] = true
				verts += int64(max(a.Count, 0))
			}
			tris += int64(declaredTriangles(l.acc, p, a.Count))
		}
	}
	b := l.budget.Limits()
	for _, c := range []struct {
		limit     string
		need, max int64
	}{
		{"Primitives", prims, int64(b.Primitives)},
		{"Vertices", verts, int64(b.Vertices)},
		{"Triangles", tris, int64(b.Triangles)},
	} {
		if c.need > c.max {
			return &format.BudgetError{Limit: c.limit, Flag: format.BudgetFlags[c.limit], Need: c.need, Max: c.max,
				What: fmt.Sprintf("scene (%d mesh instances)", len(meshNodes))}
		}
	}
	return nil
}

// declaredTriangles is the number of triangles primitive p makes from its index
// count (or its nv vertices when it has no indices).
func declaredTriangles(acc *accessorReader, p *gltf.Primitive, nv int) int {
	n := nv
	if p.Indices != nil {
		a, err := acc.accessor(*p.Indices)
		if err != nil {
			return 0
		}
		n = a.Count
	}
	if p.Mode == gltf.PrimitiveTriangles {
		return max(n/3, 0)
	}
	return max(n-2, 0)
}
