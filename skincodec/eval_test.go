package skincodec_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/cputime"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// evalTokenizer is the shipped tokenizer (shared: tests only read it).
func evalTokenizer(t testing.TB) *skincodec.SkinTokenizer {
	tok, err := skincodec.Load("")
	if err != nil {
		t.Skipf("no shipped checkpoint: %v", err)
	}
	return tok
}

// fastTokenizer is the shipped tokenizer with options that encode without the code
// search (refinement and mining), which is most of an encode's cost and is not what
// the report tests check.
func fastTokenizer(t testing.TB) (*skincodec.SkinTokenizer, skincodec.Options) {
	tok := evalTokenizer(t)
	opt := tok.Options()
	opt.RefineRounds, opt.MinePasses = 0, 0
	return tok, opt
}

// TestRoundTripReport measures the round trip of two small synthetic creatures and
// checks what the report promises: the codes beat the rigid floor, leave no vertex
// without weight, and the ablation and the tables are written.
func TestRoundTripReport(t *testing.T) {
	tok, opt := fastTokenizer(t)
	rep := skincodec.RoundTripReport{Ablate: true}
	for _, kind := range []string{"biped", "quadruped"} {
		c, err := synth.Generate(kind, 5, synth.Options{TargetVertices: 600})
		if err != nil {
			t.Fatal(err)
		}
		r, err := skincodec.MeasureRoundTrip(tok, c, opt, true)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if len(r.Codes) != c.Skeleton.NumJoints() || r.Joints != c.Skeleton.NumJoints() {
			t.Fatalf("%s: %d code lists for %d joints", kind, len(r.Codes), c.Skeleton.NumJoints())
		}
		if !(r.Tokens.DeformMean < r.Floor.DeformMean) {
			t.Errorf("%s: round trip deformation %.3f, rigid floor %.3f", kind, r.Tokens.DeformMean, r.Floor.DeformMean)
		}
		if r.Constant.L1 == 0 {
			t.Errorf("%s: ablation not measured", kind)
		}
		rep.Add("synth/"+kind, skincodec.GroupSynthetic, r)
	}
	if f := rep.Faults(); len(f) > 0 {
		t.Errorf("faults: %v", f)
	}
	md := rep.Markdown()
	for _, want := range []string{"| held-out synthetic | 2 |", "Code usage, held-out synthetic: ", "One constant code list", "| synth/biped |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestDecodeSweep sweeps two thresholds on a small creature: the setting the
// checkpoint ships with is among them and the sweep reproduces its round trip.
func TestDecodeSweep(t *testing.T) {
	tok, opt := fastTokenizer(t)
	c, err := synth.Generate("biped", 5, synth.Options{TargetVertices: 600})
	if err != nil {
		t.Fatal(err)
	}
	sw := skincodec.DecodeSweep{Settings: skincodec.DecodeGrid([]float64{opt.Sharpen}, []float64{opt.OddsPower}, []float64{opt.Threshold, 0.5}, []float64{opt.SnapShare})}
	if err := sw.Add(tok, c, opt); err != nil {
		t.Fatal(err)
	}
	own, floor := sw.Mean(0)
	if !(own.DeformMean < floor.DeformMean) || own.Orphans != 0 {
		t.Errorf("own setting: deformation %.3f (floor %.3f), %d orphans", own.DeformMean, floor.DeformMean, own.Orphans)
	}
	if md := sw.Markdown(); !strings.Contains(md, "(best)") || !strings.Contains(md, "rigid floor") {
		t.Errorf("sweep table:\n%s", md)
	}
}

func synth5k(b *testing.B) *character.Character {
	for seed := int64(1); seed < 40; seed++ {
		g, err := synth.Generate("quadruped", seed, synth.Options{TargetVertices: 5000})
		if err == nil && g.Skeleton.NumJoints() >= 45 && g.Skeleton.NumJoints() <= 55 {
			return character.NormalizationOf(g.Mesh).Apply(g)
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
	return &cpuClock{start: cputime.Process()}
}

func (c *cpuClock) report(b *testing.B) {
	if d := cputime.Process() - c.start; d > 0 {
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

// encodeSynth generates a synthetic creature, normalizes it into the cube and
// encodes all its bones with tok.
func encodeSynth(t *testing.T, tok *skincodec.SkinTokenizer, opt skincodec.Options, kind string, seed int64, vertices int) (*character.Character, [][]int) {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: vertices})
	if err != nil {
		t.Fatal(err)
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c)
	codes, err := tok.EncodeAllWith(nc, opt)
	if err != nil {
		t.Fatal(err)
	}
	return nc, codes
}

// TestCoarseToFine checks the coarse-to-fine decoder against decoding every vertex
// for every bone, with the shipped checkpoint, on a synthetic creature.
func TestCoarseToFine(t *testing.T) {
	tok := evalTokenizer(t)
	nc, codes := encodeSynth(t, tok, tok.Options(), "quadruped", 2, 2500)
	fast, err := tok.Decode(nc, nc.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	exhaustive := tok.Options()
	exhaustive.Exhaustive = true
	slow, err := tok.DecodeWith(context.Background(), nc, nc.Skeleton, [][][]int{codes}, exhaustive)
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
	tok, err := skincodec.Load(filepath.Join("checkpoints", "skin.safetensors"))
	if err != nil {
		t.Skipf("no trained checkpoint: %v", err)
	}
	opt := tok.Options()
	opt.RefineRounds = 0 // the encoder's codes are enough here
	nc, a := encodeSynth(t, tok, opt, "biped", 3, 2500)
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
