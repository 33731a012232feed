package character

import (
	"github.com/rigkit/rigkit/vecmath"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// twoBone builds a tiny rigged strip: a root at the origin and a child one unit up,
// with vertices along the Y axis weighted to the nearer joint.
func twoBone() *Character {
	m := Mesh{
		Positions: []vecmath.Vec3{{-0.1, 0, 0}, {0.1, 0, 0}, {-0.1, 1, 0}, {0.1, 1, 0}, {-0.1, 2, 0}, {0.1, 2, 0}},
		Triangles: [][3]int{{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {3, 5, 4}},
	}
	sk := &Skeleton{
		Names:     []string{"root", "tip"},
		Parents:   []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Translate4(vecmath.Vec3{0, 1, 0})},
	}
	w := [][]float64{{1, 0}, {1, 0}, {0.5, 0.5}, {0.5, 0.5}, {0, 1}, {0, 1}}
	return &Character{Name: "strip", Mesh: m, Skeleton: sk, Skin: SkinFromDense(w, 4)}
}

func TestMat4InverseAndTRS(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		q := vecmath.QuatAxisAngle(vecmath.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, rng.Float64()*3)
		tr := vecmath.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		s := vecmath.Vec3{0.5 + rng.Float64(), 0.5 + rng.Float64(), 0.5 + rng.Float64()}
		m := vecmath.TRS(tr, q, s)
		inv, ok := m.Inverse()
		if !ok {
			t.Fatal("TRS not invertible")
		}
		id := m.Mul(inv)
		for k, v := range vecmath.Identity4() {
			if math.Abs(id[k]-v) > 1e-9 {
				t.Fatalf("M·M⁻¹[%d] = %v", k, id[k])
			}
		}
		t2, q2, s2 := vecmath.DecomposeTRS(m)
		m2 := vecmath.TRS(t2, q2, s2)
		for k := range m {
			if math.Abs(m[k]-m2[k]) > 1e-9 {
				t.Fatalf("decompose/compose mismatch at %d: %v vs %v", k, m[k], m2[k])
			}
		}
	}
	if _, ok := (vecmath.Mat4{}).Inverse(); ok {
		t.Fatal("zero matrix reported invertible")
	}
}

