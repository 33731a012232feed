package main

import (
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/render"
	"github.com/rigkit/rigkit/synth"
)

// gallerySize is the edge of one tile of a gallery sheet, in pixels.
const gallerySize = 320

// galleryOptions are what `rig gen --gallery` writes.
type galleryOptions struct {
	Dir   string
	Kinds []string
	Seed  int64
	Synth synth.Options
	GLB   bool // also write each creature as DIR/<kind>.glb
}

// galleryRow is one creature of the gallery's index.
type galleryRow struct {
	Kind             string
	Vertices, Joints int
	Showcase         string
	Sheet, GLB       string // file names inside the gallery folder
}

// writeGallery generates one creature per kind and writes its contact sheet
// (render.Sheet: joint colours and the heatmap of synth.ShowcaseJoint) as
// DIR/<kind>.png, optionally the creature as DIR/<kind>.glb, and DIR/index.md, a
// markdown table of them all.
func writeGallery(o galleryOptions, stdout io.Writer) error {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("gen --gallery: %w", err)
	}
	var rows []galleryRow
	for _, kind := range o.Kinds {
		row, err := galleryEntry(o, kind)
		if err != nil {
			return fmt.Errorf("gen --gallery %s: %w", kind, err)
		}
		rows = append(rows, row)
	}
	index := filepath.Join(o.Dir, "index.md")
	if err := atomicfile.WriteFile(index, []byte(galleryIndex(o, rows))); err != nil {
		return fmt.Errorf("gen --gallery: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %d creatures (seed %d) and %s\n", len(rows), o.Seed, index)
	return nil
}

// galleryEntry generates and writes one kind's creature.
func galleryEntry(o galleryOptions, kind string) (galleryRow, error) {
	c, err := synth.Generate(kind, o.Seed, o.Synth)
	if err != nil {
		return galleryRow{}, err
	}
	j := synth.ShowcaseJoint(c.Skeleton)
	row := galleryRow{Kind: kind, Vertices: len(c.Mesh.Positions), Joints: c.Skeleton.NumJoints(),
		Showcase: c.Skeleton.Names[j], Sheet: kind + ".png"}
	sheet := render.Sheet(c, j, gallerySize)
	if err := atomicfile.Write(filepath.Join(o.Dir, row.Sheet), func(w io.Writer) error { return png.Encode(w, sheet) }); err != nil {
		return row, err
	}
	if o.GLB {
		row.GLB = kind + ".glb"
		if _, err := assets.Save(filepath.Join(o.Dir, row.GLB), c); err != nil {
			return row, err
		}
	}
	return row, nil
}

// galleryIndex is the gallery's index.md.
func galleryIndex(o galleryOptions, rows []galleryRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Synthetic creatures, seed %d\n\n", o.Seed)
	b.WriteString("Left: each vertex coloured by its joints (blend zones show as mixed colours). " +
		"Right: heatmap (blue 0 → red 1) of one joint's weight. Black lines: the skeleton.\n\n")
	fmt.Fprintf(&b, "Reproduce: `rig gen --gallery DIR --seed %d --vertices %d%s%s`.\n\n",
		o.Seed, o.Synth.TargetVertices, flagIf(o.Synth.Noise, " --noise"), flagIf(o.Synth.Posed, " --posed"))
	b.WriteString("| kind | sheet | vertices | joints | heatmap of | file |\n|---|---|---:|---:|---|---|\n")
	for _, r := range rows {
		file := "—"
		if r.GLB != "" {
			file = fmt.Sprintf("[%s](%s)", r.GLB, r.GLB)
		}
		fmt.Fprintf(&b, "| %s | ![%s](%s) | %d | %d | %s | %s |\n", r.Kind, r.Kind, r.Sheet, r.Vertices, r.Joints, r.Showcase, file)
	}
	return b.String()
}

// flagIf is s when on, else "".
func flagIf(on bool, s string) string {
	if on {
		return s
	}
	return ""
}
