package assets

import (
	"errors"
	"fmt"
	"sync"

	"github.com/qmuntal/gltf"
)

// Budget caps what one load may read and build, so that a small hostile file (2,000
// nodes instancing one large mesh, millions of empty JSON objects, a 2 GB sparse
// file) fails fast with an error naming the limit instead of exhausting memory or
// time. Sizes are checked before anything is read and counts are charged while
// decoding, at the point each count becomes known, before the memory it implies is
// allocated. A zero field means that field's default (DefaultBudget); limits are
// raised by setting fields, or with the --max-* flags of the rig commands.
//
// Allocation during a load stays below BudgetAllocBytes(b): a fixed multiple of the
// budget (see docs/hardening.md, "Loading"), which TestLoadMemoryWithinBudget checks.
type Budget struct {
	// FileBytes caps the bytes read from disk for one load: the .glb/.gltf itself
	// plus its external buffers and images.
	FileBytes int64 `json:"file_bytes"`
	// JSONBytes caps the glTF JSON (the whole .gltf, or a GLB's JSON chunk).
	JSONBytes int64 `json:"json_bytes"`
	// JSONObjects caps the JSON objects in the document ({...}, at any depth),
	// counted by a scan before the document is decoded.
	JSONObjects int `json:"json_objects"`
	// Nodes caps the document's nodes.
	Nodes int `json:"nodes"`
	// Instances caps the mesh instances in the scene (nodes that place a mesh).
	Instances int `json:"instances"`
	// Primitives caps the primitives read, summed over every instance.
	Primitives int `json:"primitives"`
	// Vertices caps the vertices read, summed over every instance: one mesh placed
	// by 2,000 nodes counts 2,000 times.
	Vertices int `json:"vertices"`
	// Triangles caps the triangles read, summed over every instance.
	Triangles int `json:"triangles"`
}

// DefaultBudget returns the limits Load uses unless told otherwise. Each is at least
// 20× what the largest of rigkit's real and sample characters needs (../shared/data,
// 657 files, and assets/samples: at most 2.2 MB, 42,593 vertices instanced;
// docs/hardening.md has the table, TestDefaultBudgetLoadsData checks it), and small
// enough that a load at the limit allocates well under 2 GiB.
func DefaultBudget() Budget {
	return Budget{
		FileBytes:   128 << 20,
		JSONBytes:   32 << 20,
		JSONObjects: 200_000,
		Nodes:       50_000,
		Instances:   10_000,
		Primitives:  10_000,
		Vertices:    1_000_000,
		Triangles:   2_000_000,
	}
}

// WithDefaults returns b with every zero or negative field set to DefaultBudget's.
func (b Budget) WithDefaults() Budget { return b.or(DefaultBudget()) }

// or returns b with every zero or negative field taken from d.
func (b Budget) or(d Budget) Budget {
	pick64 := func(v, def int64) int64 {
		if v <= 0 {
			return def
		}
		return v
	}
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return Budget{
		FileBytes:   pick64(b.FileBytes, d.FileBytes),
		JSONBytes:   pick64(b.JSONBytes, d.JSONBytes),
		JSONObjects: pick(b.JSONObjects, d.JSONObjects),
		Nodes:       pick(b.Nodes, d.Nodes),
		Instances:   pick(b.Instances, d.Instances),
		Primitives:  pick(b.Primitives, d.Primitives),
		Vertices:    pick(b.Vertices, d.Vertices),
		Triangles:   pick(b.Triangles, d.Triangles),
	}
}

var (
	processBudgetMu sync.RWMutex
	processBudget   Budget
)

// SetDefaultBudget sets the budget of every load that is not given one (Load,
// LoadFile, Decode) in this process: the rig commands call it once after parsing
// their --max-* flags so that every package that loads files honours them. Zero
// fields keep DefaultBudget's values.
func SetDefaultBudget(b Budget) {
	processBudgetMu.Lock()
	processBudget = b.WithDefaults()
	processBudgetMu.Unlock()
}

// CurrentBudget returns the budget loads use when none is given.
func CurrentBudget() Budget {
	processBudgetMu.RLock()
	defer processBudgetMu.RUnlock()
	return processBudget.WithDefaults()
}

// BudgetError reports a load that would exceed its Budget. Callers that serve
// requests test for it with errors.As to answer "too large" rather than "malformed".
type BudgetError struct {
	Limit string // the Budget field, e.g. "Vertices"
	Flag  string // the rig flag that raises it, e.g. "--max-vertices"
	Need  int64  // what the file needs (at least)
	Max   int64  // the limit
	What  string // what was being read when the limit was reached
}

func (e *BudgetError) Error() string {
	what := ""
	if e.What != "" {
		what = e.What + ": "
	}
	return fmt.Sprintf("%sover the load budget: needs %d %s, limit %d (Budget.%s; raise it with %s)",
		what, e.Need, budgetUnit[e.Limit], e.Max, e.Limit, e.Flag)
}

// budgetUnit names what each limit counts, for error messages.
var budgetUnit = map[string]string{
	"FileBytes":   "bytes read from disk",
	"JSONBytes":   "bytes of JSON",
	"JSONObjects": "JSON objects",
	"Nodes":       "nodes",
	"Instances":   "mesh instances",
	"Primitives":  "primitives",
	"Vertices":    "vertices",
	"Triangles":   "triangles",
}

