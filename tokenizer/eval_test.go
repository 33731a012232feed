package tokenizer_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rigkit/rigkit/dataset"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/skinning"
	"github.com/rigkit/rigkit/assets/synth"
	"github.com/rigkit/rigkit/rewards/metrics"
	"github.com/rigkit/rigkit/tokenizer"
	"github.com/rigkit/rigkit/tokens"
)

// dataDir is ../shared/data relative to the repository root.
func dataDir(t testing.TB) string {
	d := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("no shared data at %s (CI lays shared/ beside the clone)", d)
	}
	return d
}

// evalTokenizer loads the tokenizer under test: the checkpoint file named by
// RIGKIT_TOKENIZER_CKPT (e.g. a training run's best checkpoint) or the shipped one,
// with its decode settings replaced by RIGKIT_TOKENIZER_THRESHOLD, _GAMMA (Sharpen),
// _ODDS (OddsPower) and _SNAP (SnapShare) when set (a training run's checkpoints
// carry the untuned defaults) and its code-refinement rounds by
// RIGKIT_TOKENIZER_REFINE.
func evalTokenizer(t testing.TB) *tokenizer.SkinTokenizer {
	path := os.Getenv("RIGKIT_TOKENIZER_CKPT")
	var tok *tokenizer.SkinTokenizer
	settings := []struct {
		env    string
		lo, hi float64 // allowed range, inclusive
		dst    func() *float64
	}{
		{"RIGKIT_TOKENIZER_THRESHOLD", 0, 0.999, func() *float64 { return &tok.Threshold }},
		{"RIGKIT_TOKENIZER_GAMMA", 0, 16, func() *float64 { return &tok.Sharpen }},
		{"RIGKIT_TOKENIZER_ODDS", 0, 16, func() *float64 { return &tok.OddsPower }},
		{"RIGKIT_TOKENIZER_SNAP", 0, 1, func() *float64 { return &tok.SnapShare }},
	}
	for _, st := range settings {
		if path == "" && os.Getenv(st.env) != "" {
			// The embedded tokenizer is shared: load the repository's copy to change it.
			path = filepath.Join("checkpoints", "skin.safetensors")
		}
	}
	var err error
	if path != "" {
		if tok, err = tokenizer.LoadSkinTokenizer(path); err != nil {
			t.Fatal(err)
		}
	} else if tok, err = tokenizer.DefaultSkinTokenizer(); err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	for _, st := range settings {
		if e := os.Getenv(st.env); e != "" {
			v, err := strconv.ParseFloat(e, 64)
			if err != nil || !(v >= st.lo && v <= st.hi) {
				t.Fatalf("%s=%q: want a number in [%g, %g]", st.env, e, st.lo, st.hi)
			}
			*st.dst() = v
		}
	}
	for _, knob := range []struct {
		env, what string
		dst       *int
	}{
		{"RIGKIT_TOKENIZER_REFINE", "rounds", &tok.RefineRounds},
		{"RIGKIT_TOKENIZER_MINE", "passes", &tok.MinePasses},
	} {
		r := os.Getenv(knob.env)
		if r == "" {
			continue
		}
		n, err := strconv.Atoi(r)
		if err != nil || n < 0 {
			t.Fatalf("%s=%q: want a number of %s", knob.env, r, knob.what)
		}
		if path == "" {
			t.Fatalf("%s changes the shared embedded tokenizer; name a checkpoint", knob.env)
		}
		*knob.dst = n
	}
	return tok
}

