package anatomy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/character"
)

// HumanoidFit is one humanoid fitted with the Humanoid template, measured by Check
// and against the artist's skeleton by NameAccuracy (docs/anatomy.md).
type HumanoidFit struct {
	Name, Source string // Source groups the name accuracy (a data folder, "synthetic")
	Kind         Kind
	Symmetry     Symmetry
	Checks       Checks
	Hits, Total  int // names of the body (not fingers)
	Missed       []string
	fingerCounts
	upAxes
	Detection Detection
}

// fingerCounts measures a fit's fingers: FingerHits of FingerTotal finger joints
// placed lie within the tolerance of the artist's same-named joint; FingersPlaced
// counts the finger joints placed and ArtistFingers the artist's joints with a
// finger name.
type fingerCounts struct {
	FingerHits, FingerTotal      int
	FingersPlaced, ArtistFingers int
}

// upAxes are the up axes detected on the mesh as stored (Y-up) and turned Z-up, as
// Blender writes it; "" when not measured.
type upAxes struct {
	UpAsStored, UpTurned string
}

// Detection is what an undirected fit of a file says: the kind, how sure it is,
// and the reasons to doubt the rig (Report.Suspect).
type Detection struct {
	Kind       Kind
	Confidence float64
	Suspect    []string
}

// MeasureHumanoid checks a fitted skeleton and names it against the artist's,
// with the 10%-of-height tolerance of the report.
func MeasureHumanoid(name, source string, fitted *character.Skeleton, rep *Report, artist *character.Skeleton, height float64) HumanoidFit {
	notFinger := func(n string) bool { return !isFinger(n) }
	h, n, missed := nameAccuracyOf(fitted, artist, 0.1*height, notFinger)
	f := HumanoidFit{Name: name, Source: source, Kind: rep.Kind, Symmetry: rep.Symmetry,
		Checks: Check(fitted, rep.Symmetry, height), Hits: h, Total: n, Missed: missed}
	fh, fn, fmissed := nameAccuracyOf(fitted, artist, 0.1*height, isFinger)
	f.FingerHits, f.FingerTotal, f.Missed = fh, fn, append(f.Missed, fmissed...)
	f.FingersPlaced = countNames(fitted.Names, isFinger)
	for m := range artistPositions(artist) {
		f.ArtistFingers += b2i(isFinger(m))
	}
	return f
}

func countNames(names []string, keep func(string) bool) int {
	n := 0
	for _, s := range names {
		n += b2i(keep(s))
	}
	return n
}

// HumanoidReport gathers humanoid fits into the figures of docs/anatomy.md.
type HumanoidReport struct {
	Fits []HumanoidFit
}

// Add records one fit.
func (r *HumanoidReport) Add(f HumanoidFit) { r.Fits = append(r.Fits, f) }

// Faults names the fits with more than one root or a limb hanging from another
// limb: an animator cannot use either skeleton.
func (r *HumanoidReport) Faults() []string {
	var out []string
	for _, f := range r.Fits {
		if f.Checks.Roots != 1 || len(f.Checks.LimbOnLimb) > 0 {
			out = append(out, fmt.Sprintf("%s: %d roots, limbs on limbs %v", f.Name, f.Checks.Roots, f.Checks.LimbOnLimb))
		}
	}
	return out
}

