package assets

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rigkit/rigkit/internal/fuzzbound"
	"github.com/rigkit/rigkit/internal/khronos"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/internal/meshtest"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
)

// testPNG is a small encoded PNG for texture fixtures.
func testPNG(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 13)
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// cubeOBJ is a unit cube of quads in two materials, half its faces with negative
// indices, UVs, no normals, and an object and two groups.
const cubeOBJ = `# cube
mtllib cube.mtl
o Cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vt 0 0
vt 1 0
vt 1 1
vt 0 1
g front
usemtl skin
f 1/1 4/4 3/3 2/2
f 5/1 6/2 7/3 8/4
f 1/1 2/2 6/3 5/4
g back
usemtl cloth
f -5/1 -1/2 -2/3 -6/4
f -8/1 -4/2 -1/3 -5/4
f -7/1 -6/2 -2/3 -3/4
`

const cubeMTL = `newmtl skin
Kd 0.8 0.5 0.25
Ns 250
map_Kd -s 1 1 1 tex/skin.png
Ke 1 1 1
newmtl cloth
Kd 0.1 0.2 0.3
d 0.5
Pr 0.25
Pm 1
`

// writeOBJFixture writes the cube, its MTL and its PNG into a fresh folder and
// returns the OBJ's path.
func writeOBJFixture(t *testing.T) (string, []byte) {
	dir := t.TempDir()
	pngData := testPNG(t)
	files := map[string][]byte{"cube.obj": []byte(cubeOBJ), "cube.mtl": []byte(cubeMTL), "tex/skin.png": pngData}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "cube.obj"), pngData
}

func TestLoadOBJFixture(t *testing.T) {
	path, pngData := writeOBJFixture(t)
	c, _, err := Load(path, Options{}) // dispatches on the extension
	if err != nil {
		t.Fatal(err)
	}
	m := c.Mesh
	if c.Name != "cube" || len(m.Triangles) != 12 || c.Skeleton != nil {
		t.Fatalf("name %q, %d triangles, skeleton %v", c.Name, len(m.Triangles), c.Skeleton)
	}
	lo, hi := m.Bounds()
	if lo != (vecmath.Vec3{0, 0, 0}) || hi != (vecmath.Vec3{1, 1, 1}) {
		t.Fatalf("bounds %v %v", lo, hi)
	}
	if len(m.Normals) != 0 || len(m.UVs) != len(m.Positions) {
		t.Fatalf("%d normals, %d UVs for %d vertices", len(m.Normals), len(m.UVs), len(m.Positions))
	}
	if len(c.Materials) != 2 || len(m.Groups) != 2 || m.Groups[0].Count != 6 || m.Groups[1].Material != 1 {
		t.Fatalf("materials %d, groups %+v", len(c.Materials), m.Groups)
	}
	skin, cloth := c.Materials[0], c.Materials[1]
	if skin.Name != "skin" || skin.BaseColor != [4]float64{0.8, 0.5, 0.25, 1} || skin.Metallic != 0 {
		t.Fatalf("skin %+v", skin)
	}
	if want := 1 - math.Sqrt(0.25); math.Abs(skin.Roughness-want) > 1e-12 {
		t.Fatalf("skin roughness %g, want %g (from Ns 250)", skin.Roughness, want)
	}
	if skin.BaseColorTexture == nil || skin.BaseColorTexture.MIMEType != "image/png" || !bytes.Equal(skin.BaseColorTexture.Data, pngData) {
		t.Fatalf("skin texture %+v", skin.BaseColorTexture)
	}
	if cloth.BaseColor != [4]float64{0.1, 0.2, 0.3, 0.5} || cloth.Roughness != 0.25 || cloth.Metallic != 1 || cloth.BaseColorTexture != nil {
		t.Fatalf("cloth %+v", cloth)
	}
	// Every face points outwards (the fixture is wound counter-clockwise seen from outside).
	centre := vecmath.Vec3{0.5, 0.5, 0.5}
	for _, tr := range m.Triangles {
		a, b, cc := m.Positions[tr[0]], m.Positions[tr[1]], m.Positions[tr[2]]
		n := b.Sub(a).Cross(cc.Sub(a))
		if n.Dot(a.Add(b).Add(cc).Scale(1.0/3).Sub(centre)) <= 0 {
			t.Fatalf("triangle %v faces inwards", tr)
		}
	}
	// The UV of (0,0,0) in face 1 is vt 1 = (0, 0): v flipped to 1.
	for i, p := range m.Positions {
		if p == (vecmath.Vec3{0, 0, 0}) && m.UVs[i] != [2]float64{0, 1} {
			t.Fatalf("UV of the origin %v, want (0, 1)", m.UVs[i])
		}
	}
	_, rep, err := Load(path, Options{AllowOrphans: true})
	if err != nil || rep.Format != "obj" || !strings.Contains(strings.Join(rep.Warnings, "\n"), "Ke") {
		t.Fatalf("report %+v, %v: want the dropped Ke named", rep, err)
	}
}

