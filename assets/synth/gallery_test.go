package synth

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/render"
)

var white = color.RGBA{255, 255, 255, 255}

// tile renders c from the default view: a heatmap of joint's weight (or every
// joint's dominant color when joint < 0) with the skeleton on top.
func tile(c *assets.Character, joint, size int) *render.Canvas {
	lo, hi := c.Mesh.Bounds()
	cv := render.NewCanvas(size, size, render.Frame(lo, hi, render.DefaultView, false), white)
	cols := render.DominantColors(c.Skin, c.Skeleton.NumJoints())
	if joint >= 0 {
		cols = render.WeightColors(c.Skin, joint)
	}
	cv.DrawMesh(c.Mesh, cols)
	cv.DrawSkeleton(c.Skeleton, color.RGBA{20, 20, 20, 255}, color.RGBA{220, 30, 30, 255})
	return cv
}

// showcaseJoint picks a joint whose weights are worth a heatmap: a limb joint near
// the middle of a chain, preferring upper arms, upper legs and spines.
func showcaseJoint(s *assets.Skeleton) int {
	for _, want := range []string{"arm_l_upper", "leg_fl_lower", "leg_l_lower", "wing_l_02", "spine_06", "leg_l_1_2", "tentacle_1_03", "arm_upper", "elbow"} {
		for j, n := range s.Names {
			if n == want {
				return j
			}
		}
	}
	return s.NumJoints() / 2
}

func TestRenderNonBlank(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"biped", "spider", "prop"} {
		c, err := Generate(kind, 2, Options{TargetVertices: 2000})
		if err != nil {
			t.Fatal(err)
		}
		cv := tile(c, showcaseJoint(c.Skeleton), 160)
		if cov := render.Coverage(cv.Image(), white); cov < 0.03 {
			t.Errorf("%s: render covers only %.1f%% of the image", kind, 100*cov)
		}
		if err := cv.WritePNG(filepath.Join(dir, kind+".png")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteGallery writes docs/gallery: per kind, the part colors and a weight
// heatmap of one joint, with the skeleton. Run with RIGKIT_WRITE_GALLERY=1.
func TestWriteGallery(t *testing.T) {
	if os.Getenv("RIGKIT_WRITE_GALLERY") != "1" {
		t.Skip("set RIGKIT_WRITE_GALLERY=1 to rewrite docs/gallery")
	}
	out := filepath.Join("..", "..", "docs", "gallery")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 320
	var index []string
	for _, kind := range Kinds() {
		c, err := Generate(kind, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		j := showcaseJoint(c.Skeleton)
		sheet := image.NewRGBA(image.Rect(0, 0, 2*size, size))
		draw.Draw(sheet, image.Rect(0, 0, size, size), tile(c, -1, size).Image(), image.Point{}, draw.Src)
		draw.Draw(sheet, image.Rect(size, 0, 2*size, size), tile(c, j, size).Image(), image.Point{}, draw.Src)
		path := filepath.Join(out, kind+".png")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, sheet); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		index = append(index, fmt.Sprintf("%s: seed 1, %d vertices, %d joints, heatmap of %s",
			kind, len(c.Mesh.Positions), c.Skeleton.NumJoints(), c.Skeleton.Names[j]))
	}
	t.Log("\n" + strings.Join(index, "\n"))
}
