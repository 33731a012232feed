package viewer

import (
	"image"
	"image/color"
	"image/draw"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// lineHeight is the pixel height of one line of overlay text.
const lineHeight = 15

// renderText rasterizes lines of text (7×13 bitmap font) in white with a dark
// translucent backdrop, for the on-screen overlay. Lines prefixed with "!" are red.
// The image is at least 1×1.
func renderText(lines []string) *image.RGBA {
	face := basicfont.Face7x13
	w := 1
	for _, l := range lines {
		if n := font.MeasureString(face, strings.TrimPrefix(l, "!")).Ceil() + 8; n > w {
			w = n
		}
	}
	h := len(lines)*lineHeight + 6
	if len(lines) == 0 {
		h = 1
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if len(lines) == 0 {
		return img
	}
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{0, 0, 0, 150}), image.Point{}, draw.Src)
	for i, l := range lines {
		col := color.RGBA{235, 235, 235, 255}
		if strings.HasPrefix(l, "!") {
			col = color.RGBA{255, 90, 80, 255}
			l = l[1:]
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(col), Face: face,
			Dot: fixed.P(4, 3+i*lineHeight+face.Ascent)}
		d.DrawString(l)
	}
	return img
}