// reconstruct encodes and decodes every bone of c (world space) on its own skeleton
// and scores the result, and the rigid floor, with shared/METRICS.md. It also
// returns the codes, and with ablate the score of decoding every bone from one
// constant code list (each slot's most frequent code in c): when that scores like
// the round trip, the decoder ignores the codes.
func reconstruct(tok *tokenizer.SkinTokenizer, c *assets.Character, ablate bool) (rt, floor, abl metrics.SkinResult, codes [][]int, err error) {
	nc := assets.NormalizationOf(c.Mesh).Apply(c)
	codes, err = tok.EncodeAll(nc)
	if err != nil {
		return
	}
	skin, err := tok.Decode(nc, nc.Skeleton, codes)
	if err != nil {
		return
	}
	if rt, err = metrics.SkinMetrics(c, skin, 1); err != nil {
		return
	}
	if floor, err = metrics.SkinMetrics(c, skinning.Rigid(c), 1); err != nil || !ablate {
		return
	}
	constant := make([]int, tok.K())
	for k := range constant {
		count := map[int]int{}
		for _, cs := range codes {
			count[cs[k]]++
			if count[cs[k]] > count[constant[k]] || (count[cs[k]] == count[constant[k]] && cs[k] < constant[k]) {
				constant[k] = cs[k]
			}
		}
	}
	same := make([][]int, len(codes))
	for j := range same {
		same[j] = constant
	}
	if skin, err = tok.Decode(nc, nc.Skeleton, same); err != nil {
		return
	}
	abl, err = metrics.SkinMetrics(c, skin, 1)
	return
}

// codeUsage counts the codes seen in each of the K slots of a set of bones.
type codeUsage struct {
	slots  []map[int]int
	tuples map[string]int
	bones  int
}

func (u *codeUsage) add(codes [][]int) {
	for _, cs := range codes {
		if u.tuples == nil {
			u.tuples = map[string]int{}
			u.slots = make([]map[int]int, len(cs))
			for k := range u.slots {
				u.slots[k] = map[int]int{}
			}
		}
		for k, c := range cs {
			u.slots[k][c]++
		}
		u.tuples[fmt.Sprint(cs)]++
		u.bones++
	}
}

// perplexity is exp(entropy) of a histogram: the effective number of codes used.
func perplexity(h map[int]int) float64 {
	n := 0
	for _, c := range h {
		n += c
	}
	e := 0.0
	for _, c := range h {
		p := float64(c) / float64(n)
		e -= p * math.Log(p)
	}
	return math.Exp(e)
}

// String reports per slot the distinct codes and their perplexity, and the distinct
// code lists.
func (u *codeUsage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d bones, %d distinct code lists of %d codes; per slot distinct codes (perplexity) of %d:", u.bones, len(u.tuples), len(u.slots), tokens.SkinCodebookSize)
	for k := range u.slots {
		fmt.Fprintf(&b, " %d (%.1f)", len(u.slots[k]), perplexity(u.slots[k]))
	}
	return b.String()
}

type evalRow struct {
	Name, Group      string
	Vertices, Joints int
	Tok, Floor, Abl  metrics.SkinResult
	Dense, Sparse    float64
}

type evalAgg struct {
	n                                int
	l1, p, r, def, fl1, fp, fr, fdef float64
	dense, sparse                    float64
	adef, al1                        float64
	orphans                          int
}

func (a *evalAgg) add(r evalRow) {
	a.n++
	a.l1 += r.Tok.L1
	a.p += r.Tok.Precision
	a.r += r.Tok.Recall
	a.def += r.Tok.DeformMean
	a.fl1 += r.Floor.L1
	a.fp += r.Floor.Precision
	a.fr += r.Floor.Recall
	a.fdef += r.Floor.DeformMean
	a.dense += r.Dense
	a.sparse += r.Sparse
	a.adef += r.Abl.DeformMean
	a.al1 += r.Abl.L1
	a.orphans += r.Tok.Orphans
}

func (a *evalAgg) row(name string) string {
	n := float64(max(a.n, 1))
	return fmt.Sprintf("| %s | %d | %.2f | %.2f | %.3f | %.3f | %.3f / %.3f | %.3f / %.3f | %d | %.0f× | %.0f× |",
		name, a.n, a.def/n, a.fdef/n, a.l1/n, a.fl1/n, a.p/n, a.r/n, a.fp/n, a.fr/n, a.orphans, a.dense/n, a.sparse/n)
}