// TestOBJRoundTrip saves a loaded OBJ as GLB, which the Khronos validator accepts,
// and loads it again: positions, triangles and the material survive.
func TestOBJRoundTrip(t *testing.T) {
	path, _ := writeOBJFixture(t)
	c, _, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cube.glb")
	if _, err := Save(out, c); err != nil {
		t.Fatal(err)
	}
	khronos.Check(t, out)
	back, _, err := Load(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Mesh.Triangles) != 12 || len(back.Materials) != 2 || back.Materials[0].BaseColorTexture == nil {
		t.Fatalf("round trip: %d triangles, %d materials", len(back.Mesh.Triangles), len(back.Materials))
	}
	lo, hi := back.Mesh.Bounds()
	if lo.Dist(vecmath.Vec3{}) > 1e-6 || hi.Dist(vecmath.Vec3{1, 1, 1}) > 1e-6 {
		t.Fatalf("bounds %v %v", lo, hi)
	}
}

func TestDecodeOBJ(t *testing.T) {
	tex := testPNG(t)
	dir := fstest.MapFS{
		"m.mtl":         {Data: []byte("newmtl a\nKd 1 0 0\nmap_Kd t.png\n")},
		"t.png":         {Data: tex},
		"bad.mtl":       {Data: []byte("newmtl a\nKd red\n")},
		"gif.mtl":       {Data: []byte("newmtl a\nmap_Kd t.gif\n")},
		"t.gif":         {Data: []byte("GIF89a")},
		"space dir.mtl": {Data: []byte("newmtl a\nKd 0 1 0\n")},
	}
	tri := "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	cases := []struct {
		name      string
		obj       string
		tris      int
		normals   bool
		warn      string // a warning that must appear
		err       string // an error that must appear ("" for success)
		baseColor [4]float64
	}{
		{name: "triangle", obj: tri + "f 1 2 3\n", tris: 1},
		{name: "negative indices", obj: tri + "f -3 -2 -1\n", tris: 1},
		{name: "normals kept", obj: tri + "vn 0 0 1\nf 1//1 2//1 3//1\n", tris: 1, normals: true},
		{name: "normals partly missing", obj: tri + "v 1 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 2 4 3\n", tris: 2, warn: "normals missing"},
		{name: "pentagon", obj: "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 1 0\nv 0 2 0\nf 1 2 3 4 5\n", tris: 3},
		{name: "continuation and comments", obj: tri + "f 1 \\\n 2 3 # a face\n", tris: 1},
		{name: "mtl and texture", obj: "mtllib m.mtl\n" + tri + "usemtl a\nf 1 2 3\n", tris: 1, baseColor: [4]float64{1, 0, 0, 1}},
		{name: "mtl name with a space", obj: "mtllib space dir.mtl\n" + tri + "usemtl a\nf 1 2 3\n", tris: 1, baseColor: [4]float64{0, 1, 0, 1}},
		{name: "undefined material", obj: tri + "usemtl nowhere\nf 1 2 3\n", tris: 1, warn: "not defined", baseColor: [4]float64{1, 1, 1, 1}},
		{name: "mtl escape refused", obj: "mtllib ../m.mtl\n" + tri + "f 1 2 3\n", tris: 1, warn: "outside the OBJ's folder"},
		{name: "absolute mtl refused", obj: "mtllib /etc/m.mtl\n" + tri + "f 1 2 3\n", tris: 1, warn: "absolute path"},
		{name: "windows absolute refused", obj: "mtllib C:\\m.mtl\n" + tri + "f 1 2 3\n", tris: 1, warn: "absolute path"},
		{name: "missing mtl", obj: "mtllib gone.mtl\n" + tri + "f 1 2 3\n", tris: 1, warn: "gone.mtl not read"},
		{name: "bad mtl number", obj: "mtllib bad.mtl\n" + tri + "usemtl a\nf 1 2 3\n", tris: 1, warn: "not a finite number"},
		{name: "gif texture dropped", obj: "mtllib gif.mtl\n" + tri + "usemtl a\nf 1 2 3\n", tris: 1, warn: "not PNG or JPEG", baseColor: [4]float64{1, 1, 1, 1}},
		{name: "lines skipped", obj: tri + "l 1 2\nf 1 2 3\n", tris: 1, warn: "line and point"},
		{name: "index out of range", obj: tri + "f 1 2 4\n", err: "line 4: face: vertex index 4 out of range"},
		{name: "zero index", obj: tri + "f 0 1 2\n", err: "vertex index 0 out of range"},
		{name: "two corners", obj: tri + "f 1 2\n", err: "face with 2 vertices"},
		{name: "nan", obj: "v nan 0 0\n", err: "not a finite number"},
		{name: "no faces", obj: tri, err: "no faces"},
		{name: "empty", obj: "", err: "no faces"},
		{name: "bad corner", obj: tri + "f 1/2/3/4 2 3\n", err: "bad vertex"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep, err := Decode(bytes.NewReader([]byte(tc.obj)), "x.obj", dir, Options{AllowOrphans: true})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "x.obj") {
					t.Fatalf("error %v, want one naming x.obj and containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Mesh.Triangles) != tc.tris || (len(c.Mesh.Normals) > 0) != tc.normals {
				t.Fatalf("%d triangles, %d normals", len(c.Mesh.Triangles), len(c.Mesh.Normals))
			}
			if ws := strings.Join(rep.Warnings, "\n"); !strings.Contains(ws, tc.warn) {
				t.Fatalf("warnings %q, want %q", ws, tc.warn)
			}
			if tc.baseColor != ([4]float64{}) {
				if len(c.Materials) != 1 || c.Materials[0].BaseColor != tc.baseColor {
					t.Fatalf("materials %+v, want base colour %v", c.Materials, tc.baseColor)
				}
			}
		})
	}
}

