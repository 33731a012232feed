package assets

import (
	"bytes"
	"fmt"
	"testing"
)

// benchGLB encodes a rigged grid of n×n quads (2n² triangles) as GLB.
func benchGLB(b *testing.B, n int) []byte {
	c := &Character{Name: "grid", Mesh: gridMesh(n)}
	c.Skeleton = &Skeleton{Names: []string{"root", "tip"}, Parents: []int{-1, 0},
		BindWorld: []Mat4{Identity4(), Translate4(Vec3{float64(n), 0, 0})}}
	c.Skin = &Skin{Weights: make([][]Influence, len(c.Mesh.Positions))}
	for v, p := range c.Mesh.Positions {
		w := p[0] / float64(n)
		c.Skin.Weights[v] = []Influence{{Joint: 0, Weight: 1 - w}, {Joint: 1, Weight: w}}
	}
	c.Skin.Prune(MaxInfluencesWritten)
	var buf bytes.Buffer
	if err := Encode(&buf, c); err != nil {
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
				if _, _, err := Decode(data, "bench.glb", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSave encodes a 100k-triangle rigged GLB.
func BenchmarkSave(b *testing.B) {
	c, _, err := Decode(benchGLB(b, 224), "bench.glb", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		var buf bytes.Buffer
		if err := Encode(&buf, c); err != nil {
			b.Fatal(err)
		}
	}
}
