package render

import (
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// cube is a closed unit cube around the origin.
func cube() character.Mesh {
	var m character.Mesh
	for c := 0; c < 8; c++ {
		m.Positions = append(m.Positions, vecmath.Vec3{float64(c&1) - 0.5, float64(c>>1&1) - 0.5, float64(c>>2&1) - 0.5})
	}
	for _, q := range [][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}} {
		m.Triangles = append(m.Triangles, [3]int{q[0], q[1], q[2]}, [3]int{q[0], q[2], q[3]})
	}
	return m
}

func TestRenderCoverage(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	for _, tc := range []struct {
		name        string
		perspective bool
		dir         vecmath.Vec3
	}{{"ortho", false, DefaultView}, {"perspective", true, DefaultView}, {"top", false, vecmath.Vec3{0, -1, 0}}} {
		m := cube()
		lo, hi := m.Bounds()
		c := NewCanvas(64, 48, Frame(lo, hi, tc.dir, tc.perspective), white)
		c.DrawMesh(m, nil)
		cov := Coverage(c.Image(), white)
		if cov < 0.1 || cov > 0.95 {
			t.Errorf("%s: cube covers %.2f of the image", tc.name, cov)
		}
	}
}

func TestDepthOrder(t *testing.T) {
	// A red quad in front of a blue one: the centre pixel must be red whatever
	// the drawing order.
	quad := func(z float64) character.Mesh {
		return character.Mesh{
			Positions: []vecmath.Vec3{{-1, -1, z}, {1, -1, z}, {1, 1, z}, {-1, 1, z}},
			Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}},
		}
	}
	red := []vecmath.Vec3{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}}
	blue := []vecmath.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}}
	cam := Camera{Eye: vecmath.Vec3{0, 0, 5}, Target: vecmath.Vec3{}, Up: vecmath.Vec3{0, 1, 0}, Height: 4}
	for _, frontFirst := range []bool{true, false} {
		c := NewCanvas(32, 32, cam, color.RGBA{})
		if frontFirst {
			c.DrawMesh(quad(1), red)
			c.DrawMesh(quad(-1), blue)
		} else {
			c.DrawMesh(quad(-1), blue)
			c.DrawMesh(quad(1), red)
		}
		px := c.Image().RGBAAt(16, 16)
		if px.R == 0 || px.B != 0 {
			t.Errorf("frontFirst=%v: centre pixel %v, want red", frontFirst, px)
		}
	}
}

func TestHeatAndWeights(t *testing.T) {
	if a, b := Heat(0), Heat(1); a[2] <= a[0] || b[0] <= b[2] {
		t.Errorf("Heat(0)=%v should be blue, Heat(1)=%v red", a, b)
	}
	skin := &character.Skin{Weights: [][]character.Influence{{{Joint: 1, Weight: 1}}, {{Joint: 0, Weight: 1}}}}
	cols := WeightColors(skin, 1)
	if cols[0] != Heat(1) || cols[1] != Heat(0) {
		t.Errorf("weight colors %v", cols)
	}
	if d := DominantColors(skin, 2); d[0] == d[1] {
		t.Error("different joints got the same color")
	}
}

func TestWritePNGAndSkeleton(t *testing.T) {
	m := cube()
	lo, hi := m.Bounds()
	bg := color.RGBA{0, 0, 0, 255}
	c := NewCanvas(40, 40, Frame(lo, hi, DefaultView, false), bg)
	sk := &character.Skeleton{Names: []string{"a", "b"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0, -0.4, 0}), vecmath.Translate4(vecmath.Vec3{0, 0.4, 0})}}
	c.DrawSkeleton(sk, color.RGBA{255, 255, 0, 255}, color.RGBA{255, 0, 0, 255})
	if Coverage(c.Image(), bg) == 0 {
		t.Fatal("skeleton overlay drew nothing")
	}
	path := filepath.Join(t.TempDir(), "x.png")
	if err := c.WritePNG(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() != 40 {
		t.Fatalf("decode: %v %v", err, img)
	}
	if err := c.WritePNG(filepath.Join(t.TempDir(), "missing", "x.png")); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}

func ExampleCanvas() {
	m := cube()
	lo, hi := m.Bounds()
	bg := color.RGBA{255, 255, 255, 255}
	c := NewCanvas(32, 32, Frame(lo, hi, DefaultView, true), bg)
	c.DrawMesh(m, nil)
	fmt.Println(Coverage(c.Image(), bg) > 0) // c.WritePNG("cube.png") saves it
	// Output: true
}
