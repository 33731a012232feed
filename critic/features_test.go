package critic

import (
	"fmt"
	"math"
	"testing"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// TestFeaturesHostile: degenerate and huge skeletons (the rewards' 4096-joint
// limit) give every feature a finite value.
func TestFeaturesHostile(t *testing.T) {
	c := meshtest.Tube(t, 12, 12, 4)
	bvh := geom.NewBVH(&c.Mesh)
	m := Mesh{BVH: bvh, Winding: geom.NewWindingNumberBVH(bvh)}
	chain := func(n int, step vecmath.Vec3) ([]vecmath.Vec3, []int) {
		pos, parents := make([]vecmath.Vec3, n), make([]int, n)
		for k := range pos {
			pos[k], parents[k] = step.Scale(float64(k)), k-1
		}
		return pos, parents
	}
	star := func(n int) ([]vecmath.Vec3, []int) {
		pos, parents := make([]vecmath.Vec3, n), make([]int, n)
		for k := range pos {
			parents[k] = min(k-1, 0)
			a := float64(k)
			pos[k] = vecmath.Vec3{math.Cos(a), 0, math.Sin(a)}.Scale(0.1 * float64(min(k, 1)))
		}
		return pos, parents
	}
	tests := []struct {
		name    string
		pos     []vecmath.Vec3
		parents []int
	}{
		{"one joint", []vecmath.Vec3{{0, 0, 0}}, []int{-1}},
		{"coincident joints", make([]vecmath.Vec3, 5), []int{-1, 0, 1, 2, 3}},
		{"two roots", []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}}, []int{-1, -1}},
	}
	p, q := chain(4096, vecmath.Vec3{0, 0.0005, 0})
	tests = append(tests, struct {
		name    string
		pos     []vecmath.Vec3
		parents []int
	}{"chain of 4096", p, q})
	p, q = star(4096)
	tests = append(tests, struct {
		name    string
		pos     []vecmath.Vec3
		parents []int
	}{"star of 4096", p, q})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Features(m, tc.pos, tc.parents)
			if len(f) != len(FeatureNames) {
				t.Fatalf("%d features, want %d", len(f), len(FeatureNames))
			}
			for i, v := range f {
				if !finite(v) {
					t.Errorf("%s = %v", FeatureNames[i], v)
				}
			}
		})
	}
}

// BenchmarkFeatures: the features of 64- and 4096-joint chains inside a tube
// (`go test ./critic -bench Features`).
func BenchmarkFeatures(b *testing.B) {
	c := meshtest.Tube(b, 24, 16, 4)
	bvh := geom.NewBVH(&c.Mesh)
	m := Mesh{BVH: bvh, Winding: geom.NewWindingNumberBVH(bvh)}
	for _, n := range []int{64, 4096} {
		pos, parents := make([]vecmath.Vec3, n), make([]int, n)
		for k := range pos {
			pos[k], parents[k] = vecmath.Vec3{0, 4 * float64(k) / float64(n), 0}, k-1
		}
		b.Run(fmt.Sprintf("joints=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Features(m, pos, parents)
			}
		})
	}
}
