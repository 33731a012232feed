package anatomy

import (
	"fmt"
	"slices"
	"strings"
)

// StressReport gathers the humanoid fits of each stress variant (docs/anatomy.md):
// per variant, the kind detected without being told, the names of the humanoid
// template against the artist's joints, the checks, and which rigs Fit called
// suspect against which are wrong.
type StressReport struct {
	Variants []string
	Fits     map[string][]HumanoidFit
	Skipped  map[string][]string // files a variant could not be made of, with why
}

// Add records the fit of one file under a variant.
func (r *StressReport) Add(variant string, f HumanoidFit) {
	if r.Fits == nil {
		r.Fits = map[string][]HumanoidFit{}
	}
	if !slices.Contains(r.Variants, variant) {
		r.Variants = append(r.Variants, variant)
	}
	r.Fits[variant] = append(r.Fits[variant], f)
}

// Skip records a file a variant could not be made of.
func (r *StressReport) Skip(variant, file string, err error) {
	if r.Skipped == nil {
		r.Skipped = map[string][]string{}
	}
	r.Skipped[variant] = append(r.Skipped[variant], fmt.Sprintf("%s (%v)", file, err))
}

// correctShare is the share of a fit's body names within the tolerance that makes
// a rig correct in the suspect figures: an animator fixes a joint or two, not a
// skeleton whose limbs are mixed up.
const correctShare = 0.8

// correct reports whether a fit is a usable humanoid rig: detected humanoid, one
// root, no limb on a limb or across the plane, and at least correctShare of its
// compared body names within the tolerance.
func (f HumanoidFit) correct() bool {
	return f.Detection.Kind == Humanoid && f.Checks.Roots == 1 && len(f.Checks.LimbOnLimb) == 0 &&
		len(f.Checks.Crossing) == 0 && f.Total > 0 && float64(f.Hits) >= correctShare*float64(f.Total)
}

// Markdown writes a row per variant and the files each variant lost or got wrong.
func (r *StressReport) Markdown() string {
	var b strings.Builder
	b.WriteString("| variant | files | humanoid detected | detected at confidence ≥ 0.8 (right) | names (body) | one root | root at the pelvis | mirrored within 2% | no limb across the plane | correct | suspect: wrong / correct |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var wrongs []string
	for _, v := range r.Variants {
		var det, sure, sureRight, hits, total, oneRoot, pelvis, mirrored, symmetric, noCross, correct, suspWrong, suspRight, wrong int
		for _, f := range r.Fits[v] {
			det += b2i(f.Detection.Kind == Humanoid)
			if f.Detection.Confidence >= 0.8 {
				sure++
				sureRight += b2i(f.Detection.Kind == Humanoid)
			}
			hits, total = hits+f.Hits, total+f.Total
			oneRoot += b2i(f.Checks.Roots == 1)
			pelvis += b2i(f.Checks.RootToPelvis >= 0 && f.Checks.RootToPelvis < 0.1)
			if f.Symmetry.Symmetric {
				symmetric++
				mirrored += b2i(f.Checks.MirrorError <= 0.02)
			}
			noCross += b2i(len(f.Checks.Crossing) == 0)
			ok := f.correct()
			correct += b2i(ok)
			wrong += b2i(!ok)
			susp := len(f.Detection.Suspect) > 0
			suspWrong += b2i(susp && !ok)
			suspRight += b2i(susp && ok)
			if !ok || susp {
				wrongs = append(wrongs, fmt.Sprintf("| %s | %s | %s %.2f | %d/%d | %s | %s |", v, f.Name, f.Detection.Kind, f.Detection.Confidence, f.Hits, f.Total,
					strings.Join(f.Missed, " "), strings.Join(f.Detection.Suspect, "; ")))
			}
		}
		n := len(r.Fits[v])
		fmt.Fprintf(&b, "| %s | %d | %d | %d (%d) | %d/%d = %.3f | %d | %d | %d of %d | %d | %d | %d of %d / %d of %d |\n", v, n, det, sure, sureRight,
			hits, total, ratio(hits, total), oneRoot, pelvis, mirrored, symmetric, noCross, correct, suspWrong, wrong, suspRight, correct)
	}
	for _, v := range r.Variants {
		if s := r.Skipped[v]; len(s) > 0 {
			fmt.Fprintf(&b, "\n%s: not made of %d files: %s.\n", v, len(s), strings.Join(s, "; "))
		}
	}
	if len(wrongs) > 0 {
		b.WriteString("\nWrong or suspect rigs:\n\n| variant | file | detected | names | missed | suspect |\n|---|---|---|---:|---|---|\n")
		b.WriteString(strings.Join(wrongs, "\n") + "\n")
	}
	return b.String()
}
