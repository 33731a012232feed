package geom

import (
	"math"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

func TestWindingSphere(t *testing.T) {
	s := uvSphere(vecmath.Vec3{0.1, -0.2, 0.3}, 1, 24, 48)
	w := NewWindingNumber(s)
	tests := []struct {
		name string
		p    vecmath.Vec3
		want float64
	}{
		{"center", vecmath.Vec3{0.1, -0.2, 0.3}, 1},
		{"inside off-center", vecmath.Vec3{0.6, -0.2, 0.3}, 1},
		{"just inside", vecmath.Vec3{0.1, 0.7, 0.3}, 1},
		{"just outside", vecmath.Vec3{0.1, 0.83, 0.3}, 0},
		{"far outside", vecmath.Vec3{5, 5, 5}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := w.At(tc.p)
			ref := BruteForceWindingNumber(s, tc.p)
			if math.Abs(ref-tc.want) > 0.02 {
				t.Errorf("brute force at %v = %.4f, want %.1f", tc.p, ref, tc.want)
			}
			if math.Abs(got-tc.want) > 0.05 {
				t.Errorf("fast at %v = %.4f, want %.1f", tc.p, got, tc.want)
			}
			if w.Inside(tc.p) != (tc.want > 0.5) {
				t.Errorf("Inside(%v) = %v", tc.p, w.Inside(tc.p))
			}
		})
	}
}

// The fast winding number must agree with brute force on a mesh with holes and
// overlapping, non-manifold parts, at random points in and around it.
func TestWindingMatchesBruteForce(t *testing.T) {
	a := uvSphere(vecmath.Vec3{}, 1, 16, 32)
	b := uvSphere(vecmath.Vec3{0.9, 0.3, 0}, 0.6, 12, 24)
	m := merge(a, b)
	// Punch holes: drop every 17th triangle.
	var kept [][3]int
	for i, tr := range m.Triangles {
		if i%17 != 0 {
			kept = append(kept, tr)
		}
	}
	m.Triangles = kept
	w := NewWindingNumber(m)
	rng := rand.New(rand.NewSource(1))
	maxErr, disagree := 0.0, 0
	const n = 2000
	for i := 0; i < n; i++ {
		p := vecmath.Vec3{rng.Float64()*4 - 2, rng.Float64()*4 - 2, rng.Float64()*4 - 2}
		ref := BruteForceWindingNumber(m, p)
		got := w.At(p)
		maxErr = math.Max(maxErr, math.Abs(ref-got))
		if (ref > 0.5) != (got > 0.5) && math.Abs(ref-0.5) > 0.05 {
			disagree++
		}
	}
	if maxErr > 0.05 {
		t.Errorf("max |fast - brute| = %.4f over %d points, want ≤ 0.05", maxErr, n)
	}
	if disagree > 0 {
		t.Errorf("%d of %d points classified differently from brute force", disagree, n)
	}
}

func TestWindingEmptyAndDegenerate(t *testing.T) {
	tests := []struct {
		name string
		m    *character.Mesh
	}{
		{"empty", &character.Mesh{}},
		{"bad indices", &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}}, Triangles: [][3]int{{0, 1, 2}, {-1, 0, 0}}}},
		{"NaN vertex", &character.Mesh{Positions: []vecmath.Vec3{{math.NaN(), 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}}}},
		{"zero area", &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, Triangles: [][3]int{{0, 1, 2}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWindingNumber(tc.m)
			if got := w.At(vecmath.Vec3{0.1, 0.1, 0.1}); got != 0 || math.IsNaN(got) {
				t.Errorf("At = %v, want 0", got)
			}
		})
	}
}

func TestWindingConcurrent(t *testing.T) {
	s := uvSphere(vecmath.Vec3{}, 1, 16, 32)
	w := NewWindingNumber(s)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < 200; i++ {
				p := vecmath.Vec3{rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5}
				r := p.Len()
				if r > 0.9 && r < 1.1 {
					continue
				}
				if w.Inside(p) != (r < 1) {
					errs <- "wrong side"
					return
				}
			}
		}(int64(g))
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkWindingNumber(b *testing.B) {
	m := uvSphere(vecmath.Vec3{}, 1, 64, 80) // ≈10k triangles
	w := NewWindingNumber(m)
	rng := rand.New(rand.NewSource(1))
	pts := make([]vecmath.Vec3, 256)
	for i := range pts {
		pts[i] = vecmath.Vec3{rng.Float64()*2.4 - 1.2, rng.Float64()*2.4 - 1.2, rng.Float64()*2.4 - 1.2}
	}
	b.Run("bvh", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w.At(pts[i%len(pts)])
		}
	})
	b.Run("bruteforce", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			BruteForceWindingNumber(m, pts[i%len(pts)])
		}
	})
}

// BenchmarkWindingSpeedup times the BVH winding number and brute force on the same
// points in one run and reports the ratio (x-speedup) on a ≈10k-triangle mesh.
func BenchmarkWindingSpeedup(b *testing.B) {
	m := uvSphere(vecmath.Vec3{}, 1, 64, 80)
	w := NewWindingNumber(m)
	rng := rand.New(rand.NewSource(1))
	pts := make([]vecmath.Vec3, 64)
	for i := range pts {
		pts[i] = vecmath.Vec3{rng.Float64()*2.4 - 1.2, rng.Float64()*2.4 - 1.2, rng.Float64()*2.4 - 1.2}
	}
	var fast, brute time.Duration
	for i := 0; i < b.N; i++ {
		p := pts[i%len(pts)]
		t0 := time.Now()
		w.At(p)
		t1 := time.Now()
		BruteForceWindingNumber(m, p)
		brute += time.Since(t1)
		fast += t1.Sub(t0)
	}
	b.ReportMetric(float64(brute)/float64(fast), "x-speedup")
	b.ReportMetric(float64(len(m.Triangles)), "triangles")
}