func TestSkinPrune(t *testing.T) {
	tests := []struct {
		name string
		in   []Influence
		k    int
		want []Influence
	}{
		{"sorts and normalizes", []Influence{{0, 1}, {1, 3}}, 4, []Influence{{1, 0.75}, {0, 0.25}}},
		{"merges duplicates", []Influence{{2, 1}, {2, 1}, {0, 2}}, 4, []Influence{{0, 0.5}, {2, 0.5}}},
		{"keeps top k", []Influence{{0, 4}, {1, 3}, {2, 2}, {3, 1}}, 2, []Influence{{0, 4.0 / 7}, {1, 3.0 / 7}}},
		{"drops NaN and negatives", []Influence{{0, math.NaN()}, {1, -1}, {2, 1}}, 4, []Influence{{2, 1}}},
		{"orphan stays empty", []Influence{{0, 0}}, 4, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := &Skin{Weights: [][]Influence{tc.in}}
			k.Prune(tc.k)
			got := k.Weights[0]
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].Joint != tc.want[i].Joint || math.Abs(got[i].Weight-tc.want[i].Weight) > 1e-12 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	c := twoBone()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := c.Clone()
	bad.Mesh.Positions[0][1] = math.NaN()
	if bad.Validate() == nil {
		t.Fatal("NaN position accepted")
	}
	bad = c.Clone()
	bad.Skeleton.Parents[0] = 1
	if bad.Validate() == nil {
		t.Fatal("child-before-parent accepted")
	}
	bad = c.Clone()
	bad.Skin.Weights[0] = nil
	if bad.Validate() == nil {
		t.Fatal("orphan vertex accepted")
	}
	bad = c.Clone()
	bad.Skin.Weights[1] = []Influence{{Joint: 7, Weight: 1}}
	if bad.Validate() == nil {
		t.Fatal("joint out of range accepted")
	}
}

func TestNormalizationRoundTrip(t *testing.T) {
	c := twoBone()
	n := NormalizationOf(c.Mesh)
	cube := n.Apply(c)
	lo, hi := cube.Mesh.Bounds()
	ext := 0.0
	for a := 0; a < 3; a++ {
		ext = math.Max(ext, hi[a]-lo[a])
		if math.Abs(lo[a]+hi[a]) > 1e-12 {
			t.Fatalf("axis %d not centred: %v %v", a, lo[a], hi[a])
		}
	}
	if math.Abs(ext-2) > 1e-12 {
		t.Fatalf("largest extent %v, want 2", ext)
	}
	back := n.Invert(cube)
	for i, p := range back.Mesh.Positions {
		if p.Dist(c.Mesh.Positions[i]) > 1e-12*(1+c.Mesh.Positions[i].Len()) {
			t.Fatalf("vertex %d: %v vs %v", i, p, c.Mesh.Positions[i])
		}
	}
	for j := range c.Skeleton.Names {
		if back.Skeleton.Position(j).Dist(c.Skeleton.Position(j)) > 1e-12 {
			t.Fatalf("joint %d moved", j)
		}
	}
}

func TestDeformRestPoseIsIdentity(t *testing.T) {
	c := twoBone()
	got, _ := c.Deform(RestPose(2))
	for i, p := range got {
		if p.Dist(c.Mesh.Positions[i]) > 1e-12 {
			t.Fatalf("vertex %d moved in rest pose: %v", i, p)
		}
	}
}

func TestDeformRotatesChild(t *testing.T) {
	c := twoBone()
	pose := RestPose(2)
	pose[1] = vecmath.QuatAxisAngle(vecmath.Vec3{0, 0, 1}, math.Pi/2) // tip bends 90° about Z
	got, posed := c.Deform(pose)
	if posed[1].Translation().Dist(vecmath.Vec3{0, 1, 0}) > 1e-12 {
		t.Fatalf("rotating a joint moved it: %v", posed[1].Translation())
	}
	// Vertex 4 (-0.1, 2, 0) is fully on the tip: 1 unit above it, rotated to -X.
	want := vecmath.Vec3{-1, 0.9, 0}
	if got[4].Dist(want) > 1e-9 {
		t.Fatalf("tip vertex at %v, want %v", got[4], want)
	}
	// Root vertices do not move.
	if got[0].Dist(c.Mesh.Positions[0]) > 1e-12 {
		t.Fatalf("root vertex moved: %v", got[0])
	}
	// Rotating the root carries the child with it.
	pose = RestPose(2)
	pose[0] = vecmath.QuatAxisAngle(vecmath.Vec3{0, 0, 1}, math.Pi/2)
	_, posed = c.Deform(pose)
	if posed[1].Translation().Dist(vecmath.Vec3{-1, 0, 0}) > 1e-12 {
		t.Fatalf("child after root rotation at %v", posed[1].Translation())
	}
}

func TestRandomPoseAngles(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	p := RandomPose(rng, 200, math.Pi/4)
	for i, q := range p {
		angle := 2 * math.Acos(math.Min(1, math.Abs(q[3])))
		if angle > math.Pi/4+1e-9 {
			t.Fatalf("joint %d rotated by %v", i, angle)
		}
	}
}

func TestSkeletonSelect(t *testing.T) {
	// root(0) → a(1) → b(2); root → c(3)
	s := &Skeleton{Names: []string{"root", "a", "b", "c"}, Parents: []int{-1, 0, 1, 0}}
	for i := range s.Names {
		s.BindWorld = append(s.BindWorld, vecmath.Translate4(vecmath.Vec3{float64(i), 0, 0}))
	}
	tests := []struct {
		name    string
		idx     []int
		names   []string
		parents []int
	}{
		{"all, same order", []int{0, 1, 2, 3}, []string{"root", "a", "b", "c"}, []int{-1, 0, 1, 0}},
		{"drop a subtree", []int{0, 3}, []string{"root", "c"}, []int{-1, 0}},
		{"reorder", []int{0, 3, 1, 2}, []string{"root", "c", "a", "b"}, []int{-1, 0, 0, 2}},
		{"parent left out", []int{1, 2}, []string{"a", "b"}, []int{-1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Select(tc.idx)
			if !slices.Equal(got.Names, tc.names) || !slices.Equal(got.Parents, tc.parents) {
				t.Fatalf("got %v %v, want %v %v", got.Names, got.Parents, tc.names, tc.parents)
			}
			for i, j := range tc.idx {
				if got.BindWorld[i] != s.BindWorld[j] {
					t.Fatalf("joint %d: bind matrix not carried over", i)
				}
			}
		})
	}
}