func TestUnsupportedFormats(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"hero.fbx", "bpy.ops.import_scene.fbx(filepath='hero.fbx')"},
		{"hero.FBX", "assimp export hero.FBX hero.glb"},
		{"a/hero.dae", "bpy.ops.wm.collada_import(filepath='a/hero.dae')"},
		{"hero.blend", "blender -b hero.blend"},
	} {
		_, _, err := Load(tc.path, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "export_format='GLB'") {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := format.UnsupportedFormat("x.glb"); err != nil {
		t.Fatal(err)
	}
}

func FuzzDecodeOBJ(f *testing.F) {
	f.Add([]byte(cubeOBJ))
	f.Add([]byte("mtllib cube.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nusemtl skin\nf 1/1/1 2/1/1 3/1/1\n"))
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf -4 -3 -2 -1\n"))
	dir := fstest.MapFS{"cube.mtl": {Data: []byte(cubeMTL)}, "tex/skin.png": {Data: testPNG(f)}}
	// A small budget keeps the allocation bound (BudgetAllocBytes of it) tight.
	budget := format.Budget{FileBytes: 1 << 20, JSONBytes: 1 << 20, JSONObjects: 20_000, Nodes: 5_000,
		Instances: 1_000, Primitives: 1_000, Vertices: 20_000, Triangles: 40_000, AnimationKeys: 10_000}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c *character.Character
		var rep *format.LoadReport
		var err error
		fuzzbound.Check(t, fuzzbound.Bound{Alloc: uint64(format.BudgetAllocBytes(budget)), Time: 10 * time.Second}, func() {
			c, rep, err = Decode(bytes.NewReader(data), "fuzz.obj", dir, Options{AllowOrphans: true, Budget: budget})
		})
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.obj") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if rep == nil || c.Validate() != nil {
			t.Fatalf("accepted an invalid character: %v", c.Validate())
		}
	})
}

// TestLoadOBJSymlinkEscape checks that a symbolic link out of the OBJ's folder is
// not followed: the MTL it points to is refused like a ".." path.
func TestLoadOBJSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.mtl"), []byte("newmtl a\nKd 1 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "secret.mtl"), filepath.Join(dir, "link.mtl")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	obj := "mtllib link.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n"
	if err := os.WriteFile(filepath.Join(dir, "x.obj"), []byte(obj), 0o644); err != nil {
		t.Fatal(err)
	}
	c, rep, err := Load(filepath.Join(dir, "x.obj"), Options{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Materials[0].BaseColor[1] != 1 || !strings.Contains(strings.Join(rep.Warnings, "\n"), "link.mtl not read") {
		t.Fatalf("material %+v, warnings %q: the link out of the folder was followed", c.Materials[0], rep.Warnings)
	}
}

// BenchmarkDecodeOBJ decodes the same static grid of about 25k triangles as OBJ
// text and as GLB (the baseline): their ns/op ratio is what reading text costs.
func BenchmarkDecodeOBJ(b *testing.B) {
	m := meshtest.Grid(112)
	c := &character.Character{Name: "grid", Mesh: m}
	var glb bytes.Buffer
	if _, err := Encode(&glb, c); err != nil {
		b.Fatal(err)
	}
	var obj strings.Builder
	for _, p := range m.Positions {
		fmt.Fprintf(&obj, "v %.7g %.7g %.7g\n", p[0], p[1], p[2])
	}
	for _, t := range m.Triangles {
		fmt.Fprintf(&obj, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	objData := []byte(obj.String())
	b.Run("obj", func(b *testing.B) {
		b.SetBytes(int64(len(objData)))
		for b.Loop() {
			if _, _, err := Decode(bytes.NewReader(objData), "bench.obj", nil, Options{AllowOrphans: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("glb", func(b *testing.B) {
		b.SetBytes(int64(glb.Len()))
		for b.Loop() {
			if _, _, err := Decode(bytes.NewReader(glb.Bytes()), "bench.glb", nil, Options{AllowOrphans: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