// Markdown writes the summary (template fitted, roots, root at the pelvis, limb
// on limb, mirror, up axis), the name accuracy by source and a line per fit.
func (r *HumanoidReport) Markdown() string {
	var humanoid, oneRoot, pelvis, clean, symmetric, mirrored, hits, total, yUp, zUp, upTried int
	src, fsrc := map[string][2]int{}, map[string][2]int{}
	for _, f := range r.Fits {
		humanoid += b2i(f.Kind == Humanoid)
		oneRoot += b2i(f.Checks.Roots == 1)
		pelvis += b2i(f.Checks.RootToPelvis >= 0 && f.Checks.RootToPelvis < 0.1)
		clean += b2i(len(f.Checks.LimbOnLimb) == 0)
		if f.Symmetry.Symmetric {
			symmetric++
			mirrored += b2i(f.Checks.MirrorError <= 0.02)
		}
		if f.UpAsStored != "" {
			upTried++
			yUp += b2i(f.UpAsStored == "y")
			zUp += b2i(f.UpTurned == "z")
		}
		hits, total = hits+f.Hits, total+f.Total
		s := src[f.Source]
		src[f.Source] = [2]int{s[0] + f.Hits, s[1] + f.Total}
		s = fsrc[f.Source]
		fsrc[f.Source] = [2]int{s[0] + f.FingerHits, s[1] + f.FingerTotal}
	}
	var b strings.Builder
	b.WriteString("| files | humanoid template fitted | one root | root at the pelvis | no limb on a limb | symmetric meshes | mirrored within 2% |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d |\n", len(r.Fits), humanoid, oneRoot, pelvis, clean, symmetric, mirrored)
	if upTried > 0 {
		fmt.Fprintf(&b, "\nUp axis detected on %d files: as stored (Y) %d, turned Z-up %d.\n", upTried, yUp, zUp)
	}
	fh, ft := r.fingerHits()
	fmt.Fprintf(&b, "\nName accuracy: body %d/%d = %.3f; fingers %d/%d = %.3f; all %d/%d = %.3f.\n\n", hits, total, ratio(hits, total),
		fh, ft, ratio(fh, ft), hits+fh, total+ft, ratio(hits+fh, total+ft))
	b.WriteString(r.fingerSummary())
	b.WriteString("\n| source | names (body) | fingers |\n|---|---:|---:|\n")
	for _, s := range sortedKeys(src) {
		fmt.Fprintf(&b, "| %s | %d/%d = %.3f | %d/%d |\n", s, src[s][0], src[s][1], ratio(src[s][0], src[s][1]), fsrc[s][0], fsrc[s][1])
	}
	b.WriteString("\nPer file:\n\n| file | kind | roots | root-pelvis | limb on limb | mirror (mesh) | names | finger joints (placed / artist's) | fingers | missed |\n|---|---|---:|---:|---|---:|---:|---:|---:|---|\n")
	for _, f := range r.Fits {
		fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %s | %.4f (%.4f) | %d/%d | %d / %d | %d/%d | %s |\n", f.Name, f.Kind, f.Checks.Roots,
			f.Checks.RootToPelvis, strings.Join(f.Checks.LimbOnLimb, " "), f.Checks.MirrorError, f.Symmetry.Error, f.Hits, f.Total,
			f.FingersPlaced, f.ArtistFingers, f.FingerHits, f.FingerTotal, strings.Join(f.Missed, " "))
	}
	return b.String()
}

// fingerHits sums the finger joints within the tolerance and those compared.
func (r *HumanoidReport) fingerHits() (hits, total int) {
	for _, f := range r.Fits {
		hits, total = hits+f.FingerHits, total+f.FingerTotal
	}
	return hits, total
}

// fingerSummary counts the fits with fingers placed against the artists' rigs
// with finger joints: false positives place fingers where the artist has none,
// misses place none where the artist has some.
func (r *HumanoidReport) fingerSummary() string {
	var placed, artist, both int
	var falsePos, misses []string
	for _, f := range r.Fits {
		p, a := f.FingersPlaced > 0, f.ArtistFingers > 0
		placed, artist, both = placed+b2i(p), artist+b2i(a), both+b2i(p && a)
		if p && !a {
			falsePos = append(falsePos, f.Name)
		}
		if a && !p {
			misses = append(misses, f.Name)
		}
	}
	return fmt.Sprintf("Fingers placed on %d files; the artist's rig has fingers on %d; both %d. False positives (placed, the artist has none) %d: %s. Misses (the artist has fingers, none placed) %d: %s.\n",
		placed, artist, both, len(falsePos), strings.Join(falsePos, " "), len(misses), strings.Join(misses, " "))
}

// KindOfCategory is the kind a manifest category should be detected as.
func KindOfCategory(category string) Kind {
	switch {
	case strings.HasPrefix(category, "biped"):
		return Humanoid
	case category == "quadruped":
		return Quadruped
	case strings.HasPrefix(category, "bird"):
		return Bird
	case category == "fish":
		return Fish
	case category == "snake":
		return Snake
	}
	return Other
}

