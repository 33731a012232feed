package skinning

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
)

func weightOn(infl []character.Influence, j int) float64 {
	for _, in := range infl {
		if in.Joint == j {
			return in.Weight
		}
	}
	return 0
}

// checkSkin asserts the invariants every geodesic skin has.
func checkSkin(t *testing.T, c *character.Character, k *character.Skin) {
	t.Helper()
	if err := k.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
		t.Fatalf("invalid skin: %v", err)
	}
	used := make([]bool, c.Skeleton.NumJoints())
	for v, infl := range k.Weights {
		if len(infl) > character.MaxInfluencesWritten {
			t.Fatalf("vertex %d has %d influences", v, len(infl))
		}
		for _, in := range infl {
			if in.Weight > 1e-4 {
				used[in.Joint] = true
			}
		}
	}
	for j, u := range used {
		if !u {
			t.Errorf("joint %q is empty", c.Skeleton.Names[j])
		}
	}
}

// armRegion is a check of the arm's weights on the vertices with x in [xlo, xhi]:
// check gets each vertex's weights on the upper (joint 0) and lower (joint 1) arm.
type armRegion struct {
	name     string
	xlo, xhi float64
	check    func(upper, lower float64) bool
}

// checkArmRegions runs each region's check on every vertex in its range (and fails
// a region with no vertex).
func checkArmRegions(t *testing.T, c *character.Character, k *character.Skin, regions []armRegion) {
	t.Helper()
	for _, tc := range regions {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for v, p := range c.Mesh.Positions {
				if p[0] < tc.xlo || p[0] > tc.xhi {
					continue
				}
				n++
				if u, l := weightOn(k.Weights[v], 0), weightOn(k.Weights[v], 1); !tc.check(u, l) {
					t.Errorf("vertex %d at %v: upper %.3f lower %.3f", v, p, u, l)
				}
			}
			if n == 0 {
				t.Fatal("no vertices in range")
			}
		})
	}
}

func TestGeodesicArm(t *testing.T) {
	c := armCharacter()
	k, err := Geodesic(c, GeodesicOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSkin(t, c, k)
	checkArmRegions(t, c, k, []armRegion{
		{"rigid near the shoulder", 0.1, 0.4, func(u, l float64) bool { return u > 0.97 }},
		{"blended at the elbow", 0.97, 1.03, func(u, l float64) bool { return u > 0.2 && l > 0.2 }},
		{"rigid along the forearm", 1.5, 1.8, func(u, l float64) bool { return l > 0.97 }},
	})
}

func TestGeodesicFingersDoNotLeak(t *testing.T) {
	c := handCharacter()
	f, err := NewField(c, FieldOptions{Cutoff: -1})
	if err != nil {
		t.Fatal(err)
	}
	k, err := f.Skin(c.Mesh, GeodesicOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSkin(t, c, k)
	other := map[bool][]int{true: {4, 5, 6}, false: {1, 2, 3}} // finger A (z<0) → B's joints
	n := 0
	for v, p := range c.Mesh.Positions {
		if p[0] < 0.45 {
			continue // palm and finger bases may blend with the palm
		}
		n++
		for _, j := range other[p[2] < 0] {
			if w := weightOn(k.Weights[v], j); w > 0 {
				t.Errorf("vertex %d at %v has weight %.3f on the other finger's %q", v, p, w, c.Skeleton.Names[j])
			}
		}
	}
	if n == 0 {
		t.Fatal("no finger vertices")
	}
	if l := f.Leakage(k); l.Weight > 1e-3 {
		t.Errorf("geodesic leakage %+v, want ≈0", l)
	}
	// The measure must see a skin that does leak: move half of every distal finger
	// vertex's weight to the other finger's middle bone.
	leaky := k.Clone()
	for v, p := range c.Mesh.Positions {
		if p[0] > 0.8 {
			j := 5
			if p[2] > 0 {
				j = 2
			}
			leaky.Weights[v] = append(leaky.Weights[v], character.Influence{Joint: j, Weight: 1})
		}
	}
	leaky.Prune(0)
	if l := f.Leakage(leaky); l.Weight < 0.05 || l.Vertices == 0 {
		t.Errorf("leaky skin measured %+v, want clear leakage", l)
	}
}

func TestRigidFloor(t *testing.T) {
	c := armCharacter()
	k := Rigid(c)
	for v, p := range c.Mesh.Positions {
		if len(k.Weights[v]) != 1 || k.Weights[v][0].Weight != 1 {
			t.Fatalf("vertex %d: %v, want one weight 1", v, k.Weights[v])
		}
		want := 0
		if p[0] > 1 {
			want = 1
		}
		if math.Abs(p[0]-1) > 1e-9 && k.Weights[v][0].Joint != want {
			t.Errorf("vertex %d at x=%.2f on joint %d, want %d", v, p[0], k.Weights[v][0].Joint, want)
		}
	}
	if got := Rigid(&character.Character{Mesh: c.Mesh}); len(got.Orphans()) != len(c.Mesh.Positions) {
		t.Errorf("no skeleton: want all orphans")
	}
}

func TestWindingVoxelizationOpenMesh(t *testing.T) {
	// A capsule with its cap triangles removed (an open tube): the surface voxels
	// keep it solid and every vertex still reaches a bone.
	c := armCharacter()
	c.Mesh.Triangles = c.Mesh.Triangles[32:]
	k, err := Geodesic(c, GeodesicOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSkin(t, c, k)
}

func TestGeodesicErrors(t *testing.T) {
	tests := []struct {
		name string
		c    *character.Character
	}{
		{"nil", nil},
		{"no skeleton", &character.Character{Mesh: armCharacter().Mesh}},
		{"empty mesh", &character.Character{Skeleton: armCharacter().Skeleton}},
	}
	for _, tc := range tests {
		if _, err := Geodesic(tc.c, GeodesicOptions{}); err == nil {
			t.Errorf("%s: want an error", tc.name)
		}
	}
}

func TestReachMask(t *testing.T) {
	c := handCharacter()
	f, err := NewField(c, FieldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mask := f.reachMask(2)
	// A uniform skin (every joint everywhere) masked: finger tips lose the other finger.
	uni := &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v := range uni.Weights {
		for j := 0; j < 7; j++ {
			uni.Weights[v] = append(uni.Weights[v], character.Influence{Joint: j, Weight: 1.0 / 7})
		}
	}
	m := f.maskSkin(uni, mask, nil)
	if err := m.Validate(len(c.Mesh.Positions), 7, 1e-6); err != nil {
		t.Fatal(err)
	}
	for v, p := range c.Mesh.Positions {
		if p[0] > 1.0 && p[2] < 0 && weightOn(m.Weights[v], 6) > 0 {
			t.Fatalf("tip vertex %d of finger A keeps weight on finger B's tip bone", v)
		}
	}
}

// TestFieldCanceled checks that a closed Cancel ends NewField with ErrCanceled (and
// no field) while an open one leaves the field as without it.
func TestFieldCanceled(t *testing.T) {
	c := handCharacter()
	done := make(chan struct{})
	close(done)
	if f, err := NewField(c, FieldOptions{Cancel: done}); !errors.Is(err, ErrCanceled) || f != nil {
		t.Fatalf("closed Cancel: field %v, error %v; want ErrCanceled", f != nil, err)
	}
	open, err := NewField(c, FieldOptions{Cancel: make(chan struct{}), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewField(c, FieldOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(open.dist, plain.dist) {
		t.Error("an open Cancel changed the distances")
	}
}
