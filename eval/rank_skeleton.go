package eval

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/vecmath"
)

// Skeleton rank agreement (`rig eval --task rewards --skeleton`): per held-out
// character, the artist's skeleton, the classical skeleton and perturbed copies of
// the artist's (jittered, a limb chain dropped, the legs merged, extra joints) are
// all skinned by one method, so that only the skeleton differs, and ranked by the
// rewards and by CD-J2J to the artist's skeleton (METRICS.md).

// SkeletonCandidates are the skeleton candidates besides the artist's, in report
// order: the classical skeleton, the anatomical one `rig auto` writes with it
// ("classical-anatomy") and the perturbations of perturbSkeleton. A model adds
// its voted and greedy skeletons (skeletonCandidates).
var SkeletonCandidates = []string{"classical", "classical-anatomy", "jitter2", "jitter5", "jitter10", "drop_limb", "merge_legs", "extra_joints"}

// modelSkeletons are the model's skeleton candidates, when a model is given.
var modelSkeletons = []string{"tokens", "tokens-greedy"}

// skeletonCandidates returns the candidates besides the artist's that methods
// (SkeletonMethods) can make.
func skeletonCandidates(methods map[string]SkeletonPredictor) []string {
	out := append([]string(nil), SkeletonCandidates...)
	for _, m := range modelSkeletons {
		if methods[m] != nil {
			out = append(out, m)
		}
	}
	return out
}

// skeletonTruth names the artist's skeleton among the skeleton candidates.
const skeletonTruth = "artist"

// SkeletonRankSummary is what the skeleton ranking adds to a RankReport: on how
// many characters the artist's skeleton scores at least the classical one.
type SkeletonRankSummary struct {
	Skin                   string `json:"skin"`
	ArtistAtLeastClassical int    `json:"artist_at_least_classical"`
	Compared               int    `json:"compared"`
	// ArtistAbove counts, per broken skeleton ("drop_limb", "merge_legs"), the
	// characters where the artist's skeleton scores above it, of Broken[name]
	// where both were scored: a limbless or merged-leg rig must lose.
	ArtistAbove map[string]int `json:"artist_above"`
	Broken      map[string]int `json:"broken"`
	// TemplateAbove counts the same for the anatomical template rig
	// ("classical-anatomy"), of TemplateBroken[name]: what `rig auto` writes must
	// beat a rig that lost a limb or merged the legs.
	TemplateAbove  map[string]int `json:"template_above"`
	TemplateBroken map[string]int `json:"template_broken"`
}

// brokenSkeletons are the perturbations an animator would reject outright.
var brokenSkeletons = []string{"drop_limb", "merge_legs"}

// rankSkeletonOne scores the artist's skeleton and every skeleton candidate of one
// character, each skinned by skin, against CD-J2J to the artist's skeleton.
func rankSkeletonOne(f File, family string, skin SkinMethod, seed int64, methods map[string]SkeletonPredictor) RankCharacter {
	out := RankCharacter{File: f.Path, Category: f.Category, Family: family}
	gt, prep, err := loadRigged(f.Path)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	idle := skinning.IdleJoints(gt)
	gt.Skeleton = deformingSkeleton(gt)
	norm := character.NormalizationOf(gt.Mesh)
	for _, name := range append([]string{skeletonTruth}, skeletonCandidates(methods)...) {
		var sk *character.Skeleton
		var err error
		artists := idle // the artist's skeleton and its perturbations keep its idle joints idle
		switch predict := methods[name]; {
		case name == skeletonTruth:
			sk = gt.Skeleton.Clone()
		case predict != nil:
			artists = nil
			sk, err = predict(gt)
		default:
			sk, err = perturbSkeleton(gt.Skeleton, name, 2/norm.Scale, seed)
		}
		out.Candidates = append(out.Candidates, skeletonCandidate(gt, prep, name, sk, err, idleSkin(skin, artists), norm))
	}
	out.Tau, out.Alone, out.Without = rankTaus(out.Candidates)
	return out
}

// skeletonCandidate skins gt's mesh on sk and scores it by the rewards and by
// CD-J2J to gt's skeleton (in RankCandidate.Deform, the candidate's error).
func skeletonCandidate(gt *character.Character, prep *rewards.Prepared, name string, sk *character.Skeleton, err error,
	skin SkinMethod, norm character.Normalization) RankCandidate {
	c := RankCandidate{Method: name}
	var rep *rewards.Report
	if err == nil {
		in := gt.Clone()
		in.Skeleton, in.Skin = sk, nil
		var k *character.Skin
		if k, err = skin(in); err == nil {
			in.Skin = k
			rep, err = prep.Score(in, rewards.Options{Motion: animation.ClipPoses})
		}
	}
	if err != nil {
		c.Error = fmt.Sprintf("%s: %v", name, err)
		return c
	}
	c.Score, c.Rewards, c.CriticFeatures = rep.Score, rep.Rewards, criticFeatures(rep)
	c.Deform = metrics.SkeletonMetrics(gt.Skeleton, sk, norm).CDJ2J
	return c
}

