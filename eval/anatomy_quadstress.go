package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/anatomy/stress"
	"github.com/rigkit/rigkit/assets"
)

// Quadruped stress variants (`rig eval --task anatomy --quad-stress all`): each
// held-out quadruped (manifest category "quadruped") is deformed (anatomy/stress:
// legs pressed together, fused into one surface), and its kind detected as a
// user's file would be, up axis told (the stored files are Y-up). A quadruped has
// no named template joints to compare, so the report is the detection: how many
// read as quadrupeds, how sure, and which rigs Fit calls suspect.

// QuadStressReport gathers the kind detections of each quadruped stress variant.
type QuadStressReport struct {
	Variants []string
	fits     map[string][]quadFit
	skipped  map[string][]string // files a variant could not be made of, with why
}

// quadFit is one file's detection under one variant.
type quadFit struct {
	name       string
	kind       anatomy.Kind
	confidence float64
	suspect    []string
}

// quadStressVariants parses a list of quadruped stress variants: "all" is the
// untouched files ("none") and every variant of stress.QuadVariants; otherwise a
// comma-separated list of "none" and variants.
func quadStressVariants(list string) ([]string, error) {
	if list != "all" {
		return StressVariants(list)
	}
	out := []string{"none"}
	for _, v := range stress.QuadVariants {
		out = append(out, string(v))
	}
	return out, nil
}

// QuadStressFits detects the kind of every quadruped among files under every
// variant of list (quadStressVariants).
func QuadStressFits(files []File, list string, progress io.Writer) (*QuadStressReport, error) {
	variants, err := quadStressVariants(list)
	if err != nil {
		return nil, err
	}
	rep := &QuadStressReport{Variants: variants, fits: map[string][]quadFit{}, skipped: map[string][]string{}}
	files = slices.DeleteFunc(slices.Clone(files), func(f File) bool { return f.Category != "quadruped" })
	for i, f := range files {
		fmt.Fprintf(progress, "\reval anatomy --quad-stress: %d/%d files", i+1, len(files))
		if err := rep.addFile(f); err != nil {
			return nil, err
		}
	}
	fmt.Fprintln(progress)
	return rep, nil
}

// addFile detects the kind of one file under every variant.
func (r *QuadStressReport) addFile(f File) error {
	c, _, err := assets.Load(f.Path, assets.Options{})
	if err != nil {
		return err
	}
	name := f.Rel
	if name == "" {
		name = f.Path
	}
	for _, v := range r.Variants {
		sc := c
		if v != "none" {
			if sc, err = stress.Apply(c, stress.Variant(v)); err != nil {
				r.skipped[v] = append(r.skipped[v], fmt.Sprintf("%s (%v)", name, err))
				continue
			}
		}
		_, rep, err := fitAnatomy(sc, anatomy.Options{Up: "y"})
		if err != nil {
			return fmt.Errorf("%s (%s): %w", f.Path, v, err)
		}
		r.fits[v] = append(r.fits[v], quadFit{name: name, kind: rep.Kind, confidence: rep.Confidence, suspect: rep.Suspect})
	}
	return nil
}

// Markdown writes a row per variant (files, detected quadruped, detections at
// confidence 0.8 or more and how many of them are quadrupeds, suspect rigs among
// the wrong and the right detections) and the files read as another kind.
func (r *QuadStressReport) Markdown() string {
	var b strings.Builder
	b.WriteString("| variant | files | quadruped detected | detected at confidence ≥ 0.8 (quadruped) | suspect: wrong kind / quadruped |\n")
	b.WriteString("|---|---:|---:|---:|---:|\n")
	var wrongs []string
	for _, v := range r.Variants {
		var det, sure, sureRight, suspWrong, suspRight int
		for _, f := range r.fits[v] {
			right := f.kind == anatomy.Quadruped
			det += b2i(right)
			if f.confidence >= 0.8 {
				sure++
				sureRight += b2i(right)
			}
			susp := len(f.suspect) > 0
			suspWrong += b2i(susp && !right)
			suspRight += b2i(susp && right)
			if !right || susp {
				wrongs = append(wrongs, fmt.Sprintf("| %s | %s | %s %.2f | %s |", v, f.name, f.kind, f.confidence, strings.Join(f.suspect, "; ")))
			}
		}
		n := len(r.fits[v])
		fmt.Fprintf(&b, "| %s | %d | %d | %d (%d) | %d of %d / %d of %d |\n", v, n, det, sure, sureRight, suspWrong, n-det, suspRight, det)
	}
	for _, v := range r.Variants {
		if s := r.skipped[v]; len(s) > 0 {
			fmt.Fprintf(&b, "\n%s: not made of %d files: %s.\n", v, len(s), strings.Join(s, "; "))
		}
	}
	if len(wrongs) > 0 {
		b.WriteString("\nRead as another kind, or suspect:\n\n| variant | file | detected | suspect |\n|---|---|---|---|\n")
		b.WriteString(strings.Join(wrongs, "\n") + "\n")
	}
	return b.String()
}
