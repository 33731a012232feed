package anatomy

import (
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/character"
)

// NamingFit is one free-form skeleton (the model's) named from its mesh's fitted
// template by NameFromTemplate, measured against the artist's skeleton.
type NamingFit struct {
	Name, Source string
	Kind         Kind // the template's kind
	Naming       Naming
	// Mixamo counts the skeleton's joints named after the humanoid template.
	Mixamo int
	// Hits of Total named joints lie within 0.1 of the height of the artist's
	// same-named joint (NameAccuracy; an inserted root is not counted).
	Hits, Total int
	Missed      []string
	// Roots before (RawRoots) and after naming; RootToHips is the distance from the
	// root to the artist's Hips over the height (-1 when the artist's names map to
	// no Hips).
	RawRoots, Roots int
	RootToHips      float64
	LimbOnLimb      []string
}

// MeasureNaming measures a named skeleton: raw is the skeleton before naming, rep
// the fit's report, artist the artist's skeleton of a mesh of the given height.
func MeasureNaming(name, source string, raw *character.Skeleton, named *Named, rep *Report, artist *character.Skeleton, height float64) NamingFit {
	f := NamingFit{Name: name, Source: source, Kind: rep.Kind, Naming: named.Naming, RootToHips: -1}
	if rep.Kind == Humanoid {
		f.Mixamo = named.Naming.Named
	}
	own := *named.Skeleton // an inserted root is the template's joint: not counted
	if named.Naming.Inserted {
		own.Names = append([]string{""}, own.Names[1:]...)
	}
	f.Hits, f.Total, f.Missed = NameAccuracy(&own, artist, 0.1*height)
	for _, p := range raw.Parents {
		f.RawRoots += b2i(p < 0)
	}
	ch := Check(named.Skeleton, rep.Symmetry, height)
	f.Roots, f.LimbOnLimb = ch.Roots, ch.LimbOnLimb
	for j, n := range artist.Names {
		if MixamoName(n) == Hips {
			f.RootToHips = named.Skeleton.Position(0).Dist(artist.Position(j)) / height
		}
	}
	return f
}

// NamingReport gathers named skeletons into the figures of docs/anatomy.md.
type NamingReport struct {
	Fits []NamingFit
}

// Add records one skeleton.
func (r *NamingReport) Add(f NamingFit) { r.Fits = append(r.Fits, f) }

// Faults names the skeletons with more than one root or a limb hanging from
// another limb after naming.
func (r *NamingReport) Faults() []string {
	var out []string
	for _, f := range r.Fits {
		if f.Roots != 1 || len(f.LimbOnLimb) > 0 {
			out = append(out, fmt.Sprintf("%s: %d roots, limbs on limbs %v", f.Name, f.Roots, f.LimbOnLimb))
		}
	}
	return out
}

// Markdown writes the summary (joints named, name accuracy, roots, limbs), the
// name accuracy by source and a line per skeleton.
func (r *NamingReport) Markdown() string {
	var joints, mixamo, hits, total, oneRaw, oneRoot, withHips, atHips, clean, rerooted, inserted, joined, dropped, moved int
	src := map[string][2]int{}
	for _, f := range r.Fits {
		joints, mixamo = joints+f.Naming.Of, mixamo+f.Mixamo
		hits, total = hits+f.Hits, total+f.Total
		oneRaw += b2i(f.RawRoots == 1)
		oneRoot += b2i(f.Roots == 1)
		if f.RootToHips >= 0 {
			withHips++
			atHips += b2i(f.RootToHips <= 0.1)
		}
		clean += b2i(len(f.LimbOnLimb) == 0)
		rerooted += b2i(f.Naming.Rerooted)
		inserted += b2i(f.Naming.Inserted)
		joined += f.Naming.Joined
		dropped, moved = dropped+f.Naming.Dropped, moved+f.Naming.Reparented
		s := src[f.Source]
		src[f.Source] = [2]int{s[0] + f.Hits, s[1] + f.Total}
	}
	var b strings.Builder
	b.WriteString("| files | model joints | with Mixamo names | name accuracy | one root (before) | root within 0.1 of the artist's Hips | no limb on a limb |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d = %.3f | %d/%d = %.3f | %d (%d) | %d of %d | %d |\n", len(r.Fits), joints, mixamo, ratio(mixamo, joints),
		hits, total, ratio(hits, total), oneRoot, oneRaw, atHips, withHips, clean)
	fmt.Fprintf(&b, "\nRe-rooted %d, Hips added %d, extra roots joined %d, matches dropped (chain against the template's) %d, named joints moved under their template ancestor %d.\n",
		rerooted, inserted, joined, dropped, moved)
	b.WriteString("\n| source | names |\n|---|---:|\n")
	for _, s := range sortedKeys(src) {
		fmt.Fprintf(&b, "| %s | %d/%d = %.3f |\n", s, src[s][0], src[s][1], ratio(src[s][0], src[s][1]))
	}
	b.WriteString("\nPer file:\n\n| file | template | named / joints | roots before | root-Hips | limb on limb | names | missed |\n|---|---|---:|---:|---:|---|---:|---|\n")
	for _, f := range r.Fits {
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %d | %.3f | %s | %d/%d | %s |\n", f.Name, f.Kind, f.Naming.Named, f.Naming.Of, f.RawRoots,
			f.RootToHips, strings.Join(f.LimbOnLimb, " "), f.Hits, f.Total, strings.Join(f.Missed, " "))
	}
	return b.String()
}
