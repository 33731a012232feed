package render

import (
	"image"
	"image/color"
	"image/draw"

	"github.com/rigkit/rigkit/character"
)

// sheetBackground and the skeleton's colours in Tile and Sheet.
var (
	sheetBackground = color.RGBA{255, 255, 255, 255}
	sheetBone       = color.RGBA{20, 20, 20, 255}
	sheetJoint      = color.RGBA{220, 30, 30, 255}
)

// Tile renders a rigged character from DefaultView on a size×size white canvas: each
// vertex coloured by its dominant joints when joint < 0, else a heatmap of joint's
// weight, with the skeleton drawn on top.
func Tile(c *character.Character, joint, size int) *Canvas {
	lo, hi := c.Mesh.Bounds()
	cv := NewCanvas(size, size, Frame(lo, hi, DefaultView, false), sheetBackground)
	cols := DominantColors(c.Skin, c.Skeleton.NumJoints())
	if joint >= 0 {
		cols = WeightColors(c.Skin, joint)
	}
	cv.DrawMesh(c.Mesh, cols)
	cv.DrawSkeleton(c.Skeleton, sheetBone, sheetJoint)
	return cv
}

// Sheet is a rigged character's contact sheet, 2·size×size: its joints' colours on
// the left and the heatmap of joint's weight on the right (Tile), so one picture
// shows both where the parts are and how one joint blends into its neighbours.
func Sheet(c *character.Character, joint, size int) *image.RGBA {
	sheet := image.NewRGBA(image.Rect(0, 0, 2*size, size))
	draw.Draw(sheet, image.Rect(0, 0, size, size), Tile(c, -1, size).Image(), image.Point{}, draw.Src)
	draw.Draw(sheet, image.Rect(size, 0, 2*size, size), Tile(c, joint, size).Image(), image.Point{}, draw.Src)
	return sheet
}
