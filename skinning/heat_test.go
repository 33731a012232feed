package skinning

import (
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// checkHeatSkin asserts what every heat skin has: valid weights summing to 1 on
// every vertex, at most 4 influences, all in [0,1].
func checkHeatSkin(t *testing.T, c *character.Character, k *character.Skin) {
	t.Helper()
	if err := k.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
		t.Fatalf("invalid skin: %v", err)
	}
	for v, infl := range k.Weights {
		if len(infl) > character.MaxInfluencesWritten {
			t.Fatalf("vertex %d has %d influences", v, len(infl))
		}
		for _, in := range infl {
			if in.Weight > 1+1e-9 {
				t.Fatalf("vertex %d: weight %v above 1", v, in.Weight)
			}
		}
	}
}

func TestHeatSynthetic(t *testing.T) {
	for _, kind := range []string{"biped", "quadruped"} {
		t.Run(kind, func(t *testing.T) {
			for _, noise := range []bool{false, true} {
				c, err := synth.Generate(kind, 1, synth.Options{TargetVertices: 3000, Noise: noise})
				if err != nil {
					t.Fatal(err)
				}
				k, err := Heat(c, HeatOptions{})
				if err != nil {
					t.Fatalf("noise %v: %v", noise, err)
				}
				checkHeatSkin(t, c, k)
			}
		})
	}
}

// ringUpper returns the mean weight on joint 0 of the arm's vertices at each x of
// the capsule's body rings, in increasing x.
func ringUpper(c *character.Character, k *character.Skin) (xs, upper []float64) {
	sum := map[float64][2]float64{}
	for v, p := range c.Mesh.Positions {
		if math.Abs(math.Hypot(p[1], p[2])-0.2) > 1e-9 {
			continue // cap vertices
		}
		x := math.Round(p[0]*1e6) / 1e6
		s := sum[x]
		sum[x] = [2]float64{s[0] + weightOn(k.Weights[v], 0), s[1] + 1}
	}
	for x := range sum {
		xs = append(xs, x)
	}
	sortFloats(xs)
	for _, x := range xs {
		upper = append(upper, sum[x][0]/sum[x][1])
	}
	return xs, upper
}