// perturbSkeleton returns a perturbed copy of sk: "jitterN" moves every joint by N%
// of height (a random direction), "drop_limb" removes the largest limb chain,
// "merge_legs" replaces the two lowest chains by one down their middle,
// "extra_joints" adds a leaf at the middle of every fourth bone. It errs when the
// skeleton has no such part (no limb, no two legs).
func perturbSkeleton(sk *character.Skeleton, kind string, height float64, seed int64) (*character.Skeleton, error) {
	switch kind {
	case "jitter2", "jitter5", "jitter10":
		pct := map[string]float64{"jitter2": 2, "jitter5": 5, "jitter10": 10}[kind]
		return jitterSkeleton(sk, pct/100*height, seed), nil
	case "drop_limb":
		return dropLimb(sk)
	case "merge_legs":
		return mergeLegs(sk)
	case "extra_joints":
		return extraJoints(sk), nil
	}
	return nil, fmt.Errorf("perturb skeleton: unknown perturbation %q", kind)
}

// jitterSkeleton moves every joint of sk by dist in a seeded random direction.
func jitterSkeleton(sk *character.Skeleton, dist float64, seed int64) *character.Skeleton {
	rng := rand.New(rand.NewSource(seed))
	out := sk.Clone()
	for j := range out.BindWorld {
		d := vecmath.RandomUnit(rng).Scale(dist)
		out.BindWorld[j] = setTranslation(out.BindWorld[j], out.Position(j).Add(d))
	}
	return out
}

func setTranslation(m vecmath.Mat4, p vecmath.Vec3) vecmath.Mat4 {
	m[12], m[13], m[14] = p[0], p[1], p[2]
	return m
}

// subtree lists j and its descendants (parents precede children in sk).
func subtree(sk *character.Skeleton, j int) []int {
	in := map[int]bool{j: true}
	out := []int{j}
	for k := j + 1; k < len(sk.Parents); k++ {
		if in[sk.Parents[k]] {
			in[k] = true
			out = append(out, k)
		}
	}
	return out
}

// deformingSkeleton returns the artist's skeleton without the joints that neither
// carry weight in the artist's skin nor lead to one that does: IK and pole
// targets, helper leaves. The file says they move nothing, so the truth and every
// candidate made from it leave them out; skinned by the ranking's method they
// would take weight no animator gave them.
func deformingSkeleton(c *character.Character) *character.Skeleton {
	sk := c.Skeleton
	if c.Skin == nil {
		return sk
	}
	carries := skinning.Carries(c.Skin, sk.NumJoints())
	for j := len(sk.Parents) - 1; j >= 0; j-- { // children after parents
		if p := sk.Parents[j]; carries[j] && p >= 0 {
			carries[p] = true
		}
	}
	drop := map[int]bool{}
	for j, ok := range carries {
		if !ok {
			drop[j] = true
		}
	}
	if len(drop) == 0 || len(drop) == len(carries) {
		return sk
	}
	return without(sk, drop)
}

// idleSkin returns skin with the artist's idle joints (skinning.IdleJoints of
// the artist's character, in idle) left without weight: they stay in the
// artist's skeleton and its perturbations to hold the hierarchy, but the artist
// says they move nothing, and a floor root skinned by the ranking's or the skin
// task's method would take the inner thighs and tear them in every pose, a cost
// no animator's rig has (the skin task with SkinOptions.KeepIdle, as `rig skin`).
func idleSkin(skin SkinMethod, idle map[string]bool) SkinMethod {
	if len(idle) == 0 {
		return skin
	}
	return func(c *character.Character) (*character.Skin, error) {
		k, err := skin(c)
		if err != nil {
			return nil, err
		}
		return skinning.KeepIdle(k, c, idle), nil
	}
}

// without returns sk with the joints in drop removed, order kept.
func without(sk *character.Skeleton, drop map[int]bool) *character.Skeleton {
	var keep []int
	for j := range sk.Names {
		if !drop[j] {
			keep = append(keep, j)
		}
	}
	return sk.Select(keep)
}

