package gltfio

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/rigkit/rigkit/internal/meshtest"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/fuzzbound"
	"github.com/rigkit/rigkit/internal/hostile"
)

// fuzzBudget is the budget FuzzLoad decodes with: small enough that a few-KB input
// amplified by instancing hits a limit long before it costs much, so that the
// allocation bound below (BudgetAllocBytes of this budget) stays tight.
func fuzzBudget(n int) format.Budget {
	return format.Budget{FileBytes: int64(max(n, 1)), JSONBytes: int64(max(n, 1)), JSONObjects: 20_000, Nodes: 5_000,
		Instances: 1_000, Primitives: 1_000, Vertices: 20_000, Triangles: 40_000}
}

// FuzzLoad feeds arbitrary bytes to the glTF decoder: it must return a character
// or an error, never panic (a panic the decoder recovers fails the target too),
// take more than 10 s, or allocate more than BudgetAllocBytes of its budget, the
// bound docs/hardening.md states. A character it returns must be valid. The seed
// corpus is the valid and corrupt inputs of the table tests plus
// testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add(glbBytes(f, docOf(f, meshtest.Tube(f, 3, 4, 2))))
	f.Add(glbBytes(f, skinnedQuadDoc(true)))
	for _, tc := range corruptCases(f) {
		f.Add(tc.data)
	}
	f.Add([]byte(`{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}`))
	// Small hostile files: amplification by instancing (50 × 1,000 vertices, over
	// the fuzz budget) and bad enums.
	dir := f.TempDir()
	for _, mk := range []func() (string, error){
		func() (string, error) { return hostile.Mesh(dir, "amplified.glb", 1000, 50) },
		func() (string, error) { return hostile.Mesh(dir, "strip.glb", 30, 1) },
	} {
		p, err := mk()
		if err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(bytes.Replace(data, []byte(`"componentType":5126`), []byte(`"componentType":9999`), 1))
		f.Add(bytes.Replace(data, []byte(`"indices":1`), []byte(`"mode":77  `), 1)) // same length: the GLB stays whole
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c *character.Character
		var rep *format.LoadReport
		var err error
		b := fuzzBudget(len(data))
		fuzzbound.Check(t, fuzzbound.Bound{Alloc: uint64(format.BudgetAllocBytes(b)), Time: 10 * time.Second}, func() {
			c, rep, err = testDecode(bytes.NewReader(data), "fuzz.glb", nil, testOptions{Budget: b, AllowOrphans: true})
		})
		if errors.Is(err, ErrDecoderPanic) {
			t.Fatalf("the decoder panicked (recovered): %v", err)
		}
		if err != nil {
			return
		}
		if rep == nil {
			t.Fatal("nil report without error")
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("loaded an invalid character: %v", verr)
		}
	})
}
