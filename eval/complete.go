package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/copilot"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/vecmath"
)

// The completion task (`rig eval --task complete`): on every held-out character,
// the artist's primary joints are given (copilot.Primaries) and the co-pilot
// completes the rest at each detail level; the whole skeleton and the added part
// are compared with the artist's, beside the classical skeleton and the model's
// skeleton without a partial (what `rig auto` samples).

// CompleteOptions are the completion task's methods.
type CompleteOptions struct {
	Completer copilot.Completer
	// Baselines predict a skeleton without any given joint ("classical", "auto").
	Baselines map[string]SkeletonPredictor
	// Deforming reads the artist's deforming skeleton (deformingSkeleton: no IK
	// or pole targets, no helper leaves) as the truth and the source of the
	// given joints, as the skeleton ranking does.
	Deforming bool
	Progress  io.Writer
}

// CompleteScore is one method's skeleton on one file: its joint count, CD-J2J of
// the whole skeleton and of its added part against the artist's (normalized
// units). A baseline's added part is its skeleton less the joint nearest each
// given one; an empty added part is stood in for by the whole skeleton.
type CompleteScore struct {
	Joints     int     `json:"joints"`
	CDJ2J      float64 `json:"cd_j2j"`
	AddedCDJ2J float64 `json:"added_cd_j2j"`
}

// CompleteRow is one held-out file: its artist's and given joint counts, each
// method's score, and the co-pilot's checks.
type CompleteRow struct {
	File     string                   `json:"file"`
	Family   string                   `json:"family"`
	Humanoid bool                     `json:"humanoid"`
	Artist   int                      `json:"artist_joints"`
	Given    int                      `json:"given_joints"`
	Methods  map[string]CompleteScore `json:"methods"`
	// GivenKept: every completion kept every given joint's name, parent and
	// position exactly; MaxKept: the completion bounded by the artist's count
	// (complete-max) has no more; Increasing: low < medium < high joints.
	GivenKept  bool    `json:"given_kept"`
	MaxKept    bool    `json:"max_kept"`
	Increasing bool    `json:"increasing"`
	Seconds    float64 `json:"seconds"`
	Error      string  `json:"error,omitempty"`
}

// CompleteReport is the completion task's report.
type CompleteReport struct {
	Split string        `json:"split"`
	Rows  []CompleteRow `json:"rows"`
}

// Completions runs the completion task on the characters (not props) of the
// held-out split of files.
func Completions(files []File, opt CompleteOptions) *CompleteReport {
	all, fam, split := heldOutItems(files)
	cats := map[string]string{}
	for _, f := range files {
		cats[f.Path] = f.Category
	}
	var items []dataset.BatchItem
	for _, it := range all {
		if isCharacter(cats[it.Path]) {
			items = append(items, it)
		}
	}
	rep := &CompleteReport{Split: fmt.Sprintf("%s; %d characters", split, len(items))}
	load := assets.Options{}.Loader()
	bar := progress.New(opt.Progress, "eval complete", len(items))
	failed := 0
	for _, it := range items {
		row := CompleteRow{File: it.Path, Family: fam[it.Path].Family, Humanoid: strings.HasPrefix(cats[it.Path], "biped")}
		t := time.Now()
		if err := completeFile(&row, load, opt); err != nil {
			row.Error = err.Error()
			failed++
		}
		row.Seconds = time.Since(t).Seconds()
		rep.Rows = append(rep.Rows, row)
		bar.Add(1, failed)
	}
	bar.Finish()
	return rep
}

// completeFile scores one file: the baselines, then the co-pilot from the artist's
// primaries at every detail level, the level nearest the artist's count, and high
// detail bounded by the artist's count.
func completeFile(row *CompleteRow, load func(string) (*character.Character, error), opt CompleteOptions) error {
	gt, err := load(row.File)
	if err != nil || !gt.Rigged() {
		return fmt.Errorf("ground truth: %s", errOr(err, "not rigged"))
	}
	norm := character.NormalizationOf(gt.Mesh)
	if opt.Deforming {
		gt.Skeleton = deformingSkeleton(gt)
	}
	given := copilot.Primaries(gt.Skeleton, row.Humanoid)
	row.Artist, row.Given = gt.Skeleton.NumJoints(), given.NumJoints()
	row.Methods = map[string]CompleteScore{}
	artistAdded := addedOf(gt.Skeleton, given)
	in := &character.Character{Name: gt.Name, Mesh: gt.Mesh}
	for name, predict := range opt.Baselines {
		sk, err := predict(in)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		row.Methods[name] = scoreCompletion(gt.Skeleton, sk, artistAdded, withoutNearest(sk, given), norm)
	}
	prep, err := opt.Completer.Prepare(in, given)
	if err != nil {
		return err
	}
	return row.scoreDetails(prep, gt.Skeleton, given, artistAdded, norm)
}

