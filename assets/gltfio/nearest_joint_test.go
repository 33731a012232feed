package gltfio

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/vecmath"
)

// TestJointTreeMatchesScan checks the k-d tree against the scan it replaces (the
// nearest joint, the lowest id among ties) on point sets with and without ties.
func TestJointTreeMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := func(n int, grid float64) []vecmath.Vec3 {
		p := make([]vecmath.Vec3, n)
		for i := range p {
			for k := range 3 {
				p[i][k] = rng.Float64()
				if grid > 0 { // snapped to a grid: many equal distances
					p[i][k] = math.Round(p[i][k]*grid) / grid
				}
			}
		}
		return p
	}
	tests := []struct {
		name           string
		joints, probes []vecmath.Vec3
	}{
		{"one joint", random(1, 0), random(50, 0)},
		{"random", random(500, 0), random(2000, 0)},
		{"grid ties", random(500, 4), random(2000, 4)},
		{"duplicates", append(random(10, 0), random(10, 0)[:1][0], random(1, 0)[0]), random(500, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := newJointTree(tc.joints)
			for _, q := range tc.probes {
				got, _ := tree.nearest(q)
				want, wantD := 0, math.Inf(1)
				for j, p := range tc.joints {
					if d := p.Sub(q).Dot(p.Sub(q)); d < wantD {
						want, wantD = j, d
					}
				}
				if got != want {
					t.Fatalf("nearest of %v: joint %d, the scan finds %d", q, got, want)
				}
			}
		})
	}
}

// TestNearestJointAbove checks the one-pass table of nearest joint ancestors.
func TestNearestJointAbove(t *testing.T) {
	tests := []struct {
		name   string
		parent []int
		joints []int
		want   []int
	}{
		{"chain of plain nodes, joint leaves", []int{-1, 0, 1, 0, 1, 2}, []int{3, 4, 5}, []int{-1, -1, -1, -1, -1, -1}},
		{"joint under joint through plain nodes", []int{-1, 0, 1, 2}, []int{0, 3}, []int{-1, 0, 0, 0}},
		{"two roots", []int{-1, 0, -1, 2}, []int{2}, []int{-1, -1, -1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js := map[int]int{}
			for i, n := range tc.joints {
				js[n] = i
			}
			got := nearestJointAbove(tc.parent, js)
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// BenchmarkNearestJoint compares the k-d tree with the scan over every joint that
// orphan repair would otherwise run: 20,000 joints over an area, 1,000 orphans in
// it (the hostile orphan-grid case, scaled down).
func BenchmarkNearestJoint(b *testing.B) {
	joints := make([]vecmath.Vec3, 20_000)
	for j := range joints {
		joints[j] = vecmath.Vec3{float64(j%100) * 0.01, float64(j/100) * 0.1, 0.005}
	}
	probes := make([]vecmath.Vec3, 1_000)
	for i := range probes {
		probes[i] = vecmath.Vec3{float64(i%100) * 0.01, float64(i/100) * 0.01, float64(i%2) * 0.01}
	}
	b.Run("tree", func(b *testing.B) {
		for range b.N {
			tree := newJointTree(joints)
			for _, q := range probes {
				tree.nearest(q)
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for range b.N {
			for _, q := range probes {
				best, bestD := 0, math.Inf(1)
				for j, p := range joints {
					if d := p.Sub(q).Dot(p.Sub(q)); d < bestD {
						best, bestD = j, d
					}
				}
				_ = best
			}
		}
	})
}
