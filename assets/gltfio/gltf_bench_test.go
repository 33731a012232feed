package gltfio

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
)

// benchGLB encodes a rigged grid of n×n quads (2n² triangles) as GLB.
func benchGLB(b *testing.B, n int) []byte {
	c := &character.Character{Name: "grid", Mesh: meshtest.Grid(n)}
	c.Skeleton = &character.Skeleton{Names: []string{"root", "tip"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Translate4(vecmath.Vec3{float64(n), 0, 0})}}
	c.Skin = &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v, p := range c.Mesh.Positions {
		w := p[0] / float64(n)
		c.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1 - w}, {Joint: 1, Weight: w}}
	}
	c.Skin.Prune(character.MaxInfluencesWritten)
	var buf bytes.Buffer
	if _, err := Encode(&buf, c); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkLoad decodes rigged GLBs of about 25k and 100k triangles; the ns/op
// ratio between the two sizes against their byte ratio shows loading is linear.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{112, 224} {
		data := benchGLB(b, n)
		b.Run(fmt.Sprintf("tris=%d", 2*n*n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := testDecode(bytes.NewReader(data), "bench.glb", nil, testOptions{AllowOrphans: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSave encodes a 100k-triangle rigged GLB.
func BenchmarkSave(b *testing.B) {
	c, _, err := testDecode(bytes.NewReader(benchGLB(b, 224)), "bench.glb", nil, testOptions{AllowOrphans: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		var buf bytes.Buffer
		if _, err := Encode(&buf, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadChecks compares the hardening checks that run before decoding (the
// JSON scan for the budget and the enum check) with a whole Decode of the same
// input: a 100k-triangle GLB and a JSON-heavy file of 20,000 nodes (the worst
// case for the checks, which cost per JSON byte). docs/hardening.md quotes the
// ratios.
func BenchmarkLoadChecks(b *testing.B) {
	var nodes bytes.Buffer
	nodes.WriteString(`{"asset":{"version":"2.0"},"nodes":[`)
	for i := range 20_000 {
		if i > 0 {
			nodes.WriteByte(',')
		}
		fmt.Fprintf(&nodes, `{"name":"n%d","translation":[%d,0,0]}`, i, i)
	}
	nodes.WriteString("]}")
	inputs := []struct {
		name string
		data []byte
	}{{"glb-tris=100352", benchGLB(b, 224)}, {"json-nodes=20000", nodes.Bytes()}}
	for _, in := range inputs {
		b.Run(in.name+"/checks", func(b *testing.B) {
			js, _, _, err := parseContainer(in.data)
			if err != nil {
				b.Fatal(err)
			}
			budget := format.NewCounter(format.Budget{})
			for b.Loop() {
				if err := checkJSON(budget, js); err != nil {
					b.Fatal(err)
				}
				if err := checkEnums(js); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/decode", func(b *testing.B) {
			for b.Loop() {
				testDecode(bytes.NewReader(in.data), "bench.glb", nil, testOptions{AllowOrphans: true}) // the nodes file has no mesh: an error, after decoding
			}
		})
	}
}