// scoreDetails completes at every detail level and scores each, with the checks.
func (row *CompleteRow) scoreDetails(prep *copilot.Prepared, artist, given *character.Skeleton, artistAdded []vecmath.Vec3, norm character.Normalization) error {
	row.GivenKept = true
	counts := map[string]int{}
	densities := map[string]copilot.Density{"complete-max": {Detail: copilot.DetailHigh, MaxJoints: artist.NumJoints()}}
	for _, d := range copilot.Details {
		densities["complete-"+d.String()] = copilot.Density{Detail: d}
	}
	for name, d := range densities {
		comp, err := prep.Complete(d)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		row.GivenKept = row.GivenKept && keptExactly(comp.Skeleton, given)
		counts[name] = comp.Skeleton.NumJoints()
		added := jointsFrom(comp.Skeleton, comp.Given)
		row.Methods[name] = scoreCompletion(artist, comp.Skeleton, artistAdded, added, norm)
	}
	row.MaxKept = counts["complete-max"] <= artist.NumJoints()
	row.Increasing = counts["complete-low"] < counts["complete-medium"] && counts["complete-medium"] < counts["complete-high"]
	best := ""
	for _, d := range copilot.Details {
		name := "complete-" + d.String()
		if best == "" || absInt(counts[name]-artist.NumJoints()) < absInt(counts[best]-artist.NumJoints()) {
			best = name
		}
	}
	row.Methods["complete-matched"] = row.Methods[best]
	return nil
}

// scoreCompletion scores a skeleton against the artist's: whole CD-J2J, and the
// added part's (empty added parts are stood in for by the whole skeleton).
func scoreCompletion(artist, sk *character.Skeleton, artistAdded, added []vecmath.Vec3, norm character.Normalization) CompleteScore {
	s := CompleteScore{Joints: sk.NumJoints(), CDJ2J: metrics.SkeletonMetrics(artist, sk, norm).CDJ2J, AddedCDJ2J: math.NaN()}
	if len(added) == 0 {
		added = sk.Positions()
	}
	if len(artistAdded) > 0 && len(added) > 0 {
		s.AddedCDJ2J = metrics.Chamfer(normalized(artistAdded, norm), normalized(added, norm))
	}
	return s
}

// addedOf returns the artist's joints that are not given (by name).
func addedOf(artist, given *character.Skeleton) []vecmath.Vec3 {
	isGiven := map[string]bool{}
	for _, n := range given.Names {
		isGiven[n] = true
	}
	var out []vecmath.Vec3
	for j, n := range artist.Names {
		if !isGiven[n] {
			out = append(out, artist.Position(j))
		}
	}
	return out
}

// withoutNearest returns a baseline's joints less the one nearest each given
// joint (greedily, nearest pairs first): what it adds to what was given.
func withoutNearest(sk, given *character.Skeleton) []vecmath.Vec3 {
	type pair struct {
		d    float64
		g, j int
	}
	var pairs []pair
	for g := range given.Names {
		for j := range sk.Names {
			pairs = append(pairs, pair{given.Position(g).Dist(sk.Position(j)), g, j})
		}
	}
	sort.Slice(pairs, func(a, b int) bool { return pairs[a].d < pairs[b].d })
	usedG, usedJ := map[int]bool{}, map[int]bool{}
	for _, p := range pairs {
		if !usedG[p.g] && !usedJ[p.j] {
			usedG[p.g], usedJ[p.j] = true, true
		}
	}
	var out []vecmath.Vec3
	for j := range sk.Names {
		if !usedJ[j] {
			out = append(out, sk.Position(j))
		}
	}
	return out
}

// keptExactly reports whether the first joints of sk are the given ones: same
// names, parents and positions, bit for bit.
func keptExactly(sk, given *character.Skeleton) bool {
	if sk.NumJoints() < given.NumJoints() {
		return false
	}
	for j, n := range given.Names {
		if sk.Names[j] != n || sk.Parents[j] != given.Parents[j] || sk.Position(j) != given.Position(j) {
			return false
		}
	}
	return true
}

func jointsFrom(sk *character.Skeleton, from int) []vecmath.Vec3 { return sk.Positions()[from:] }

func normalized(pts []vecmath.Vec3, norm character.Normalization) []vecmath.Vec3 {
	out := make([]vecmath.Vec3, len(pts))
	for i, p := range pts {
		out[i] = norm.Point(p)
	}
	return out
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// JSON renders the whole report.
func (rep *CompleteReport) JSON() []byte {
	data, _ := json.MarshalIndent(rep, "", "  ")
	return append(data, '\n')
}
