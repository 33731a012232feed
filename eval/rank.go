package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rewards"
)

// Rank agreement (`rig eval --task rewards`): does a higher reward mean a better rig?
// For each held-out character (a creature, not a prop, whose family is in the
// report half of dataset.FamilyHalf, so the rewards were not tuned on it) a set of
// candidate rigs on the artist's skeleton is scored twice: by the rewards, which
// see no ground truth, and by the deformation error against the artist's weights
// (METRICS.md). Kendall's τ between the score and minus the error says how well the
// score ranks them; the report gives τ per character, its mean, and for each reward
// its τ alone and the total's τ without it.

// rankTruth names the artist's own rig among the candidates.
const rankTruth = "truth"

// RankMethods are the default candidate skins besides the truth: rigkit's skinning
// methods on the artist's skeleton (tokens when the shipped model writes skin
// tokens), the geodesic+heat blend, and the rigid floor.
func RankMethods(tokens bool) []string {
	m := []string{"geodesic", "heat", "heat+geodesic", "rigid"}
	if tokens {
		m = append(m, "tokens")
	}
	return m
}

// RankOptions say which candidates the rewards task ranks, on which half.
type RankOptions struct {
	// Methods are the candidate skins besides the truth, in report order, each in
	// Skins.
	Methods []string
	Skins   map[string]SkinMethod
	// Half is the half of the families to rank on: dataset.ReportHalf (held out
	// from tuning the rewards) or dataset.TuneHalf.
	Half     string
	Seed     int64 // seed of the deformation poses
	Workers  int
	Progress io.Writer
	// Weights, when set, rank by rewards.CombineWith these weights instead of the
	// score (`rig eval --reward`): what another combination would rank, the
	// learned critic's weight among them, without scoring again.
	Weights map[string]float64
	// Skeleton ranks skeletons instead of skins: the artist's, the classical and
	// perturbed ones (SkeletonCandidates), each skinned by Skins[Methods[0]], against
	// CD-J2J to the artist's skeleton (rank_skeleton.go).
	Skeleton bool
	// Model, when set, adds its voted and greedy skeletons ("tokens",
	// "tokens-greedy", as `rig auto` masks them) to the skeleton candidates.
	Model *autorig.ModelRigger
}

