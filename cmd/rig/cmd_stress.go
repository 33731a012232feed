package main

import (
	"encoding/json"
	"fmt"
	"github.com/rigkit/rigkit/dataset"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/anatomy/stress"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/eval"
	"github.com/rigkit/rigkit/render"
)

func init() {
	register(&command{
		name:    "stress",
		usage:   "--data DIR --out DIR [--split held-out|train|all] [--kind all|humanoid|quadruped] [--variant all|legs,apose,armsdown,skirt,robe,fused,...]",
		summary: "write the anatomy stress sets: the humanoids and quadrupeds of DIR with legs pressed together, arms lowered, fused into one surface (artist skeleton carried along)",
		run:     runStress,
	})
}

// stressRecord is one line of OUT/manifest.jsonl.
type stressRecord struct {
	File     string `json:"file"`
	Source   string `json:"source"`
	Variant  string `json:"variant"`
	Category string `json:"category"`
	// Family is the source file's family (dataset.File.TuningFamily), so that
	// the rewards task puts each variant in its source's tune or report half.
	Family   string `json:"family"`
	Vertices int    `json:"vertices"`
}

// runStress writes every variant of every humanoid and quadruped file of the
// split, and a manifest, into a folder: the variants are made of third-party
// meshes, so they live outside the repository and are made again from the data
// when needed.
func runStress(args []string, stdout io.Writer) error {
	fs := newFlags("stress")
	data := fs.String("data", "", "folder of rigged files with a manifest.jsonl (../shared/data)")
	out := fs.String("out", "", "output folder (created)")
	split := fs.String("split", "held-out", "held-out, train or all")
	variant := fs.String("variant", "all", "comma-separated stress variants, or all: each humanoid's (legs, apose, armsdown, skirt, robe, fused and their combinations) and each quadruped's (legs, fused, fused+legs)")
	kind := fs.String("kind", "all", "the bodies to stress: humanoid (the biped categories), quadruped, or all of both")
	png := fs.Bool("png", false, "also fit each variant (kind detected, Y up) and draw the mesh with the fitted skeleton, front view, as NAME.png")
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if *data == "" || *out == "" {
		return fmt.Errorf("%w: need --data DIR and --out DIR", errUsage)
	}
	variants, err := stressVariants(*variant)
	if err != nil {
		return err
	}
	if *kind != "all" && *kind != "humanoid" && *kind != "quadruped" {
		return fmt.Errorf("%w: --kind %q: want all, humanoid or quadruped", errUsage, *kind)
	}
	files, err := selectEvalFiles([]string{*data}, *split, 0, false)
	if err != nil {
		return err
	}
	files = slices.DeleteFunc(files, func(f eval.File) bool {
		k := stressKind(f.Category)
		return k == "" || (*kind != "all" && k != *kind)
	})
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("stress: %w", err)
	}
	families, err := tuningFamilies(*data)
	if err != nil {
		return err
	}
	var manifest strings.Builder
	for _, f := range files {
		recs, err := writeStressed(f, variantsFor(f.Category, *variant, variants), *out, *png)
		if err != nil {
			return err
		}
		for _, r := range recs {
			r.Family = families[filepath.Clean(f.Path)]
			line, _ := json.Marshal(r)
			manifest.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(filepath.Join(*out, "manifest.jsonl"), []byte(manifest.String()), 0o644); err != nil {
		return fmt.Errorf("stress: %w", err)
	}
	fmt.Fprintf(stdout, "stress: %d files, variants %s, written to %s\n", len(files), strings.Join(variants, ","), *out)
	return nil
}

// stressKind is the kind of body a manifest category's files are stressed as:
// "humanoid" for the bipeds, "quadruped", or "" for the rest.
func stressKind(category string) string {
	switch {
	case strings.HasPrefix(category, "biped"):
		return "humanoid"
	case category == "quadruped":
		return "quadruped"
	}
	return ""
}

// variantsFor returns the variants written of a file of the category: with
// --variant all a quadruped's are stress.QuadVariants (it has no arms to lower),
// else the variants asked for.
func variantsFor(category, flag string, variants []string) []string {
	if flag != "all" || stressKind(category) != "quadruped" {
		return variants
	}
	out := make([]string, len(stress.QuadVariants))
	for i, v := range stress.QuadVariants {
		out[i] = string(v)
	}
	return out
}

// tuningFamilies maps every rig under data to its family (dataset.File.TuningFamily).
func tuningFamilies(data string) (map[string]string, error) {
	all, err := dataset.Discover([]string{data})
	if err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	out := make(map[string]string, len(all))
	for _, f := range all {
		out[filepath.Clean(f.Path)] = f.TuningFamily()
	}
	return out, nil
}

// writeStressed writes the variants of one file that can be made of it.
func writeStressed(f eval.File, variants []string, out string, png bool) ([]stressRecord, error) {
	c, _, err := assets.Load(f.Path, assets.Options{})
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(strings.ReplaceAll(f.Rel, "/", "__"), filepath.Ext(f.Rel))
	var recs []stressRecord
	for _, v := range variants {
		if v == "none" {
			continue
		}
		sc, err := stress.Apply(c, stress.Variant(v))
		if err != nil {
			fmt.Fprintf(os.Stderr, "rig stress: skipped: %v\n", err)
			continue
		}
		name := base + "__" + strings.ReplaceAll(v, "+", "_") + ".glb"
		if _, err := assets.Save(filepath.Join(out, name), sc); err != nil {
			return nil, fmt.Errorf("stress: %s: %w", name, err)
		}
		if png {
			if err := drawFitted(sc, filepath.Join(out, strings.TrimSuffix(name, ".glb")+".png")); err != nil {
				return nil, fmt.Errorf("stress: %s: %w", name, err)
			}
		}
		recs = append(recs, stressRecord{File: name, Source: f.Rel, Variant: v, Category: f.Category, Vertices: len(sc.Mesh.Positions)})
	}
	return recs, nil
}

// drawFitted fits the anatomical skeleton of c and draws the mesh, grey, with the
// fitted skeleton on top, seen from the front, into a PNG.
func drawFitted(c *character.Character, path string) error {
	sk, rep, err := eval.FitAnatomy(c, anatomy.Options{Up: "y"})
	if err != nil {
		return err
	}
	// Look along the character's forward axis: across the symmetry plane's
	// normal, level.
	view := vecmath.Vec3{0, 0, -1}
	if rep.Symmetry.Axis == "z" {
		view = vecmath.Vec3{-1, 0, 0}
	}
	lo, hi := c.Mesh.Bounds()
	bg := color.RGBA{255, 255, 255, 255}
	cv := render.NewCanvas(480, 640, render.Frame(lo, hi, view, false), bg)
	grey := make([]vecmath.Vec3, len(c.Mesh.Positions))
	for i := range grey {
		grey[i] = vecmath.Vec3{0.75, 0.75, 0.78}
	}
	cv.DrawMesh(c.Mesh, grey)
	cv.DrawSkeleton(sk, color.RGBA{20, 90, 220, 255}, color.RGBA{220, 30, 30, 255})
	fmt.Fprintf(os.Stderr, "rig stress: %s: %s %.2f %s %v\n", filepath.Base(path), rep.Kind, rep.Confidence, rep.Status, rep.Suspect)
	return cv.WritePNG(path)
}
