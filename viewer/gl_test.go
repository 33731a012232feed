package viewer

import (
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

var (
	sharedOnce sync.Once
	sharedOff  *offscreen
	sharedErr  error
)

const shotW, shotH = 320, 240

// offscreen returns one shared 320×240 offscreen target, or skips the test when no
// OpenGL context can be made here (fails instead when RIGKIT_REQUIRE_GL=1).
func openOffscreen(t testing.TB) *offscreen {
	t.Helper()
	sharedOnce.Do(func() { sharedOff, sharedErr = newOffscreen(shotW, shotH) })
	if sharedErr != nil {
		if os.Getenv("RIGKIT_REQUIRE_GL") == "1" || !errors.Is(sharedErr, ErrNoDisplay) {
			t.Fatalf("no OpenGL context: %v", sharedErr)
		}
		t.Skipf("skipping OpenGL test: %v", sharedErr)
	}
	return sharedOff
}

func render(t *testing.T, c *character.Character, o ShotOptions) *image.RGBA {
	t.Helper()
	off := openOffscreen(t)
	v, err := buildView(c, o, shotW, shotH)
	if err != nil {
		t.Fatal(err)
	}
	img, err := off.render(v)
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("RIGKIT_VIEWER_DUMP"); dir != "" {
		f, err := os.Create(filepath.Join(dir, t.Name()+".png"))
		if err == nil {
			_ = png.Encode(f, img)
			f.Close()
		}
	}
	return img
}

func TestScreenshotNotBlank(t *testing.T) {
	c := sampleCharacter(8, 2000)
	img := render(t, c, ShotOptions{Overlay: []string{Stats(c)}})
	bg := defaultBackground
	n := 0
	for y := 0; y < shotH; y++ {
		for x := 0; x < shotW; x++ {
			p := img.RGBAAt(x, y)
			if absDiff(p.R, uint8(bg[0]*255+0.5)) > 8 || absDiff(p.G, uint8(bg[1]*255+0.5)) > 8 || absDiff(p.B, uint8(bg[2]*255+0.5)) > 8 {
				n++
			}
		}
	}
	if frac := float64(n) / float64(shotW*shotH); frac < 0.05 {
		t.Fatalf("only %.1f%% of pixels differ from the background", 100*frac)
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// testCharacter is a real biped when the shared data is present, else the sample.
func testCharacter(t *testing.T) *character.Character {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "data", "0ad", "new__m_naked.glb")
	if _, err := os.Stat(p); err == nil {
		c, _, err := assets.Load(p, assets.Options{})
		if err != nil {
			t.Fatalf("load %s: %v", p, err)
		}
		return c
	}
	return sampleCharacter(10, 3000)
}

// pixelDiff counts pixels whose color differs by more than tol in any channel.
func pixelDiff(a, b *image.RGBA, tol int) int {
	n := 0
	for i := 0; i+3 < len(a.Pix); i += 4 {
		if absDiff(a.Pix[i], b.Pix[i]) > tol || absDiff(a.Pix[i+1], b.Pix[i+1]) > tol || absDiff(a.Pix[i+2], b.Pix[i+2]) > tol {
			n++
		}
	}
	return n
}

func TestScreenshotsDifferByBoneAndPose(t *testing.T) {
	c := testCharacter(t)
	sk := c.Skeleton
	cam := defaultCamera()
	lo, hi := c.Mesh.Bounds()
	cam.frame(lo, hi, float64(shotW)/shotH)
	// Two bones far apart in the hierarchy, both weighted.
	a, b := 1, sk.NumJoints()-1
	base := ShotOptions{Mode: ModeHeatmap, Frame: ShotFrame{Camera: &cam}}
	boneA, boneB := base, base
	boneA.Bone, boneB.Bone = sk.Names[a], sk.Names[b]
	imgA := render(t, c, boneA)
	imgA2 := render(t, c, boneA)
	imgB := render(t, c, boneB)
	if d := pixelDiff(imgA, imgA2, 0); d != 0 {
		t.Errorf("the same view rendered twice differs in %d pixels", d)
	}
	if d := pixelDiff(imgA, imgB, 8); d < 50 {
		t.Errorf("heatmaps of %q and %q differ in only %d pixels", sk.Names[a], sk.Names[b], d)
	}
	rest := render(t, c, ShotOptions{Frame: ShotFrame{Camera: &cam}})
	p1 := render(t, c, ShotOptions{Frame: ShotFrame{Camera: &cam}, Pose: ShotPose{Random: true, Seed: 1}})
	p2 := render(t, c, ShotOptions{Frame: ShotFrame{Camera: &cam}, Pose: ShotPose{Random: true, Seed: 2}})
	if d := pixelDiff(rest, p1, 8); d < 200 {
		t.Errorf("rest and random pose differ in only %d pixels", d)
	}
	if d := pixelDiff(p1, p2, 8); d < 200 {
		t.Errorf("random poses 1 and 2 differ in only %d pixels", d)
	}
}

// mask returns the pixels that are not the (magenta) test background.
func mask(img *image.RGBA) []bool {
	m := make([]bool, img.Rect.Dx()*img.Rect.Dy())
	for i := range m {
		r, g, b := int(img.Pix[4*i]), int(img.Pix[4*i+1]), int(img.Pix[4*i+2])
		m[i] = (255-r)+g+(255-b) > 150
	}
	return m
}

func TestGPUSkinningMatchesCPU(t *testing.T) {
	magenta := [3]float32{1, 0, 1}
	for _, tc := range []struct {
		name string
		c    *character.Character
	}{
		{"sample", sampleCharacter(10, 3000)},
		{"data", testCharacter(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			for seed := int64(1); seed <= 3; seed++ {
				r := newRig(c)
				r.Pose = seededPose(c.Skeleton, seed)
				// Frame the posed rig (mesh and joints).
				cam := defaultCamera()
				lo, hi := r.bounds()
				cam.frame(lo, hi, float64(shotW)/shotH)
				o := ShotOptions{HideSkeleton: true, Pose: ShotPose{Fixed: r.Pose},
					Frame: ShotFrame{Camera: &cam, Background: magenta}}
				gpu := mask(render(t, c, o))
				o.CPUSkin = true
				viaCPU := mask(render(t, c, o))
				raster := silhouette(cam.viewProj(float64(shotW)/shotH), r.deformedPositions(), c.Mesh.Triangles, shotW, shotH)
				rest := silhouette(cam.viewProj(float64(shotW)/shotH), c.Mesh.Positions, c.Mesh.Triangles, shotW, shotH)
				iouRaster, iouCPU, iouRest := iou(gpu, raster), iou(gpu, viaCPU), iou(gpu, rest)
				t.Logf("seed %d: IoU GPU vs Go rasterizer %.4f, vs CPU-skinned render %.4f, vs bind pose %.4f", seed, iouRaster, iouCPU, iouRest)
				if iouRaster < 0.95 {
					t.Errorf("seed %d: GPU-skinned silhouette vs CPU-skinned rasterization IoU %.4f < 0.95", seed, iouRaster)
				}
				if iouCPU < 0.95 {
					t.Errorf("seed %d: GPU vs CPU-skinned render IoU %.4f < 0.95", seed, iouCPU)
				}
				// The check can fail: the unposed mesh must not pass it.
				if iouRest >= 0.95 {
					t.Errorf("seed %d: the pose hardly changes the silhouette (IoU with bind pose %.4f)", seed, iouRest)
				}
			}
		})
	}
}

func TestCompareAndModes(t *testing.T) {
	c := sampleCharacter(8, 2000)
	other := c.Clone()
	// A rigid skin: every vertex follows its heaviest joint only.
	for v := range other.Skin.Weights {
		other.Skin.Weights[v] = []character.Influence{{Joint: other.Skin.Weights[v][0].Joint, Weight: 1}}
	}
	side := render(t, c, ShotOptions{Compare: other, Bone: "spine3", Mode: ModeHeatmap, Labels: [2]string{"smooth", "rigid"}})
	half := shotW / 2
	// The two halves show different heatmaps of the same pose.
	left := image.NewRGBA(image.Rect(0, 0, half, shotH))
	right := image.NewRGBA(image.Rect(0, 0, half, shotH))
	for y := 0; y < shotH; y++ {
		copy(left.Pix[y*left.Stride:], side.Pix[y*side.Stride:y*side.Stride+4*half])
		copy(right.Pix[y*right.Stride:], side.Pix[y*side.Stride+4*half:y*side.Stride+8*half])
	}
	if d := pixelDiff(left, right, 8); d < 50 {
		t.Errorf("side-by-side halves of a smooth and a rigid skin differ in only %d pixels", d)
	}
	var imgs []*image.RGBA
	for m := ModeShaded; m <= ModeInfluences; m++ {
		imgs = append(imgs, render(t, c, ShotOptions{Mode: m, Bone: "spine2"}))
	}
	for i := range imgs {
		for j := i + 1; j < len(imgs); j++ {
			if d := pixelDiff(imgs[i], imgs[j], 8); d < 50 {
				t.Errorf("modes %v and %v differ in only %d pixels", Mode(i), Mode(j), d)
			}
		}
	}
}

func TestBadInputs(t *testing.T) {
	c := sampleCharacter(4, 200)
	if _, err := buildView(c, ShotOptions{Bone: "nope"}, 10, 10); err == nil {
		t.Error("unknown bone accepted")
	}
	// A static mesh (no skeleton) still renders.
	st := &character.Character{Name: "static", Mesh: c.Mesh.Clone()}
	img := render(t, st, ShotOptions{})
	if img == nil {
		t.Fatal("no image for a static mesh")
	}
	// The contact sheet reports files that fail to load instead of stopping.
	openOffscreen(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.glb")
	if err := os.WriteFile(bad, []byte("not a glb"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(p string) (*character.Character, error) {
		if p == "sample" {
			return sampleCharacter(6, 500), nil
		}
		return assets.Options{}.Loader()(p)
	}
	sheet, failed, err := ContactSheet([]string{"sample", bad}, SheetOptions{Cell: 64, Load: load})
	if err != nil || failed != 1 || sheet.Rect.Dx() != 128 {
		t.Errorf("contact sheet: failed=%d err=%v", failed, err)
	}
}

func TestInteractiveLoadErrorShown(t *testing.T) {
	// The window's state machine needs no GL: a bad file becomes a red overlay line.
	a := newApp(RunOptions{Path: filepath.Join(t.TempDir(), "missing.glb")})
	found := false
	for _, l := range a.overlay() {
		found = found || (len(l) > 0 && l[0] == '!')
	}
	if !found || len(a.view.Rigs) != 0 {
		t.Errorf("missing file: overlay %q", a.overlay())
	}
}