// RankCandidate is one candidate rig of one character.
type RankCandidate struct {
	Method  string             `json:"method"`
	Score   float64            `json:"score"`
	Rewards map[string]float64 `json:"rewards"`
	// Deform is the METRICS.md deformation error (×100) against the artist's
	// weights: 0 for the truth.
	Deform  float64 `json:"deform"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
	// CriticFeatures are the skeleton's critic features as scored (critic.FeatureNames), so a
	// critic refitted offline can be tried on the candidates without scoring again.
	CriticFeatures []float64 `json:"critic_features,omitempty"`
}

// RankCharacter is one character's candidates and rank agreements. A τ is absent
// (nil) when it is undefined: fewer than three candidates, or one side all tied.
type RankCharacter struct {
	File       string              `json:"file"`
	Category   string              `json:"category"`
	Family     string              `json:"family"`
	Candidates []RankCandidate     `json:"candidates"`
	Tau        *float64            `json:"tau,omitempty"`
	Alone      map[string]*float64 `json:"tau_alone,omitempty"`   // τ of each reward by itself
	Without    map[string]*float64 `json:"tau_without,omitempty"` // τ of the score without that reward
	Error      string              `json:"error,omitempty"`
}

// RankReport is the JSON report of the rewards task.
type RankReport struct {
	Task          string             `json:"task"`
	RewardVersion int                `json:"reward_version"`
	Half          string             `json:"half"`
	Seed          int64              `json:"seed"`
	Methods       []string           `json:"methods"`
	Characters    []RankCharacter    `json:"characters"`
	MeanTau       float64            `json:"mean_tau"`
	TauCount      int                `json:"tau_characters"`
	MeanAlone     map[string]float64 `json:"mean_tau_alone"`
	MeanWithout   map[string]float64 `json:"mean_tau_without"`
	// Skeleton is set when the candidates are skeletons (RankOptions.Skeleton).
	Skeleton *SkeletonRankSummary `json:"skeleton,omitempty"`
}

// RankRewards ranks the candidates of every character of files whose family is in
// opt.Half (rankHeldOut) by the rewards and by the deformation error, and reports
// their agreement.
func RankRewards(files []File, opt RankOptions) (*RankReport, error) {
	held, fams, err := rankHeldOut(files, opt.Half)
	if err != nil {
		return nil, err
	}
	if opt.Skeleton && (len(opt.Methods) == 0 || opt.Skins[opt.Methods[0]] == nil) {
		return nil, fmt.Errorf("eval rewards: ranking skeletons needs one skin method")
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("eval rewards: none of the %d files is a character (a creature category in the manifest) of a family in the %s half", len(files), opt.Half)
	}
	skeletons := SkeletonMethods(opt.Model, 0)
	results := make([]RankCharacter, len(held))
	var mu sync.Mutex
	done, start := 0, time.Now()
	forEach(len(held), opt.Workers, func(i int) {
		if opt.Skeleton {
			results[i] = rankSkeletonOne(held[i], fams[held[i].Path], opt.Skins[opt.Methods[0]], opt.Seed, skeletons)
		} else {
			results[i] = rankOne(held[i], fams[held[i].Path], opt.Methods, opt.Skins, opt.Seed)
		}
		mu.Lock()
		done++
		fmt.Fprintf(opt.Progress, "\reval rewards: %d/%d characters, %s", done, len(held), time.Since(start).Round(time.Second))
		mu.Unlock()
	})
	fmt.Fprintln(opt.Progress)
	if opt.Weights != nil {
		reweigh(results, opt.Weights)
	}
	rep := summarizeRank(results, opt.Methods, opt.Seed)
	rep.Half = opt.Half
	if opt.Skeleton {
		rep.Task = "rewards-skeleton"
		rep.Methods = append([]string{skeletonTruth}, skeletonCandidates(skeletons)...)
		rep.Skeleton = summarizeSkeletonRank(results, opt.Methods[0])
	}
	return &rep, nil
}

// reweigh replaces every scored candidate's score by the combination of its
// rewards with weights and ranks again.
func reweigh(chars []RankCharacter, weights map[string]float64) {
	for i := range chars {
		for k, c := range chars[i].Candidates {
			if c.Error == "" {
				chars[i].Candidates[k].Score = rewards.CombineWith(c.Rewards, weights)
			}
		}
		if len(chars[i].Candidates) > 0 {
			chars[i].Tau, chars[i].Alone, chars[i].Without = rankTaus(chars[i].Candidates)
		}
	}
}

// rankHeldOut keeps the character files whose tuning family
// (dataset.File.TuningFamily) is in half, with their families.
func rankHeldOut(files []File, half string) ([]File, map[string]string, error) {
	fams := map[string]string{}
	roots := map[string]bool{}
	for _, f := range files {
		roots[strings.TrimSuffix(f.Path, f.Rel)] = true
	}
	for root := range roots {
		if root == "" {
			root = "."
		}
		fs, err := dataset.Discover([]string{root})
		if err != nil {
			return nil, nil, fmt.Errorf("eval rewards: %w", err)
		}
		for _, f := range fs {
			fams[filepath.Clean(f.Path)] = f.TuningFamily()
		}
	}
	var out []File
	byPath := map[string]string{}
	for _, f := range files {
		fam := fams[filepath.Clean(f.Path)]
		if rankCreature(f.Category) && dataset.FamilyHalf(fam) == half {
			out = append(out, f)
			byPath[f.Path] = fam
		}
	}
	return out, byPath, nil
}

// rankCreature reports whether a manifest category is a creature: biped,
// quadruped, bird, fish, snake or other creature; not a prop, not unknown.
func rankCreature(category string) bool {
	c := strings.ToLower(category)
	return c != "" && !strings.HasPrefix(c, "prop")
}

// criticFeatures are the report's critic features, nil when it has none.
func criticFeatures(rep *rewards.Report) []float64 {
	if rep.Details.Critic == nil {
		return nil
	}
	return rep.Details.Critic.Features
}

// loadRigged loads the artist's rig at path and prepares its mesh for scoring: the
// one load both rank tasks start from.
func loadRigged(path string) (*character.Character, *rewards.Prepared, error) {
	gt, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		return nil, nil, err
	}
	if !gt.Rigged() {
		return nil, nil, fmt.Errorf("%s: no skeleton or skin", path)
	}
	prep, err := rewards.Prepare(&gt.Mesh, rewards.Options{})
	return gt, prep, err
}

// rankOne scores the truth and every candidate skin of one character.
func rankOne(f File, family string, methods []string, skins map[string]SkinMethod, seed int64) RankCharacter {
	out := RankCharacter{File: f.Path, Category: f.Category, Family: family}
	gt, prep, err := loadRigged(f.Path)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	score := func(c *character.Character) (*rewards.Report, error) {
		return prep.Score(c, rewards.Options{Motion: animation.ClipPoses})
	}
	truth := RankCandidate{Method: rankTruth}
	if rep, err := score(gt); err != nil {
		truth.Error = err.Error()
	} else {
		truth.Score, truth.Rewards, truth.CriticFeatures = rep.Score, rep.Rewards, criticFeatures(rep)
	}
	out.Candidates = append(out.Candidates, truth)
	for _, m := range methods {
		out.Candidates = append(out.Candidates, RankCandidateOf(gt, m, skins[m], score, seed))
	}
	out.Tau, out.Alone, out.Without = rankTaus(out.Candidates)
	return out
}

// RankCandidateOf skins gt's mesh and skeleton with one method and measures the
// result both ways.
func RankCandidateOf(gt *character.Character, m string, skin SkinMethod, score func(*character.Character) (*rewards.Report, error), seed int64) RankCandidate {
	c := RankCandidate{Method: m}
	in := gt.Clone()
	in.Skin = nil
	t0 := time.Now()
	k, err := skin(in)
	c.Seconds = time.Since(t0).Seconds()
	var res metrics.SkinResult
	pred := gt.Clone()
	if err == nil {
		pred.Skin = k
		var w *character.Skin
		if w, err = metrics.MatchSkin(gt, pred); err == nil {
			res, err = metrics.SkinMetrics(gt, w, seed)
		}
	}
	var rep *rewards.Report
	if err == nil {
		rep, err = score(pred)
	}
	if err != nil {
		c.Error = fmt.Sprintf("%s: %v", m, err)
		return c
	}
	c.Score, c.Rewards, c.Deform, c.CriticFeatures = rep.Score, rep.Rewards, res.DeformMean, criticFeatures(rep)
	return c
}

// rankTaus returns τ(score, −error) over the candidates that scored, τ of each
// reward alone and τ of the score with each reward left out.
func rankTaus(cands []RankCandidate) (*float64, map[string]*float64, map[string]*float64) {
	var ok []RankCandidate
	for _, c := range cands {
		if c.Error == "" {
			ok = append(ok, c)
		}
	}
	if len(ok) < 3 {
		return nil, nil, nil
	}
	neg := make([]float64, len(ok))
	for i, c := range ok {
		neg[i] = -c.Deform
	}
	tauOf := func(f func(c RankCandidate) float64) *float64 {
		x := make([]float64, len(ok))
		for i, c := range ok {
			x[i] = f(c)
		}
		t, err := kendallTau(x, neg)
		if err != nil {
			return nil
		}
		return &t
	}
	alone, without := map[string]*float64{}, map[string]*float64{}
	for _, name := range rewards.RewardNames {
		alone[name] = tauOf(func(c RankCandidate) float64 { return c.Rewards[name] })
		w := map[string]float64{}
		for k, v := range rewards.Weights {
			if k != name {
				w[k] = v
			}
		}
		without[name] = tauOf(func(c RankCandidate) float64 { return rewards.CombineWith(c.Rewards, w) })
	}
	return tauOf(func(c RankCandidate) float64 { return c.Score }), alone, without
}

// summarizeRank averages the defined τs over the characters.
func summarizeRank(chars []RankCharacter, methods []string, seed int64) RankReport {
	rep := RankReport{Task: "rewards", RewardVersion: rewards.RewardVersion, Seed: seed,
		Methods: methods, Characters: chars, MeanAlone: map[string]float64{}, MeanWithout: map[string]float64{}}
	rep.MeanTau, rep.TauCount = meanTau(chars, func(c RankCharacter) *float64 { return c.Tau })
	for _, name := range rewards.RewardNames {
		rep.MeanAlone[name], _ = meanTau(chars, func(c RankCharacter) *float64 { return c.Alone[name] })
		rep.MeanWithout[name], _ = meanTau(chars, func(c RankCharacter) *float64 { return c.Without[name] })
	}
	return rep
}

// meanTau is the mean of the defined τs (NaN when none is) and their count.
func meanTau(chars []RankCharacter, get func(RankCharacter) *float64) (float64, int) {
	sum, n := 0.0, 0
	for _, c := range chars {
		if t := get(c); t != nil {
			sum += *t
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}

// JSON encodes the report, indented; a mean that no character defined is left out
// (JSON has no NaN).
func (rep *RankReport) JSON() ([]byte, error) {
	js, err := json.MarshalIndent(jsonSafeRank(*rep), "", " ")
	if err != nil {
		return nil, fmt.Errorf("eval rewards: encode report: %w", err)
	}
	return js, nil
}

// jsonSafeRank replaces NaN means (no character defined them) by 0 with a count of
// 0 beside, since JSON has no NaN.
func jsonSafeRank(rep RankReport) RankReport {
	fix := func(m map[string]float64) map[string]float64 {
		out := map[string]float64{}
		for k, v := range m {
			if !math.IsNaN(v) {
				out[k] = v
			}
		}
		return out
	}
	if math.IsNaN(rep.MeanTau) {
		rep.MeanTau = 0
	}
	rep.MeanAlone, rep.MeanWithout = fix(rep.MeanAlone), fix(rep.MeanWithout)
	return rep
}

// Markdown renders the summary, the component table and the per-character rows.
func (rep *RankReport) Markdown() string {
	var b strings.Builder
	rep.markdownHeader(&b)
	b.WriteString("| reward | weight | mean τ alone | mean τ of the score without it | change from dropping it |\n|---|---:|---:|---:|---:|\n")
	for _, name := range rewards.RewardNames {
		alone, okA := rep.MeanAlone[name]
		without, okW := rep.MeanWithout[name]
		a, w, d := "—", "—", "—"
		if okA && !math.IsNaN(alone) {
			a = fmtTau(alone)
		}
		if okW && !math.IsNaN(without) {
			w = fmtTau(without)
			d = fmt.Sprintf("%+.3f", without-rep.MeanTau)
		}
		fmt.Fprintf(&b, "| %s | %g | %s | %s | %s |\n", name, rewards.Weights[name], a, w, d)
	}
	b.WriteString("\nA positive change means the ranking improves without the reward (it hurts the ranking); a negative one that it helps.\n\n")
	b.WriteString("| character | category | τ | candidates: score / error |\n|---|---|---:|---|\n")
	chars := append([]RankCharacter(nil), rep.Characters...)
	sort.SliceStable(chars, func(a, c int) bool { return chars[a].File < chars[c].File })
	for _, c := range chars {
		tau := "—"
		if c.Tau != nil {
			tau = fmtTau(*c.Tau)
		}
		var parts []string
		for _, k := range c.Candidates {
			if k.Error != "" {
				parts = append(parts, k.Method+" failed")
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %.3f / %.3g", k.Method, k.Score, k.Deform))
		}
		if c.Error != "" {
			parts = append(parts, "error: "+c.Error)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", filepath.Base(c.File), c.Category, tau, strings.Join(parts, "; "))
	}
	return b.String()
}

// markdownHeader writes the title, what was ranked against what, and the mean τ.
func (rep *RankReport) markdownHeader(b *strings.Builder) {
	what, truth := "Candidates: "+rankTruth+", "+strings.Join(rep.Methods, ", "), fmt.Sprintf("deformation error: METRICS.md (seed %d, ×100)", rep.Seed)
	title := "rig eval --task rewards"
	if s := rep.Skeleton; s != nil {
		title += " --skeleton"
		what = fmt.Sprintf("Skeletons, each skinned by %s: %s", s.Skin, strings.Join(rep.Methods, ", "))
		truth = "CD-J2J to the artist's skeleton (METRICS.md, cube units)"
	}
	fmt.Fprintf(b, "# %s\n\nReward version %d. Characters of the families in the %s half: %d scored, τ defined on %d. %s. Error: %s.\n\n",
		title, rep.RewardVersion, rep.Half, len(rep.Characters), rep.TauCount, what, truth)
	fmt.Fprintf(b, "**Mean Kendall τ(score, −error): %s** over %d characters.\n\n", fmtTau(rep.MeanTau), rep.TauCount)
	if s := rep.Skeleton; s != nil {
		fmt.Fprintf(b, "The artist's skeleton scores at least the classical one on **%d of %d** characters", s.ArtistAtLeastClassical, s.Compared)
		for _, name := range brokenSkeletons {
			fmt.Fprintf(b, "; above %s on %d of %d", name, s.ArtistAbove[name], s.Broken[name])
		}
		fmt.Fprint(b, ". The anatomical template rig (classical-anatomy) scores")
		for i, name := range brokenSkeletons {
			if i > 0 {
				fmt.Fprint(b, ";")
			}
			fmt.Fprintf(b, " above %s on %d of %d", name, s.TemplateAbove[name], s.TemplateBroken[name])
		}
		fmt.Fprint(b, ".\n\n")
	}
}

func fmtTau(t float64) string {
	if math.IsNaN(t) {
		return "—"
	}
	return fmt.Sprintf("%.3f", t)
}
