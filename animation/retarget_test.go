package animation

import (
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// scaled returns c twice as large and moved, with random joint orientations and
// Mixamo-prefixed names.
func scaled(c *character.Character, k float64, shift vecmath.Vec3) *character.Character {
	o := reorient(c, 21, "mixamorig:")
	for j := range o.Skeleton.BindWorld {
		m := o.Skeleton.BindWorld[j]
		m[12], m[13], m[14] = m[12]*k+shift[0], m[13]*k+shift[1], m[14]*k+shift[2]
		o.Skeleton.BindWorld[j] = m
	}
	for v := range o.Mesh.Positions {
		o.Mesh.Positions[v] = o.Mesh.Positions[v].Scale(k).Add(shift)
	}
	return o
}

// TestRetargetScaledCopy: an animation retargeted onto a copy of its rig that is
// twice as large, moved, and oriented differently moves every joint to twice the
// source's place, root motion included.
func TestRetargetScaledCopy(t *testing.T) {
	for _, kind := range []string{"biped", "quadruped"} {
		src := generate(t, kind, 3)
		k, _ := DetectKind(src.Skeleton)
		clip, _ := Lookup("walk", k)
		a, _, err := Apply(src, clip, Options{})
		if err != nil {
			t.Fatal(err)
		}
		src.Animations = []character.Animation{a}
		shift := vecmath.Vec3{0.3, 0, -1}
		dst := scaled(src, 2, shift)
		dst.Animations = nil
		b, rep, err := Retarget(dst, src, 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.RootMotion || len(rep.Missing) > 0 {
			t.Fatalf("%s: report %+v", kind, rep)
		}
		lo, hi := dst.Mesh.Bounds()
		size := hi.Sub(lo).Len()
		for _, tm := range []float64{0, 0.2, 0.45, 0.8} {
			ps, pd := positionsAt(src, a, tm), positionsAt(dst, b, tm)
			for j := range ps {
				want := ps[j].Scale(2).Add(shift)
				if d := want.Dist(pd[j]); d > 1e-3*size {
					t.Fatalf("%s t=%v joint %s: at %v, want %v (off by %.4f of %.3f)", kind, tm, dst.Skeleton.Names[j], pd[j], want, d, size)
				}
			}
		}
	}
}

// TestRetargetOtherBiped: a walk made for one biped plays on another of other
// proportions and arm pose: its feet swing the same way.
func TestRetargetOtherBiped(t *testing.T) {
	src := generate(t, "biped", 3)
	clip, _ := Lookup("walk", Humanoid)
	a, _, err := Apply(src, clip, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src.Animations = []character.Animation{a}
	dst := reorient(generate(t, "biped", 8), 4, "")
	b, rep, err := Retarget(dst, src, 0, Options{Name: "walk_retargeted"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "walk_retargeted" {
		t.Errorf("name %q", b.Name)
	}
	lf := joint(t, dst, "LeftFoot")
	p0, p5 := positionsAt(dst, b, 0), positionsAt(dst, b, 0.5)
	if dz := p0[lf][2] - p5[lf][2]; dz < 0.2*rep.HipHeight {
		t.Errorf("left foot: %.3f further forward at t=0 than at t=0.5, want > %.3f", dz, 0.2*rep.HipHeight)
	}
}

func TestRetargetErrors(t *testing.T) {
	src := generate(t, "biped", 3)
	dst := generate(t, "biped", 4)
	if _, _, err := Retarget(dst, src, 0, Options{}); err == nil || !strings.Contains(err.Error(), "0 animations") {
		t.Fatalf("source without animations: %v", err)
	}
	clip, _ := Lookup("walk", Humanoid)
	a, _, _ := Apply(src, clip, Options{})
	src.Animations = []character.Animation{a}
	for j := range src.Skeleton.Names {
		src.Skeleton.Names[j] = "bone" + strings.Repeat("_", j)
	}
	if _, _, err := Retarget(dst, src, 0, Options{}); err == nil || !strings.Contains(err.Error(), "no known scheme") {
		t.Fatalf("source with other names: %v", err)
	}
	if _, err := FindAnimation(src, "dance"); err == nil || !strings.Contains(err.Error(), "walk") {
		t.Fatalf("FindAnimation: %v", err)
	}
}
