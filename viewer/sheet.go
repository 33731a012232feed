package viewer

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"path/filepath"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// SheetOptions configures a contact sheet.
type SheetOptions struct {
	Cell    int  // thumbnail size in pixels; 0 means 256
	Columns int  // 0 means 8
	Mode    Mode // mesh coloring of every thumbnail
	// Load reads a character; nil means assets.Load.
	Load func(path string) (*character.Character, error)
}

// ContactSheet renders a grid of thumbnails, one per file, each captioned with the
// file name; a file that fails to load gets a red caption with the error instead.
// It returns how many files failed along with the image.
func ContactSheet(paths []string, o SheetOptions) (*image.RGBA, int, error) {
	if o.Cell <= 0 {
		o.Cell = 256
	}
	if o.Columns <= 0 {
		o.Columns = 8
	}
	if o.Load == nil {
		o.Load = assets.Options{}.Loader()
	}
	if len(paths) == 0 {
		return nil, 0, fmt.Errorf("contact sheet: no files")
	}
	cols := min(o.Columns, len(paths))
	rows := (len(paths) + cols - 1) / cols
	sheet := image.NewRGBA(image.Rect(0, 0, cols*o.Cell, rows*o.Cell))
	bg := defaultBackground
	draw.Draw(sheet, sheet.Bounds(), image.NewUniform(color.RGBA{uint8(bg[0] * 255), uint8(bg[1] * 255), uint8(bg[2] * 255), 255}), image.Point{}, draw.Src)
	off, err := newOffscreen(o.Cell, o.Cell)
	if err != nil {
		return nil, 0, err
	}
	defer off.close()
	failed := 0
	for i, p := range paths {
		at := image.Pt((i%cols)*o.Cell, (i/cols)*o.Cell)
		caption := []string{filepath.Base(p)}
		c, err := o.Load(p)
		if err == nil {
			err = c.Validate()
		}
		if err == nil {
			v, verr := buildView(c, ShotOptions{Mode: o.Mode}, o.Cell, o.Cell)
			if verr != nil {
				err = verr
			} else if img, rerr := off.render(v); rerr != nil {
				return nil, failed, fmt.Errorf("contact sheet: render %s: %w", p, rerr)
			} else {
				draw.Draw(sheet, image.Rectangle{at, at.Add(image.Pt(o.Cell, o.Cell))}, img, image.Point{}, draw.Src)
			}
		}
		if err != nil {
			failed++
			msg := oneLine(err)
			width := max(8, o.Cell/7-1)
			for len(msg) > 0 && len(caption) < 6 {
				n := min(width, len(msg))
				caption = append(caption, "!"+msg[:n])
				msg = msg[n:]
			}
		}
		txt := renderText(caption)
		draw.Draw(sheet, image.Rectangle{at, at.Add(txt.Rect.Size())}.Intersect(image.Rectangle{at, at.Add(image.Pt(o.Cell, o.Cell))}), txt, image.Point{}, draw.Over)
	}
	return sheet, failed, nil
}
