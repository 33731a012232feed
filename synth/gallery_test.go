package synth

import (
	"image/color"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/render"
)

var white = color.RGBA{255, 255, 255, 255}

func TestRenderNonBlank(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"biped", "spider", "prop"} {
		c, err := Generate(kind, 2, Options{TargetVertices: 2000})
		if err != nil {
			t.Fatal(err)
		}
		cv := render.Tile(c, ShowcaseJoint(c.Skeleton), 160)
		if cov := render.Coverage(cv.Image(), white); cov < 0.03 {
			t.Errorf("%s: render covers only %.1f%% of the image", kind, 100*cov)
		}
		if err := cv.WritePNG(filepath.Join(dir, kind+".png")); err != nil {
			t.Fatal(err)
		}
	}
}