// BudgetFlags maps each Budget field to the rig flag that sets it.
var BudgetFlags = map[string]string{
	"FileBytes":   "--max-file-mb",
	"JSONBytes":   "--max-json-mb",
	"JSONObjects": "--max-json-objects",
	"Nodes":       "--max-nodes",
	"Instances":   "--max-instances",
	"Primitives":  "--max-primitives",
	"Vertices":    "--max-vertices",
	"Triangles":   "--max-triangles",
}

// IsBudgetError reports whether err is (or wraps) a *BudgetError.
func IsBudgetError(err error) bool {
	var be *BudgetError
	return errors.As(err, &be)
}

// budgetCounter charges one load's reads and counts against its Budget.
type budgetCounter struct {
	b                                          Budget
	fileBytes                                  int64
	instances, primitives, vertices, triangles int64
}

// newBudgetCounter starts counting against b, whose zero fields take the process
// budget's values (CurrentBudget).
func newBudgetCounter(b Budget) *budgetCounter { return &budgetCounter{b: b.or(CurrentBudget())} }

// charge adds n to *used and fails when the total passes max, before the caller
// allocates anything for it.
func charge(used *int64, n, max int64, limit, what string) error {
	if n < 0 || *used+n > max {
		return &BudgetError{Limit: limit, Flag: BudgetFlags[limit], Need: *used + n, Max: max, What: what}
	}
	*used += n
	return nil
}

func (c *budgetCounter) readBytes(n int64, what string) error {
	return charge(&c.fileBytes, n, c.b.FileBytes, "FileBytes", what)
}

func (c *budgetCounter) instance(n int, what string) error {
	return charge(&c.instances, int64(n), int64(c.b.Instances), "Instances", what)
}

func (c *budgetCounter) primitive(what string) error {
	return charge(&c.primitives, 1, int64(c.b.Primitives), "Primitives", what)
}

func (c *budgetCounter) addVertices(n int, what string) error {
	return charge(&c.vertices, int64(n), int64(c.b.Vertices), "Vertices", what)
}

func (c *budgetCounter) addTriangles(n int, what string) error {
	return charge(&c.triangles, int64(n), int64(c.b.Triangles), "Triangles", what)
}

// checkJSON checks the JSON's size and, by a scan that allocates nothing per
// element, its object and node counts before the document is decoded.
func (c *budgetCounter) checkJSON(jsonData []byte) error {
	if int64(len(jsonData)) > c.b.JSONBytes {
		return &BudgetError{Limit: "JSONBytes", Flag: BudgetFlags["JSONBytes"], Need: int64(len(jsonData)), Max: c.b.JSONBytes, What: "glTF JSON"}
	}
	objects, nodes := scanJSONCounts(jsonData)
	if objects > c.b.JSONObjects {
		return &BudgetError{Limit: "JSONObjects", Flag: BudgetFlags["JSONObjects"], Need: int64(objects), Max: int64(c.b.JSONObjects), What: "glTF JSON"}
	}
	if nodes > c.b.Nodes {
		return &BudgetError{Limit: "Nodes", Flag: BudgetFlags["Nodes"], Need: int64(nodes), Max: int64(c.b.Nodes), What: "glTF JSON"}
	}
	return nil
}

// scanJSONCounts counts the objects in a JSON text and the elements of its top-level
// "nodes" array without decoding it. Malformed JSON gives some counts; the decoder
// rejects it afterwards.
func scanJSONCounts(data []byte) (objects, nodes int) {
	depth := 0
	inString, escaped := false, false
	var keyStart int
	lastKey := ""       // the last string seen at depth 1 (a top-level key)
	nodesDepth := -1    // depth of the top-level "nodes" array while inside it
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
					lastKey = string(data[keyStart:i])
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
			depth++
			if depth == 2 && lastKey == "nodes" && nodesDepth < 0 {
				nodesDepth, nodesEmpty = depth, true
			}
		case '}', ']':
			if depth == nodesDepth {
				nodesDepth = -2 // only the first top-level "nodes" array counts
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

// chargeTriangles charges the triangles primitive p can make before they are read.
func (l *loader) chargeTriangles(p *gltf.Primitive, nv int) error {
	return l.budget.addTriangles(declaredTriangles(l.acc, p, nv), "indices")
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
	b := l.budget.b
	for _, c := range []struct {
		limit     string
		need, max int64
	}{
		{"Primitives", prims, int64(b.Primitives)},
		{"Vertices", verts, int64(b.Vertices)},
		{"Triangles", tris, int64(b.Triangles)},
	} {
		if c.need > c.max {
			return &BudgetError{Limit: c.limit, Flag: BudgetFlags[c.limit], Need: c.need, Max: c.max,
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

// Allocation per unit of budget during a load, measured by TestLoadMemoryWithinBudget
// with about 2× margin (docs/hardening.md, "Loading").
const (
	allocPerFileByte   = 8    // an accessor of byte components becomes float64s
	allocPerVertex     = 512  // accessor floats, positions, normals, UVs, weights, growth
	allocPerTriangle   = 192  // indices as float64 and int, triangles, growth
	allocPerJSONObject = 2048 // the decoded document and the enum check
	allocFixed         = 8 << 20
)

// BudgetAllocBytes is the most heap a load within b allocates, and so the most its
// peak heap grows: 8 bytes per byte read, 512 bytes per vertex, 192 per triangle,
// 2 KiB per JSON object, plus 8 MiB. A load that exceeds b stops before this too.
func BudgetAllocBytes(b Budget) int64 {
	b = b.WithDefaults()
	return allocPerFileByte*b.FileBytes + allocPerVertex*int64(b.Vertices) +
		allocPerTriangle*int64(b.Triangles) + allocPerJSONObject*int64(b.JSONObjects) + allocFixed
}