// dropLimb removes the largest subtree hanging off a branching joint that holds at
// most 40% of the joints and at least two.
func dropLimb(sk *character.Skeleton) (*character.Skeleton, error) {
	ch := sk.Children()
	best, bestN := -1, 0
	for j := range ch {
		if len(ch[j]) < 2 {
			continue
		}
		for _, c := range ch[j] {
			n := len(subtree(sk, c))
			if n >= 2 && n <= len(sk.Names)*2/5 && n > bestN {
				best, bestN = c, n
			}
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("drop limb: no limb chain of 2 joints to 40%% of %d", len(sk.Names))
	}
	drop := map[int]bool{}
	for _, j := range subtree(sk, best) {
		drop[j] = true
	}
	return without(sk, drop), nil
}

// chainTo lists the joints from the child of ancestor a down to leaf l.
func chainTo(sk *character.Skeleton, a, l int) []int {
	var c []int
	for j := l; j >= 0 && j != a; j = sk.Parents[j] {
		c = append(c, j)
	}
	for i, k := 0, len(c)-1; i < k; i, k = i+1, k-1 {
		c[i], c[k] = c[k], c[i]
	}
	return c
}

// mergeLegs finds the two lowest leaves (along y, the up axis of the data) in
// different subtrees of their lowest common ancestor, moves the first one's chain
// down the middle of both (joint i onto the mean of i and its share of the other)
// and removes the second's subtree.
func mergeLegs(sk *character.Skeleton) (*character.Skeleton, error) {
	ch := sk.Children()
	var leaves []int
	for j := range ch {
		if len(ch[j]) == 0 {
			leaves = append(leaves, j)
		}
	}
	sort.Slice(leaves, func(a, b int) bool { return sk.Position(leaves[a])[1] < sk.Position(leaves[b])[1] })
	for i := 0; i < len(leaves); i++ {
		for k := i + 1; k < len(leaves) && k < 6; k++ {
			a := commonAncestor(sk, leaves[i], leaves[k])
			if a < 0 {
				continue
			}
			ca, cb := chainTo(sk, a, leaves[i]), chainTo(sk, a, leaves[k])
			if len(ca) < 2 || len(cb) < 2 {
				continue
			}
			out := sk.Clone()
			for n, j := range ca {
				m := cb[n*(len(cb)-1)/(len(ca)-1)]
				out.BindWorld[j] = setTranslation(out.BindWorld[j], sk.Position(j).Add(sk.Position(m)).Scale(0.5))
			}
			drop := map[int]bool{}
			for _, j := range subtree(sk, cb[0]) {
				drop[j] = true
			}
			return without(out, drop), nil
		}
	}
	return nil, fmt.Errorf("merge legs: no two low chains of 2 joints or more with a common ancestor in %d joints", len(sk.Names))
}

// commonAncestor returns the lowest common ancestor of a and b, or -1.
func commonAncestor(sk *character.Skeleton, a, b int) int {
	up := map[int]bool{}
	for j := a; j >= 0; j = sk.Parents[j] {
		up[j] = true
	}
	for j := b; j >= 0; j = sk.Parents[j] {
		if up[j] && j != a && j != b {
			return j
		}
	}
	return -1
}

// extraJoints adds, for every fourth joint with a parent, a leaf child at the middle
// of its bone, so that the extra joints lie on the skeleton.
func extraJoints(sk *character.Skeleton) *character.Skeleton {
	out := sk.Clone()
	for j := 0; j < len(sk.Names); j += 4 {
		p := sk.Parents[j]
		if p < 0 {
			continue
		}
		mid := sk.Position(j).Add(sk.Position(p)).Scale(0.5)
		out.Names = append(out.Names, fmt.Sprintf("%s_extra", sk.Names[j]))
		out.Parents = append(out.Parents, j)
		out.BindWorld = append(out.BindWorld, vecmath.Translate4(mid))
	}
	return out
}

// summarizeSkeletonRank counts the characters whose artist's skeleton scores at
// least the classical one.
func summarizeSkeletonRank(chars []RankCharacter, skin string) *SkeletonRankSummary {
	s := &SkeletonRankSummary{Skin: skin, ArtistAbove: map[string]int{}, Broken: map[string]int{},
		TemplateAbove: map[string]int{}, TemplateBroken: map[string]int{}}
	for _, c := range chars {
		score := map[string]float64{}
		for _, k := range c.Candidates {
			if k.Error == "" {
				score[k.Method] = k.Score
			}
		}
		a, okA := score[skeletonTruth]
		t, okT := score["classical-anatomy"]
		for _, name := range brokenSkeletons {
			b, ok := score[name]
			if ok && okA {
				s.Broken[name]++
				if a > b {
					s.ArtistAbove[name]++
				}
			}
			if ok && okT {
				s.TemplateBroken[name]++
				if t > b {
					s.TemplateAbove[name]++
				}
			}
		}
		b, okB := score["classical"]
		if okA && okB {
			s.Compared++
			if a >= b {
				s.ArtistAtLeastClassical++
			}
		}
	}
	return s
}
