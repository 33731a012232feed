package viewer

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// TestTextureTransform checks KHR_texture_transform's matrix on points whose
// images the extension's definition gives.
func TestTextureTransform(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ext        string
		u, v       float32
		wantU, wnV float32
	}{
		{"none", ``, 0.3, 0.7, 0.3, 0.7},
		{"offset", `{"offset":[0.5,0.25]}`, 0.1, 0.1, 0.6, 0.35},
		{"scale", `{"scale":[2,0.5]}`, 0.25, 0.5, 0.5, 0.25},
		{"rotation a quarter turn", `{"rotation":1.5707963267948966}`, 1, 0, 0, -1},
		{"all three", `{"offset":[1,0],"rotation":1.5707963267948966,"scale":[2,2]}`, 0, 1, 3, 0},
		{"not an object", `[1,2]`, 0.3, 0.7, 0.3, 0.7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ext any
			if tc.ext != "" {
				ext = json.RawMessage(tc.ext)
			}
			u, v := applyUV(textureTransform(ext), tc.u, tc.v)
			if math.Abs(float64(u-tc.wantU)) > 1e-6 || math.Abs(float64(v-tc.wnV)) > 1e-6 {
				t.Errorf("(%g, %g) → (%g, %g), want (%g, %g)", tc.u, tc.v, u, v, tc.wantU, tc.wnV)
			}
		})
	}
}

// solidPNG is a 2×2 PNG of one colour.
func solidPNG(t testing.TB, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	for i := 0; i < 4; i++ {
		img.Set(i%2, i/2, c)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// texturedSample is the sample figure with a green base colour texture.
func texturedSample(t testing.TB) *character.Character {
	c := sampleCharacter(8, 2000)
	c.Mesh.UVs = make([][2]float64, len(c.Mesh.Positions))
	for i := range c.Mesh.UVs {
		c.Mesh.UVs[i] = [2]float64{0.25, 0.25}
	}
	c.Materials = []character.Material{{Name: "green", BaseColor: [4]float64{1, 1, 1, 1},
		BaseColorTexture: &character.Image{MIMEType: "image/png", Data: solidPNG(t, color.RGBA{20, 200, 40, 255})}}}
	c.Mesh.Groups = []character.TriangleGroup{{Start: 0, Count: len(c.Mesh.Triangles), Material: 0}}
	return c
}

// TestSurfaces reads the material runs: the texture decodes, a broken one draws
// untextured, a character without groups is one run.
func TestSurfaces(t *testing.T) {
	c := texturedSample(t)
	s := surfaces(c)
	if len(s) != 1 || s[0].texture == nil || s[0].count != len(c.Mesh.Triangles) {
		t.Fatalf("surfaces = %+v", s)
	}
	if got := s[0].texture.RGBAAt(1, 1); got.G != 200 {
		t.Errorf("texel %v, want the PNG's green", got)
	}
	c.Materials[0].BaseColorTexture.Data = []byte("not a png")
	if s := surfaces(c); s[0].texture != nil {
		t.Error("a broken texture decoded")
	}
	c.Mesh.Groups = nil
	if s := surfaces(c); len(s) != 1 || s[0].base != [4]float32{1, 1, 1, 1} {
		t.Errorf("ungrouped mesh: %+v", s)
	}
}

// TestVertexColors reads COLOR_0 from a file that has them (a static quad with one
// colour per corner), and white without a source scene.
func TestVertexColors(t *testing.T) {
	if rgba := vertexRGBA(sampleCharacter(4, 200)); rgba[0] != 1 || rgba[len(rgba)-1] != 1 {
		t.Error("a character without a scene is not white")
	}
	doc := gltf.NewDocument()
	corners := [][4]uint8{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 128}}
	attrs := gltf.PrimitiveAttributes{
		gltf.POSITION: modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}),
		gltf.COLOR_0:  modeler.WriteColor(doc, corners),
	}
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{{Attributes: attrs,
		Indices: gltf.Index(modeler.WriteIndices(doc, []uint16{0, 1, 2, 0, 2, 3}))}}}}
	doc.Nodes = []*gltf.Node{{Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	path := filepath.Join(t.TempDir(), "quad.glb")
	if err := gltf.SaveBinary(doc, path); err != nil {
		t.Fatal(err)
	}
	c, _, err := assets.Load(path, assets.Options{KeepScene: true})
	if err != nil {
		t.Fatal(err)
	}
	rgba := vertexRGBA(c)
	if len(rgba) != 16 {
		t.Fatalf("%d floats for %d vertices", len(rgba), len(c.Mesh.Positions))
	}
	for v, want := range corners {
		for k := range 4 {
			if got := rgba[4*v+k]; math.Abs(float64(got)-float64(want[k])/255) > 1e-6 {
				t.Fatalf("vertex %d colour %v, want %v", v, rgba[4*v:4*v+4], want)
			}
		}
	}
}

// TestTexturedMode draws the green-textured figure: textured, the mesh is green;
// shaded, it is clay.
func TestTexturedMode(t *testing.T) {
	c := texturedSample(t)
	green := func(img *image.RGBA) int {
		n := 0
		for y := 0; y < shotH; y++ {
			for x := 0; x < shotW; x++ {
				p := img.RGBAAt(x, y)
				if int(p.G) > int(p.R)+60 && int(p.G) > int(p.B)+60 {
					n++
				}
			}
		}
		return n
	}
	tex := green(render(t, c, ShotOptions{Mode: ModeTextured, HideSkeleton: true}))
	shaded := green(render(t, c, ShotOptions{Mode: ModeShaded, HideSkeleton: true}))
	if tex < shotW*shotH/50 || shaded > tex/10 {
		t.Errorf("green pixels: %d textured, %d shaded", tex, shaded)
	}
}