func sortFloats(a []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func TestHeatArm(t *testing.T) {
	c := armCharacter()
	k, err := Heat(c, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkHeatSkin(t, c, k)
	checkSkin(t, c, k) // no empty bone on the limb chain, the leaf included
	checkArmRegions(t, c, k, []armRegion{
		{"rigid near the shoulder", -0.3, 0.45, func(u, l float64) bool { return u > 0.95 }},
		// The rings are 1/6 apart, coarser than the diffusion length at C=4 (≈ d/√C =
		// 0.1), so the blend spans about one ring.
		{"blended at the elbow", 0.95, 1.05, func(u, l float64) bool { return u > 0.1 && l > 0.1 }},
		// The leaf joint "tip" owns the bone past x=2 and blends in near the end.
		{"forearm free of the upper arm", 1.55, 1.9, func(u, l float64) bool { return u < 0.05 && l > 0.5 }},
	})
	t.Run("monotone along the axis", func(t *testing.T) {
		xs, up := ringUpper(c, k)
		if len(xs) < 10 {
			t.Fatalf("%d rings", len(xs))
		}
		for i := 1; i < len(up); i++ {
			if up[i] > up[i-1]+1e-6 {
				t.Errorf("upper weight rises from %.4f at x=%.3f to %.4f at x=%.3f", up[i-1], xs[i-1], up[i], xs[i])
			}
		}
		// No ring-to-ring jump as large as the rigid floor's step of 1.
		for i := 1; i < len(up); i++ {
			if up[i-1]-up[i] > 0.75 {
				t.Errorf("upper weight drops %.3f between x=%.3f and x=%.3f", up[i-1]-up[i], xs[i-1], xs[i])
			}
		}
	})
}

// splitSeam cuts the arm along the line y>0, z=0: the triangles on the z<0 side use
// copies of the seam vertices, as a UV seam would. It returns copy → original.
func splitSeam(c *character.Character) map[int]int {
	m := &c.Mesh
	copyOf := map[int]int{} // original → copy
	orig := map[int]int{}
	onSeam := func(p vecmath.Vec3) bool { return math.Abs(p[2]) < 1e-9 && p[1] > 1e-9 }
	for ti, tri := range m.Triangles {
		a, b, cc := m.Positions[tri[0]], m.Positions[tri[1]], m.Positions[tri[2]]
		if (a[2]+b[2]+cc[2])/3 >= 0 {
			continue
		}
		for k, v := range tri {
			if !onSeam(m.Positions[v]) {
				continue
			}
			cp, ok := copyOf[v]
			if !ok {
				cp = len(m.Positions)
				m.Positions = append(m.Positions, m.Positions[v])
				copyOf[v], orig[cp] = cp, v
			}
			m.Triangles[ti][k] = cp
		}
	}
	return orig
}

func TestHeatSeam(t *testing.T) {
	whole := armCharacter()
	kw, err := Heat(whole, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := armCharacter()
	orig := splitSeam(c)
	if len(orig) < 10 {
		t.Fatalf("seam has %d copies", len(orig))
	}
	k, err := Heat(c, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkHeatSkin(t, c, k)
	for cp, v := range orig {
		if !sameInfluences(k.Weights[cp], k.Weights[v], 0) {
			t.Errorf("seam vertex %d: %v, its copy %d: %v", v, k.Weights[v], cp, k.Weights[cp])
		}
	}
	// Welding makes the split mesh the whole one.
	for v := range whole.Mesh.Positions {
		if !sameInfluences(k.Weights[v], kw.Weights[v], 1e-9) {
			t.Errorf("vertex %d: split %v, whole %v", v, k.Weights[v], kw.Weights[v])
		}
	}
}

func sameInfluences(a, b []character.Influence, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Joint != b[i].Joint || math.Abs(a[i].Weight-b[i].Weight) > tol {
			return false
		}
	}
	return true
}

func TestHeatErrors(t *testing.T) {
	nanMesh := armCharacter()
	nanMesh.Mesh.Positions[5][1] = math.NaN()
	tests := []struct {
		name string
		c    *character.Character
		opt  HeatOptions
		want string
	}{
		{"nil", nil, HeatOptions{}, "nil character"},
		{"no skeleton", &character.Character{Mesh: armCharacter().Mesh}, HeatOptions{}, "no skeleton"},
		{"empty mesh", &character.Character{Skeleton: armCharacter().Skeleton}, HeatOptions{}, "empty"},
		{"NaN position", nanMesh, HeatOptions{}, "not finite"},
		{"too many vertices", armCharacter(), HeatOptions{MaxVertices: 100}, "exceed the limit"},
		{"no convergence", armCharacter(), HeatOptions{MaxIter: 1, Tol: 1e-12}, "did not converge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Heat(tc.c, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// nubArm is the arm with a short leaf "nub" on the lower arm pointing back along the
// axis, 3e-3 off it, between two rings of the capsule: every vertex is nearer to the
// upper or lower bone (by 0.7 % or more) than to the nub, so no vertex takes it as
// its heat source.
func nubArm() *character.Character {
	c := armCharacter()
	c.Skeleton = skeleton([]string{"upper", "lower", "tip", "nub"}, []int{-1, 0, 1, 1},
		[]vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0.9, -0.003, 0}})
	return c
}

func TestHeatFillsBuriedLeaf(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  HeatOptions
	}{
		{"default", HeatOptions{}},
		{"no ties", HeatOptions{Sources: HeatSources{Tie: -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := nubArm()
			k, err := Heat(c, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkHeatSkin(t, c, k)
			checkSkin(t, c, k) // no empty bone, the nub included
			// The nub's influence stays local: a fill, not a new limb.
			for v, p := range c.Mesh.Positions {
				if w := weightOn(k.Weights[v], 3); w > 0 && math.Abs(p[0]-0.9) > 0.5 {
					t.Errorf("vertex %d at %v: nub weight %.3f far from the nub", v, p, w)
				}
			}
		})
	}
	t.Run("Blender's rule: no fill", func(t *testing.T) {
		c := nubArm()
		k, err := Heat(c, HeatOptions{Fill: HeatFill{Vertices: -1}})
		if err != nil {
			t.Fatal(err)
		}
		for v := range k.Weights {
			if weightOn(k.Weights[v], 3) > 0 {
				t.Fatalf("vertex %d has nub weight without the fill: the case does not test it", v)
			}
		}
	})
}

func TestHeatTie(t *testing.T) {
	// The ring at the elbow (x = 1) is exactly as far from the upper bone as from the
	// lower one: each gets half of its heat source, where Tie < 0 gives all to the parent.
	c := armCharacter()
	onRing := func(p vecmath.Vec3) bool {
		return math.Abs(p[0]-1) < 1e-9 && math.Abs(math.Hypot(p[1], p[2])-0.2) < 1e-9
	}
	for _, tc := range []struct {
		name         string
		opt          HeatOptions
		upper, lower float64
	}{
		{"split", HeatOptions{}, 0.5, 0.5},
		{"no ties", HeatOptions{Sources: HeatSources{Tie: -1}}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt.withDefaults()
			hm, err := newHeatMesh(c.Mesh, character.NormalizationOf(c.Mesh), opt)
			if err != nil {
				t.Fatal(err)
			}
			norm := character.NormalizationOf(c.Mesh)
			segs := bonesExt(c.Skeleton, opt.Sources.LeafExtension)
			for i := range segs {
				segs[i].A, segs[i].B = norm.Point(segs[i].A), norm.Point(segs[i].B)
			}
			bvh := geom.NewBVH(&character.Mesh{Positions: hm.pos, Triangles: hm.tris})
			source, _ := hm.heatSources(bvh, segs, opt)
			n := 0
			for v, p := range c.Mesh.Positions {
				if !onRing(p) {
					continue
				}
				n++
				src := source[hm.welded[v]]
				if u, l := weightOn(src, 0), weightOn(src, 1); math.Abs(u-tc.upper) > 1e-12 || math.Abs(l-tc.lower) > 1e-12 {
					t.Errorf("vertex %d at %v: source %v, want upper %v lower %v", v, p, src, tc.upper, tc.lower)
				}
			}
			if n == 0 {
				t.Fatal("no vertex on the elbow ring")
			}
		})
	}
	// After diffusion the elbow ring is an even blend.
	k, err := Heat(c, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for v, p := range c.Mesh.Positions {
		if onRing(p) {
			if u, l := weightOn(k.Weights[v], 0), weightOn(k.Weights[v], 1); math.Abs(u-l) > 0.1 {
				t.Errorf("elbow vertex %d: upper %.3f lower %.3f, want an even blend", v, u, l)
			}
		}
	}
}
