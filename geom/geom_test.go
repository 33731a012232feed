package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

func TestClosestMatchesBruteForce(t *testing.T) {
	m := merge(uvSphere(vecmath.Vec3{}, 1, 12, 24), uvSphere(vecmath.Vec3{1.5, 0, 0}, 0.4, 8, 16))
	b := NewBVH(m)
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 500; i++ {
		p := vecmath.Vec3{rng.Float64()*5 - 2.5, rng.Float64()*5 - 2.5, rng.Float64()*5 - 2.5}
		hit, ok := b.Closest(p)
		if !ok {
			t.Fatal("no hit on a non-empty mesh")
		}
		best := math.Inf(1)
		for _, tr := range m.Triangles {
			q := ClosestOnTriangle(p, m.Positions[tr[0]], m.Positions[tr[1]], m.Positions[tr[2]])
			best = math.Min(best, q.Dist(p))
		}
		if math.Abs(hit.Dist-best) > 1e-9 {
			t.Fatalf("Closest(%v) = %.6f, brute force %.6f", p, hit.Dist, best)
		}
		if math.Abs(hit.Point.Dist(p)-hit.Dist) > 1e-9 {
			t.Fatalf("hit point %v is not at distance %.6f", hit.Point, hit.Dist)
		}
	}
	if _, ok := NewBVH(&character.Mesh{}).Closest(vecmath.Vec3{}); ok {
		t.Error("empty mesh answered a closest point")
	}
}

func TestRay(t *testing.T) {
	s := uvSphere(vecmath.Vec3{}, 1, 32, 64)
	b := NewBVH(s)
	tests := []struct {
		name      string
		o, d      vecmath.Vec3
		wantT     float64
		wantFront bool
		wantOK    bool
	}{
		{"from center", vecmath.Vec3{}, vecmath.Vec3{1, 0, 0}, 1, false, true},
		{"from outside", vecmath.Vec3{-3, 0.1, 0}, vecmath.Vec3{1, 0, 0}, 3 - math.Sqrt(1-0.01), true, true},
		{"miss", vecmath.Vec3{-3, 2, 0}, vecmath.Vec3{1, 0, 0}, 0, false, false},
		{"axis aligned zero components", vecmath.Vec3{0, 0, -5}, vecmath.Vec3{0, 0, 1}, 4, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hit, ok := b.Ray(tc.o, tc.d, 0, math.Inf(1))
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if math.Abs(hit.T-tc.wantT) > 0.01 || hit.Front != tc.wantFront {
				t.Errorf("hit T=%.4f front=%v, want T≈%.4f front=%v", hit.T, hit.Front, tc.wantT, tc.wantFront)
			}
		})
	}
}

func TestSampling(t *testing.T) {
	s := uvSphere(vecmath.Vec3{}, 1, 24, 48)
	rng := rand.New(rand.NewSource(3))
	surf := SampleSurface(s, 1000, rng)
	if len(surf) != 1000 {
		t.Fatalf("got %d surface samples", len(surf))
	}
	for _, q := range surf {
		if r := q.Point.Len(); r > 1.0001 || r < 0.98 {
			t.Fatalf("surface sample %v at radius %.4f", q.Point, r)
		}
		if q.Normal.Dot(q.Point) <= 0 {
			t.Fatalf("normal %v points inward at %v", q.Normal, q.Point)
		}
	}
	// Same seed, same samples.
	again := SampleSurface(s, 1000, rand.New(rand.NewSource(3)))
	if again[999] != surf[999] {
		t.Error("surface sampling is not deterministic for a seed")
	}
	w := NewWindingNumber(s)
	vol := SampleVolume(w, 500, 0, rng)
	if len(vol) != 500 {
		t.Fatalf("got %d volume samples", len(vol))
	}
	// Uniform in the ball: mean r³ is 1/2.
	mean := 0.0
	for _, p := range vol {
		if p.Len() > 1 {
			t.Fatalf("volume sample %v outside", p)
		}
		mean += math.Pow(p.Len(), 3) / float64(len(vol))
	}
	if math.Abs(mean-0.5) > 0.06 {
		t.Errorf("mean r³ = %.3f, want ≈0.5 for uniform volume samples", mean)
	}
	if SampleSurface(&character.Mesh{}, 10, rng) != nil {
		t.Error("empty mesh gave surface samples")
	}
}

func TestEdgeGraph(t *testing.T) {
	// Two triangles sharing an edge, plus a split copy of vertex 1 (a UV seam) used
	// by a third triangle.
	m := &character.Mesh{
		Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}, {2, 0, 0}, {2, 1, 0}},
		Triangles: [][3]int{{0, 1, 2}, {1, 3, 2}, {4, 5, 6}},
	}
	tests := []struct {
		weld      float64
		wantEdges int
		wantOpen  int // all but the shared side; the weld edge is no side
		wantComps int
	}{{0, 8, 7, 2}, {1e-6, 9, 7, 1}}
	for _, tc := range tests {
		g := NewEdgeGraph(m, tc.weld)
		if len(g.Edges) != tc.wantEdges {
			t.Errorf("weld %g: %d edges, want %d", tc.weld, len(g.Edges), tc.wantEdges)
		}
		if g.Open != tc.wantOpen {
			t.Errorf("weld %g: %d open edges, want %d", tc.weld, g.Open, tc.wantOpen)
		}
		keep := make([]bool, len(m.Positions))
		for i := range keep {
			keep[i] = true
		}
		if _, n := g.Components(keep); n != tc.wantComps {
			t.Errorf("weld %g: %d components, want %d", tc.weld, n, tc.wantComps)
		}
	}
}

// RayCapped must equal Ray clamped at the cap, hit or miss, for rays that start on a
// surface and cross parts wider and narrower than the cap.
func TestRayCapped(t *testing.T) {
	m := uvSphere(vecmath.Vec3{}, 1, 24, 48)
	m2 := uvSphere(vecmath.Vec3{2.5, 0, 0}, 0.3, 12, 24)
	base := len(m.Positions)
	for _, tr := range m2.Triangles {
		m.Triangles = append(m.Triangles, [3]int{tr[0] + base, tr[1] + base, tr[2] + base})
	}
	m.Positions = append(m.Positions, m2.Positions...)
	b := NewBVH(m)
	rng := rand.New(rand.NewSource(3))
	tests := []struct {
		name              string
		limit, tMin, tMax float64
	}{
		{"cap below every width", 0.1, 1e-4, 5},
		{"cap between widths", 1, 1e-4, 5},
		{"cap above every width", 10, 1e-4, 5},
		{"short tMax", 0.25, 1e-4, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 300; i++ {
				o := vecmath.Vec3{rng.Float64()*6 - 2, rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5}
				d := vecmath.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				hit, ok := b.Ray(o, d, tc.tMin, tc.tMax)
				got, gotOK := b.RayCapped(o, d, tc.tMin, tc.limit, tc.tMax)
				if ok != gotOK || (ok && got != math.Min(hit.T, tc.limit)) {
					t.Fatalf("ray %d: RayCapped = %v, %v; Ray clamped = %v, %v", i, got, gotOK, math.Min(hit.T, tc.limit), ok)
				}
			}
		})
	}
}
