// Package meshtest builds small characters for tests: a rigged, textured, animated
// tube and a flat grid, so that readers, writers and mesh checks in several packages
// test against the same shapes.
package meshtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// boxFaces are a box's six faces as corner indices (bit 0: x, bit 1: y, bit 2:
// z at the high side), counter-clockwise seen from outside.
var boxFaces = [6][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}

// boxCorner returns corner i of the box [lo, hi] (boxFaces' numbering).
func boxCorner(lo, hi vecmath.Vec3, i int) vecmath.Vec3 {
	p := lo
	for a := range 3 {
		if i&(1<<a) != 0 {
			p[a] = hi[a]
		}
	}
	return p
}

// AppendBox appends the closed box [lo, hi] to m: 8 shared corners, 12
// triangles.
func AppendBox(m *character.Mesh, lo, hi vecmath.Vec3) {
	base := len(m.Positions)
	for i := range 8 {
		m.Positions = append(m.Positions, boxCorner(lo, hi, i))
	}
	for _, f := range boxFaces {
		m.Triangles = append(m.Triangles,
			[3]int{base + f[0], base + f[1], base + f[2]}, [3]int{base + f[0], base + f[2], base + f[3]})
	}
}

// AppendLooseBox appends the box [lo, hi] as blocky game models store it:
// each face with its own four vertices (24 in all), so that every face can
// have its own normal and texture corner.
func AppendLooseBox(m *character.Mesh, lo, hi vecmath.Vec3) {
	for _, f := range boxFaces {
		base := len(m.Positions)
		for _, i := range f {
			m.Positions = append(m.Positions, boxCorner(lo, hi, i))
		}
		m.Triangles = append(m.Triangles, [3]int{base, base + 1, base + 2}, [3]int{base, base + 2, base + 3})
	}
}

// Grid returns an n×n grid of quads (2n² triangles) in the XY plane, with
// (n+1)² vertices.
func Grid(n int) character.Mesh {
	var m character.Mesh
	for y := 0; y <= n; y++ {
		for x := 0; x <= n; x++ {
			m.Positions = append(m.Positions, vecmath.Vec3{float64(x), float64(y), math.Sin(float64(x*y) * 0.01)})
		}
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			a := y*(n+1) + x
			m.Triangles = append(m.Triangles, [3]int{a, a + 1, a + n + 2}, [3]int{a, a + n + 2, a + n + 1})
		}
	}
	return m
}

// Tube builds a closed tube along +Y (rings of `seg` vertices, `rings`
// rings, capped) rigged to a chain of `joints` joints, with UVs, two materials
// (one textured) and an animation.
func Tube(t testing.TB, rings, seg, joints int) *character.Character {
	c := &character.Character{Name: "tube"}
	m := &c.Mesh
	height := float64(joints)
	for r := 0; r < rings; r++ {
		y := height * float64(r) / float64(rings-1)
		for s := 0; s < seg; s++ {
			a := 2 * math.Pi * float64(s) / float64(seg)
			m.Positions = append(m.Positions, vecmath.Vec3{0.3 * math.Cos(a), y, 0.3 * math.Sin(a)})
			m.UVs = append(m.UVs, [2]float64{float64(s) / float64(seg), float64(r) / float64(rings-1)})
		}
	}
	for r := 0; r+1 < rings; r++ {
		for s := 0; s < seg; s++ {
			a, b := r*seg+s, r*seg+(s+1)%seg
			c2, d := a+seg, b+seg
			m.Triangles = append(m.Triangles, [3]int{a, c2, b}, [3]int{b, c2, d})
		}
	}
	// Caps: a center vertex at each end.
	bottom, top := len(m.Positions), len(m.Positions)+1
	m.Positions = append(m.Positions, vecmath.Vec3{0, 0, 0}, vecmath.Vec3{0, height, 0})
	m.UVs = append(m.UVs, [2]float64{0.5, 0}, [2]float64{0.5, 1})
	body := len(m.Triangles)
	for s := 0; s < seg; s++ {
		m.Triangles = append(m.Triangles, [3]int{bottom, s, (s + 1) % seg})
		o := (rings - 1) * seg
		m.Triangles = append(m.Triangles, [3]int{top, o + (s+1)%seg, o + s})
	}
	m.Groups = []character.TriangleGroup{{Start: 0, Count: body, Material: 0}, {Start: body, Count: len(m.Triangles) - body, Material: 1}}
	c.Materials = []character.Material{
		{Name: "skin", BaseColor: [4]float64{0.8, 0.6, 0.5, 1}, Metallic: 0, Roughness: 0.7,
			BaseColorTexture: &character.Image{MIMEType: "image/png", Data: PNG(t)}},
		{Name: "caps", BaseColor: [4]float64{0.1, 0.1, 0.1, 1}, Metallic: 0.5, Roughness: 0.5, DoubleSided: true},
	}
	sk := &character.Skeleton{}
	for j := 0; j < joints; j++ {
		sk.Names = append(sk.Names, "bone"+string(rune('A'+j)))
		sk.Parents = append(sk.Parents, j-1)
		// A small rotation about Y per joint so local transforms are not trivial.
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(vecmath.Vec3{0, float64(j), 0}).Mul(vecmath.QuatAxisAngle(vecmath.Vec3{0, 1, 0}, 0.1*float64(j)).Mat4()))
	}
	c.Skeleton = sk
	dense := make([][]float64, len(m.Positions))
	for v, p := range m.Positions {
		dense[v] = make([]float64, joints)
		for j := 0; j < joints; j++ {
			d := math.Abs(p[1] - (float64(j) + 0.5))
			dense[v][j] = math.Max(0, 1-d)
		}
	}
	c.Skin = character.SkinFromDense(dense, character.MaxInfluencesWritten)
	c.Animations = []character.Animation{{Name: "wave", Channels: []character.AnimationChannel{{
		Joint: 1, Path: "rotation", Times: []float64{0, 0.5, 1},
		Values: []float64{0, 0, 0, 1, 0, 0, math.Sin(0.25), math.Cos(0.25), 0, 0, 0, 1},
	}}}}
	return c
}

// tinyPNG returns a valid 2×2 PNG.
func PNG(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	img.Set(1, 1, color.RGBA{0, 0, 255, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