// TestReconstructionReport measures the skin tokenizer's round trip on the held-out
// split of ../shared/data and on held-out synthetic creatures. It is slow (minutes):
// set RIGKIT_TOKENIZER_EVAL to the markdown file to write, RIGKIT_TOKENIZER_CKPT to
// evaluate a checkpoint file instead of the shipped one, and RIGKIT_TOKENIZER_ABLATE=1
// to also decode every bone from one constant code list (how much the codes matter).
func TestReconstructionReport(t *testing.T) {
	out := os.Getenv("RIGKIT_TOKENIZER_EVAL")
	if out == "" {
		t.Skip("set RIGKIT_TOKENIZER_EVAL=report.md to run the reconstruction evaluation")
	}
	ablate := os.Getenv("RIGKIT_TOKENIZER_ABLATE") == "1"
	tok := evalTokenizer(t)
	var realUse, synthUse codeUsage
	files, err := dataset.Discover([]string{dataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]string{}
	if f, err := os.ReadFile(filepath.Join(dataDir(t), "manifest.jsonl")); err == nil {
		for _, line := range strings.Split(string(f), "\n") {
			var row struct{ File, Category string }
			if json.Unmarshal([]byte(line), &row) == nil {
				cats[row.File] = row.Category
			}
		}
	}
	_, val := dataset.Split(files)
	var rows []evalRow
	for _, f := range val {
		c, err := assets.Load(f.Path)
		if err != nil {
			t.Logf("skip %s: %v", f.Path, err)
			continue
		}
		rel, _ := filepath.Rel(dataDir(t), f.Path)
		group := "real, props"
		if cat := cats[filepath.ToSlash(rel)]; cat != "" && cat != "prop/mechanical" {
			group = "real, characters"
		}
		rt, fl, ab, codes, err := reconstruct(tok, c, ablate)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		realUse.add(codes)
		d, s := tokenizer.CompressionRatios(c.Skin, c.Skeleton.NumJoints(), tok.K())
		rows = append(rows, evalRow{Name: rel, Group: group, Vertices: len(c.Mesh.Positions), Joints: c.Skeleton.NumJoints(), Tok: rt, Floor: fl, Abl: ab, Dense: d, Sparse: s})
	}
	// Held-out synthetic creatures: seeds ≡ 0 mod 5 (train-tokenizer trains on the others).
	for i, kind := range synth.Kinds() {
		for _, seed := range []int64{5, 10} {
			c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 2000, Noise: i%2 == 1})
			if err != nil {
				t.Logf("synth %s %d: %v", kind, seed, err)
				continue
			}
			rt, fl, ab, codes, err := reconstruct(tok, c, ablate)
			if err != nil {
				t.Fatalf("synth %s %d: %v", kind, seed, err)
			}
			synthUse.add(codes)
			d, s := tokenizer.CompressionRatios(c.Skin, c.Skeleton.NumJoints(), tok.K())
			rows = append(rows, evalRow{Name: fmt.Sprintf("synth/%s_%d", kind, seed), Group: "synthetic", Vertices: len(c.Mesh.Positions), Joints: c.Skeleton.NumJoints(), Tok: rt, Floor: fl, Abl: ab, Dense: d, Sparse: s})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| split | assets | deformation ×100 (tokens) | deformation ×100 (floor) | L1 (tokens) | L1 (floor) | precision / recall (tokens) | precision / recall (floor) | orphans | compression dense | compression sparse |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	groups := map[string]*evalAgg{}
	all := &evalAgg{}
	for _, r := range rows {
		if groups[r.Group] == nil {
			groups[r.Group] = &evalAgg{}
		}
		groups[r.Group].add(r)
		if r.Group != "synthetic" {
			all.add(r)
		}
	}
	for _, g := range []string{"real, characters", "real, props"} {
		if a := groups[g]; a != nil {
			fmt.Fprintln(&b, a.row("held-out "+g))
		}
	}
	fmt.Fprintln(&b, all.row("held-out real, all"))
	if a := groups["synthetic"]; a != nil {
		fmt.Fprintln(&b, a.row("held-out synthetic"))
	}
	fmt.Fprintf(&b, "\nCode usage, held-out real: %v.\nCode usage, held-out synthetic: %v.\n", &realUse, &synthUse)
	if ablate {
		fmt.Fprintf(&b, "\nOne constant code list per asset instead of the codes (deformation / L1):")
		for _, g := range []string{"real, characters", "real, props", "synthetic"} {
			if a := groups[g]; a != nil {
				n := float64(max(a.n, 1))
				fmt.Fprintf(&b, " %s %.2f / %.3f (tokens %.2f / %.3f);", g, a.adef/n, a.al1/n, a.def/n, a.l1/n)
			}
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintf(&b, "\nPer asset:\n\n| asset | V | J | deformation (tokens / floor) | L1 (tokens / floor) | precision / recall (tokens) |\n|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %.2f / %.2f | %.3f / %.3f | %.3f / %.3f |\n", r.Name, r.Vertices, r.Joints, r.Tok.DeformMean, r.Floor.DeformMean, r.Tok.L1, r.Floor.L1, r.Tok.Precision, r.Tok.Recall)
		if r.Tok.Orphans != 0 || math.IsNaN(r.Tok.L1) {
			t.Errorf("%s: %d orphans, L1 %v", r.Name, r.Tok.Orphans, r.Tok.L1)
		}
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
}

func synth5k(b *testing.B) *assets.Character {
	for seed := int64(1); seed < 40; seed++ {
		g, err := synth.Generate("quadruped", seed, synth.Options{TargetVertices: 5000})
		if err == nil && g.Skeleton.NumJoints() >= 45 && g.Skeleton.NumJoints() <= 55 {
			return assets.NormalizationOf(g.Mesh).Apply(g)
		}
	}
	b.Skip("no synthetic quadruped with 45-55 joints")
	return nil
}

// cpuClock reports the process's CPU time per benchmark iteration as cpu-ms/op next
// to the wall-clock ns/op, which on a shared machine depends on everyone else's load.
type cpuClock struct{ start time.Duration }

func startCPUClock(b *testing.B) *cpuClock {
	b.ResetTimer()
	return &cpuClock{start: processCPUTime()}
}

func (c *cpuClock) report(b *testing.B) {
	if d := processCPUTime() - c.start; d > 0 {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkRigidFloor5k is the baseline of BenchmarkEncodeDecode5k: the rigid
// nearest-bone skin of the same character.
func BenchmarkRigidFloor5k(b *testing.B) {
	nc := synth5k(b)
	clock := startCPUClock(b)
	for i := 0; i < b.N; i++ {
		skinning.Rigid(nc)
	}
	clock.report(b)
}

// BenchmarkEncodeDecode5k encodes and decodes every bone of a synthetic
// ~5,000-vertex creature with about 50 joints (load and normalization excluded).
func BenchmarkEncodeDecode5k(b *testing.B) {
	tok := evalTokenizer(b)
	nc := synth5k(b)
	clock := startCPUClock(b)
	for i := 0; i < b.N; i++ {
		x := nc.Clone() // a fresh character each time, so no cached samples are reused
		codes, err := tok.EncodeAll(x)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tok.Decode(x, x.Skeleton, codes); err != nil {
			b.Fatal(err)
		}
	}
	clock.report(b)
	b.ReportMetric(float64(len(nc.Mesh.Positions)), "vertices")
	b.ReportMetric(float64(nc.Skeleton.NumJoints()), "joints")
}

// BenchmarkDecode5k decodes the codes of every bone of the same creature into a
// skin, what rigging from generated tokens (rig auto) costs.
func BenchmarkDecode5k(b *testing.B) {
	tok := evalTokenizer(b)
	nc := synth5k(b)
	codes, err := tok.EncodeAll(nc)
	if err != nil {
		b.Fatal(err)
	}
	clock := startCPUClock(b)
	for i := 0; i < b.N; i++ {
		if _, err := tok.Decode(nc, nc.Skeleton, codes); err != nil {
			b.Fatal(err)
		}
	}
	clock.report(b)
}

// TestTuneThreshold prints the round-trip metrics of several pruning thresholds (and
// sharpening powers, odds powers and snap shares) on training files (never the
// held-out split), to choose the decode settings a checkpoint is exported with. Set
// RIGKIT_TOKENIZER_TUNE=N to run it on N training files.
func TestTuneThreshold(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("RIGKIT_TOKENIZER_TUNE"))
	if n <= 0 {
		t.Skip("set RIGKIT_TOKENIZER_TUNE=N to tune the pruning threshold on N training files")
	}
	tok := evalTokenizer(t)
	files, err := dataset.Discover([]string{dataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	train, _ := dataset.Split(files)
	thresholds := []float64{0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5}
	// Decode settings to sweep with every threshold, each a comma-separated list
	// (default: the tokenizer's own): RIGKIT_TOKENIZER_SHARPEN (Sharpen),
	// RIGKIT_TOKENIZER_ODDS_SWEEP (OddsPower), RIGKIT_TOKENIZER_SNAP_SWEEP (SnapShare).
	gammas := sweepList(t, "RIGKIT_TOKENIZER_SHARPEN", tok.Sharpen)
	odds := sweepList(t, "RIGKIT_TOKENIZER_ODDS_SWEEP", tok.OddsPower)
	snaps := sweepList(t, "RIGKIT_TOKENIZER_SNAP_SWEEP", tok.SnapShare)
	type setting struct{ gamma, odds, th, snap float64 }
	var settings []setting
	for _, g := range gammas {
		for _, o := range odds {
			for _, th := range thresholds {
				for _, sn := range snaps {
					settings = append(settings, setting{g, o, th, sn})
				}
			}
		}
	}
	sums := make([][4]float64, len(settings))
	var floor [4]float64
	used := 0
	for i := 0; i < len(train) && used < n; i += max(1, len(train)/n) {
		c, err := assets.Load(train[i].Path)
		if err != nil {
			continue
		}
		used++
		nc := assets.NormalizationOf(c.Mesh).Apply(c)
		codes, err := tok.EncodeAll(nc)
		if err != nil {
			t.Fatal(err)
		}
		probs, err := tok.Probabilities(nc, nc.Skeleton, codes)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := metrics.SkinMetrics(c, skinning.Rigid(c), 1)
		if err != nil {
			t.Fatal(err)
		}
		floor[0] += fr.DeformMean
		floor[1] += fr.L1
		floor[2] += fr.Precision
		floor[3] += fr.Recall
		for k, st := range settings {
			p := append([]float32(nil), probs...)
			tokenizer.SharpenProbabilities(p, st.gamma, st.odds)
			skin := tokenizer.SkinFromProbabilities(p, c.Skeleton.NumJoints(), tok.MaxInfluences, st.th)
			tokenizer.SnapPieces(&nc.Mesh, skin, st.snap)
			r, err := metrics.SkinMetrics(c, skin, 1)
			if err != nil {
				t.Fatal(err)
			}
			s := &sums[k]
			s[0] += r.DeformMean
			s[1] += r.L1
			s[2] += r.Precision
			s[3] += r.Recall
		}
	}
	u := float64(max(used, 1))
	t.Logf("rigid floor on %d files: deformation %.3f L1 %.3f precision %.3f recall %.3f", used, floor[0]/u, floor[1]/u, floor[2]/u, floor[3]/u)
	for k, st := range settings {
		s := sums[k]
		t.Logf("sharpen %.2g odds %.2g threshold %.2f snap %.2g on %d files: deformation %.3f L1 %.3f precision %.3f recall %.3f", st.gamma, st.odds, st.th, st.snap, used, s[0]/u, s[1]/u, s[2]/u, s[3]/u)
	}
}

// sweepList parses the comma-separated numbers in the environment variable env, or
// returns def alone when it is unset.
func sweepList(t *testing.T, env string, def float64) []float64 {
	v := os.Getenv(env)
	if v == "" {
		return []float64{def}
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", env, v, err)
		}
		out = append(out, x)
	}
	return out
}

// encodeSynth generates a synthetic creature, normalizes it into the cube and
// encodes all its bones with tok.
func encodeSynth(t *testing.T, tok *tokenizer.SkinTokenizer, kind string, seed int64, vertices int) (*assets.Character, [][]int) {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: vertices})
	if err != nil {
		t.Fatal(err)
	}
	nc := assets.NormalizationOf(c.Mesh).Apply(c)
	codes, err := tok.EncodeAll(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, codes
}

// TestCoarseToFine checks the coarse-to-fine decoder against decoding every vertex
// for every bone, with the shipped checkpoint, on a synthetic creature.
func TestCoarseToFine(t *testing.T) {
	tok := evalTokenizer(t)
	nc, codes := encodeSynth(t, tok, "quadruped", 2, 2500)
	fast, err := tok.Decode(nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	tok.Exhaustive = true
	slow, err := tok.Decode(nc, nc.Skeleton, codes)
	tok.Exhaustive = false
	if err != nil {
		t.Fatal(err)
	}
	nJ := nc.Skeleton.NumJoints()
	df, ds := fast.Dense(nJ), slow.Dense(nJ)
	var l1, worst float64
	for v := range df {
		d := 0.0
		for j := range df[v] {
			d += math.Abs(df[v][j] - ds[v][j])
		}
		l1 += d
		worst = max(worst, d)
	}
	l1 /= float64(len(df))
	t.Logf("coarse-to-fine vs exhaustive on %d vertices, %d joints: mean L1 %.5f, worst vertex %.3f", len(df), nJ, l1, worst)
	if l1 > 0.01 {
		t.Fatalf("coarse-to-fine differs from exhaustive decoding by L1 %.4f per vertex", l1)
	}
}

// TestMeanProbabilitiesShared checks, with the trained tokenizer on a creature large
// enough for the coarse-to-fine passes, that the mean of code sets which share some
// bones' codes (and repeat a set) equals the average of decoding each set on its own.
func TestMeanProbabilitiesShared(t *testing.T) {
	tok, err := tokenizer.LoadSkinTokenizer(filepath.Join("checkpoints", "skin.safetensors"))
	if err != nil {
		t.Skipf("no trained checkpoint: %v", err)
	}
	tok.RefineRounds = 0 // this process's copy; the encoder's codes are enough here
	nc, a := encodeSynth(t, tok, "biped", 3, 2500)
	mix := make([][]int, len(a)) // odd bones get other codes, even bones share a's
	for j := range a {
		mix[j] = a[j]
		if j%2 == 1 {
			mix[j] = append([]int(nil), a[j]...)
			mix[j][0], mix[j][2] = (j*37)%tokens.SkinCodebookSize, 3
		}
	}
	pa, err := tok.Probabilities(nc, nc.Skeleton, a)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := tok.Probabilities(nc, nc.Skeleton, mix)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tok.MeanProbabilities(nc, nc.Skeleton, [][][]int{mix, a, a})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := (pm[i] + 2*pa[i]) / 3; math.Abs(float64(got[i]-want)) > 1e-5 {
			t.Fatalf("value %d (vertex %d, joint %d): %v, want %v", i, i/len(a), i%len(a), got[i], want)
		}
	}
}