// KindReport counts the kinds detected against the manifest's categories.
type KindReport struct {
	confusion         map[string]int
	files, right, zUp int
	clean             int
	zUpFiles          []string
	// falseHumanoids are the files detected humanoid whose category is another.
	falseHumanoids []string
	// missed are the humanoids and quadrupeds by category detected as another kind.
	missed []string
	// sure counts the detections at confidence 0.8 or more, sureRight the right ones
	// among them (the confidence's calibration).
	sure, sureRight int
	sureWrong       []string
	// suspect counts, per expected kind, the files whose rig is suspect and all
	// files: how often `rig auto` flags a rig of each category.
	suspect map[Kind][2]int
}

// Add records one file's detection: its category, the report of an undirected
// Fit and the checks of its skeleton.
func (r *KindReport) Add(name, category string, rep *Report, ch Checks) {
	if r.confusion == nil {
		r.confusion, r.suspect = map[string]int{}, map[Kind][2]int{}
	}
	want := KindOfCategory(category)
	r.suspect[want] = [2]int{r.suspect[want][0] + b2i(rep.Status == "suspect"), r.suspect[want][1] + 1}
	r.files++
	r.confusion[fmt.Sprintf("%s → %s", want, rep.Kind)]++
	r.right += b2i(want == rep.Kind)
	r.clean += b2i(ch.Roots == 1 && len(ch.LimbOnLimb) == 0)
	if rep.Kind == Humanoid && want != Humanoid {
		r.falseHumanoids = append(r.falseHumanoids, fmt.Sprintf("%s (%s)", name, category))
	}
	if (want == Humanoid || want == Quadruped) && rep.Kind != want {
		r.missed = append(r.missed, fmt.Sprintf("%s (%s, detected %s %.2f)", name, category, rep.Kind, rep.Confidence))
	}
	if rep.Confidence >= 0.8 {
		r.sure++
		r.sureRight += b2i(want == rep.Kind)
		if want != rep.Kind {
			r.sureWrong = append(r.sureWrong, fmt.Sprintf("%s (%s, detected %s %.2f)", name, category, rep.Kind, rep.Confidence))
		}
	}
	if rep.Up == "z" {
		r.zUp++
		r.zUpFiles = append(r.zUpFiles, fmt.Sprintf("%s (%s, detected %s)", name, category, rep.Kind))
	}
}

// Markdown writes the summary and the confusion of expected → detected kinds.
func (r *KindReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Files %d: kind as the manifest's category %d, detected Z-up %d, one root and no limb on a limb %d.\n\n| expected → detected | files |\n|---|---:|\n",
		r.files, r.right, r.zUp, r.clean)
	for _, k := range sortedKeys(r.confusion) {
		fmt.Fprintf(&b, "| %s | %d |\n", k, r.confusion[k])
	}
	if len(r.zUpFiles) > 0 {
		fmt.Fprintf(&b, "\nDetected Z-up: %s.\n", strings.Join(r.zUpFiles, "; "))
	}
	if len(r.falseHumanoids) > 0 {
		fmt.Fprintf(&b, "\nDetected humanoid, another kind by category (%d): %s.\n", len(r.falseHumanoids), strings.Join(r.falseHumanoids, "; "))
	}
	if len(r.missed) > 0 {
		fmt.Fprintf(&b, "\nHumanoids and quadrupeds detected as another kind (%d): %s.\n", len(r.missed), strings.Join(r.missed, "; "))
	}
	var susp []string
	for _, k := range Kinds {
		if n := r.suspect[k]; n[1] > 0 {
			susp = append(susp, fmt.Sprintf("%s %d of %d", k, n[0], n[1]))
		}
	}
	fmt.Fprintf(&b, "\nSuspect rigs by the manifest's kind: %s.\n", strings.Join(susp, ", "))
	fmt.Fprintf(&b, "\nDetections at confidence 0.8 or more: %d, the category's kind %d (%.1f%%)", r.sure, r.sureRight, 100*ratio(r.sureRight, r.sure))
	if len(r.sureWrong) > 0 {
		fmt.Fprintf(&b, "; the others: %s", strings.Join(r.sureWrong, "; "))
	}
	b.WriteString(".\n")
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
