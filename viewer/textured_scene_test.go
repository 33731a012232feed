package viewer

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// Checker colours of the textured scene.
var (
	checkerA = color.RGBA{235, 120, 20, 255} // orange
	checkerB = color.RGBA{20, 160, 170, 255} // teal
)

// checkerPNG is an 8×8 checkerboard of 2×2-texel squares; the teal squares have
// alpha bAlpha.
func checkerPNG(t testing.TB, bAlpha uint8) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			c := checkerA
			if (x/2+y/2)%2 == 1 {
				c = checkerB
				c.A = bAlpha
			}
			img.SetNRGBA(x, y, color.NRGBA(c))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// texturedScene writes the sample figure with cylindrical UVs and a checker texture
// as a GLB, lets edit change its glTF material (alpha mode, texture transform), and
// loads it back with its scene, as `rig view` does.
func texturedScene(t *testing.T, bAlpha uint8, edit func(m *gltf.Material, doc *gltf.Document)) *character.Character {
	t.Helper()
	c := sampleCharacter(8, 4000)
	lo, hi := c.Mesh.Bounds()
	c.Mesh.UVs = make([][2]float64, len(c.Mesh.Positions))
	for i, p := range c.Mesh.Positions {
		c.Mesh.UVs[i] = [2]float64{0.5 + math.Atan2(p[2], p[0])/(2*math.Pi), (p[1] - lo[1]) / (hi[1] - lo[1])}
	}
	c.Materials = []character.Material{{Name: "checker", BaseColor: [4]float64{1, 1, 1, 1},
		BaseColorTexture: &character.Image{MIMEType: "image/png", Data: checkerPNG(t, bAlpha)}}}
	c.Mesh.Groups = []character.TriangleGroup{{Start: 0, Count: len(c.Mesh.Triangles), Material: 0}}
	path := filepath.Join(t.TempDir(), "checker.glb")
	if _, err := assets.Save(path, c); err != nil {
		t.Fatal(err)
	}
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(doc.Materials[0], doc)
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	out, _, err := assets.Load(path, assets.Options{KeepScene: true})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkerCounts returns how many pixels are near each checker colour, and how often the
// middle row switches between them.
func checkerCounts(img *image.RGBA) (a, b, switches int) {
	near := func(p color.RGBA, q color.RGBA) bool {
		// lit: compare hue by the channel order, not the exact value
		return (int(p.R) > int(p.B)+60) == (int(q.R) > int(q.B)+60) && (int(p.B) > int(p.R)+60) == (int(q.B) > int(q.R)+60) &&
			(int(p.R) > int(p.B)+60 || int(p.B) > int(p.R)+60)
	}
	last := 0
	for y := 0; y < shotH; y++ {
		for x := 0; x < shotW; x++ {
			p := img.RGBAAt(x, y)
			k := 0
			switch {
			case near(p, checkerA):
				a, k = a+1, 1
			case near(p, checkerB):
				b, k = b+1, 2
			}
			if y == shotH*2/3 && k != 0 {
				if last != 0 && k != last {
					switches++
				}
				last = k
			}
		}
	}
	return a, b, switches
}

// TestTexturedScene draws a checker-textured figure loaded from its GLB: both
// colours show; KHR_texture_transform's scale of 4 repeats the checker about 4×;
// alpha MASK cuts the transparent squares away and BLEND lets them through. RIGKIT_VIEWER_DUMP keeps the images
// (docs/viewer.md's textured picture is TestTexturedScene/transform.png).
func TestTexturedScene(t *testing.T) {
	plain := func(*gltf.Material, *gltf.Document) {}
	shot := ShotOptions{Mode: ModeTextured}
	var base [3]int
	t.Run("plain", func(t *testing.T) {
		a, b, sw := checkerCounts(render(t, texturedScene(t, 255, plain), shot))
		if a < 500 || b < 500 {
			t.Fatalf("orange %d, teal %d pixels: the checker is not drawn", a, b)
		}
		base = [3]int{a, b, sw}
	})
	t.Run("transform", func(t *testing.T) {
		scaled := texturedScene(t, 255, func(m *gltf.Material, doc *gltf.Document) {
			m.PBRMetallicRoughness.BaseColorTexture.Extensions = gltf.Extensions{
				"KHR_texture_transform": map[string]any{"scale": []float64{4, 4}}}
			doc.ExtensionsUsed = append(doc.ExtensionsUsed, "KHR_texture_transform")
		})
		_, _, sw := checkerCounts(render(t, scaled, shot))
		if sw < 2*base[2] || sw < 4 {
			t.Errorf("the middle row switches colour %d times with scale 4, %d without", sw, base[2])
		}
	})
	t.Run("blend", func(t *testing.T) {
		blended := texturedScene(t, 0, func(m *gltf.Material, _ *gltf.Document) { m.AlphaMode = gltf.AlphaBlend })
		_, b, _ := checkerCounts(render(t, blended, ShotOptions{Mode: ModeTextured, HideSkeleton: true}))
		if b > base[1]/5 {
			t.Errorf("blended with transparent teal: %d teal pixels (opaque %d)", b, base[1])
		}
	})
	t.Run("mask", func(t *testing.T) {
		masked := texturedScene(t, 0, func(m *gltf.Material, _ *gltf.Document) { m.AlphaMode = gltf.AlphaMask })
		a, b, _ := checkerCounts(render(t, masked, ShotOptions{Mode: ModeTextured, HideSkeleton: true}))
		if b > base[1]/20 || a < base[0]/3 {
			t.Errorf("masked: orange %d, teal %d pixels (unmasked %d, %d)", a, b, base[0], base[1])
		}
	})
}
