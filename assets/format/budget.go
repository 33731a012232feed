package format

import (
	"errors"
	"fmt"
	"sync"
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
	// AnimationKeys caps the animation keys read, summed over every channel: 6,000
	// channels sharing one 32,000-key sampler count 192 million.
	AnimationKeys int `json:"animation_keys"`
	// RepairWork caps the steps of the loader's repairs, whose cost is not
	// proportional to the file: binding orphan vertices to their nearest joint
	// counts every joint a search looks at (a k-d tree looks at a few per vertex;
	// joints on a sphere around the vertices make it look at all of them).
	RepairWork int `json:"repair_work"`
}

// DefaultBudget returns the limits Load uses unless told otherwise. Each is at least
// 20× what the largest of rigkit's real and sample characters needs (../shared/data,
// 657 files, and assets/samples: at most 2.2 MB, 42,593 vertices instanced;
// docs/hardening.md has the table, TestDefaultBudgetLoadsData checks it), and small
// enough that a load at the limit allocates well under 2 GiB.
func DefaultBudget() Budget {
	return Budget{
		FileBytes:     128 << 20,
		JSONBytes:     32 << 20,
		JSONObjects:   200_000,
		Nodes:         50_000,
		Instances:     10_000,
		Primitives:    10_000,
		Vertices:      1_000_000,
		Triangles:     2_000_000,
		AnimationKeys: 1_000_000,
		RepairWork:    50_000_000,
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
		FileBytes:     pick64(b.FileBytes, d.FileBytes),
		JSONBytes:     pick64(b.JSONBytes, d.JSONBytes),
		JSONObjects:   pick(b.JSONObjects, d.JSONObjects),
		Nodes:         pick(b.Nodes, d.Nodes),
		Instances:     pick(b.Instances, d.Instances),
		Primitives:    pick(b.Primitives, d.Primitives),
		Vertices:      pick(b.Vertices, d.Vertices),
		Triangles:     pick(b.Triangles, d.Triangles),
		AnimationKeys: pick(b.AnimationKeys, d.AnimationKeys),
		RepairWork:    pick(b.RepairWork, d.RepairWork),
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
	"FileBytes":     "bytes read from disk",
	"JSONBytes":     "bytes of JSON",
	"JSONObjects":   "JSON objects",
	"Nodes":         "nodes",
	"Instances":     "mesh instances",
	"Primitives":    "primitives",
	"Vertices":      "vertices",
	"Triangles":     "triangles",
	"AnimationKeys": "animation keys",
	"RepairWork":    "steps of rig repair",
}

// BudgetFlags maps each Budget field to the rig flag that sets it.
var BudgetFlags = map[string]string{
	"FileBytes":     "--max-file-mb",
	"JSONBytes":     "--max-json-mb",
	"JSONObjects":   "--max-json-objects",
	"Nodes":         "--max-nodes",
	"Instances":     "--max-instances",
	"Primitives":    "--max-primitives",
	"Vertices":      "--max-vertices",
	"Triangles":     "--max-triangles",
	"AnimationKeys": "--max-animation-keys",
	"RepairWork":    "--max-repair-work",
}

// IsBudgetError reports whether err is (or wraps) a *BudgetError.
func IsBudgetError(err error) bool {
	var be *BudgetError
	return errors.As(err, &be)
}

// Counter charges one load's reads and counts against its Budget, and stops the
// load when its cancel channel closes: every charge is a point where a load can
// stop, so a service answering at a request's deadline frees its slot then too.
type Counter struct {
	b                                          Budget
	fileBytes                                  int64
	instances, primitives, vertices, triangles int64
	animationKeys, repairWork                  int64
	cancel                                     <-chan struct{}
}

// ErrLoadCanceled is the error of a load stopped by its Counter's cancel channel.
var ErrLoadCanceled = errors.New("load canceled")

// WithCancel makes every later charge fail with ErrLoadCanceled once done closes
// (nil: never); it returns c.
func (c *Counter) WithCancel(done <-chan struct{}) *Counter {
	c.cancel = done
	return c
}

// NewCounter starts counting against b, whose zero fields take the process
// budget's values (CurrentBudget).
func NewCounter(b Budget) *Counter { return &Counter{b: b.or(CurrentBudget())} }

// charge adds n to *used and fails when the total passes max, before the caller
// allocates anything for it.
func (c *Counter) charge(used *int64, n, max int64, limit, what string) error {
	select {
	case <-c.cancel:
		return fmt.Errorf("%s: %w", what, ErrLoadCanceled)
	default:
	}
	if n < 0 || *used+n > max {
		return &BudgetError{Limit: limit, Flag: BudgetFlags[limit], Need: *used + n, Max: max, What: what}
	}
	*used += n
	return nil
}

func (c *Counter) ReadBytes(n int64, what string) error {
	return c.charge(&c.fileBytes, n, c.b.FileBytes, "FileBytes", what)
}

func (c *Counter) Instance(n int, what string) error {
	return c.charge(&c.instances, int64(n), int64(c.b.Instances), "Instances", what)
}

func (c *Counter) Primitive(what string) error {
	return c.charge(&c.primitives, 1, int64(c.b.Primitives), "Primitives", what)
}

func (c *Counter) AddVertices(n int, what string) error {
	return c.charge(&c.vertices, int64(n), int64(c.b.Vertices), "Vertices", what)
}

func (c *Counter) AddTriangles(n int, what string) error {
	return c.charge(&c.triangles, int64(n), int64(c.b.Triangles), "Triangles", what)
}

// BudgetAllocBytes is the most heap a load within b allocates, and so the most its
// peak heap grows: 8 bytes per byte read, 512 bytes per vertex, 192 per triangle,
// 2 KiB per JSON object, plus 8 MiB. A load that exceeds b stops before this too.
func BudgetAllocBytes(b Budget) int64 {
	b = b.WithDefaults()
	return allocPerFileByte*b.FileBytes + allocPerVertex*int64(b.Vertices) +
		allocPerTriangle*int64(b.Triangles) + allocPerJSONObject*int64(b.JSONObjects) +
		allocPerAnimationKey*int64(b.AnimationKeys) + allocFixed
}

// AddAnimationKeys charges n animation keys, once per channel that reads them.
func (c *Counter) AddAnimationKeys(n int, what string) error {
	return c.charge(&c.animationKeys, int64(n), int64(c.b.AnimationKeys), "AnimationKeys", what)
}

// AddRepairWork charges n steps of a loader repair (RepairWork).
func (c *Counter) AddRepairWork(n int64, what string) error {
	return c.charge(&c.repairWork, n, int64(c.b.RepairWork), "RepairWork", what)
}

// Limits is the budget the counter charges against, defaults filled in.
func (c *Counter) Limits() Budget { return c.b }

// Allocation per unit of budget during a load, measured by TestLoadMemoryWithinBudget
// with about 2× margin (docs/hardening.md, "Loading").
const (
	allocPerFileByte     = 8    // an accessor of byte components becomes float64s
	allocPerVertex       = 512  // accessor floats, positions, normals, UVs, weights, growth
	allocPerTriangle     = 192  // indices as float64 and int, triangles, growth
	allocPerJSONObject   = 2048 // the decoded document and the enum check
	allocPerAnimationKey = 96   // a time and up to 3×4 cubic-spline values, then linear keys
	allocFixed           = 8 << 20
)

// Used is what the counter has charged so far, as a Budget (the JSON limits, which
// are checked rather than charged, stay zero).
func (c *Counter) Used() Budget {
	return Budget{FileBytes: c.fileBytes, Instances: int(c.instances), Primitives: int(c.primitives),
		Vertices: int(c.vertices), Triangles: int(c.triangles), AnimationKeys: int(c.animationKeys),
		RepairWork: int(c.repairWork)}
}
