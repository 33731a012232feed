package skincodec

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// tube returns a rigged character built in code: a bent tube around a 3-joint chain
// (plus a branch), skinned by a smooth falloff from each bone. It is in the cube.
func tube() *character.Character {
	sk := &character.Skeleton{
		Names:   []string{"root", "mid", "tip", "side"},
		Parents: []int{-1, 0, 1, 0},
		BindWorld: []vecmath.Mat4{
			vecmath.Translate4(vecmath.Vec3{0, -0.9, 0}),
			vecmath.Translate4(vecmath.Vec3{0, 0, 0}),
			vecmath.Translate4(vecmath.Vec3{0, 0.9, 0}),
			vecmath.Translate4(vecmath.Vec3{0.3, -0.6, 0}),
		},
	}
	var m character.Mesh
	const rings, seg = 24, 12
	for r := 0; r <= rings; r++ {
		y := -1 + 2*float64(r)/rings
		for s := 0; s < seg; s++ {
			a := 2 * math.Pi * float64(s) / seg
			m.Positions = append(m.Positions, vecmath.Vec3{0.25 * math.Cos(a), y, 0.25 * math.Sin(a)})
		}
	}
	for r := 0; r < rings; r++ {
		for s := 0; s < seg; s++ {
			a, b := r*seg+s, r*seg+(s+1)%seg
			c, d := a+seg, b+seg
			m.Triangles = append(m.Triangles, [3]int{a, c, b}, [3]int{b, c, d})
		}
	}
	c := &character.Character{Name: "tube", Mesh: m, Skeleton: sk}
	dense := make([][]float64, len(m.Positions))
	for v, p := range m.Positions {
		dense[v] = make([]float64, 4)
		for j := 0; j < 3; j++ {
			d := math.Abs(p[1] - sk.Position(j)[1])
			dense[v][j] = math.Max(0, 1-d/0.7)
		}
		if p[0] > 0.1 && p[1] < -0.4 {
			dense[v][3] = 0.5
		}
	}
	c.Skin = character.SkinFromDense(dense, 4)
	c.Mesh.Normals = c.Mesh.ComputeNormals()
	return c
}

func TestSkinTokenizerRoundTrip(t *testing.T) {
	tok, err := NewSkinTokenizer(DefaultCVAEConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	c := tube()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	codes, err := tok.EncodeAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != c.Skeleton.NumJoints() {
		t.Fatalf("%d code lists for %d joints", len(codes), c.Skeleton.NumJoints())
	}
	for j, cs := range codes {
		if len(cs) != tokens.DefaultK {
			t.Fatalf("joint %d: %d codes", j, len(cs))
		}
		for _, x := range cs {
			if x < 0 || x >= tokens.SkinCodebookSize {
				t.Fatalf("joint %d: code %d out of range", j, x)
			}
		}
		one, err := tok.encode(c, j)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one, cs) {
			t.Fatalf("joint %d: Encode %v, EncodeAll %v (encoding must be deterministic)", j, one, cs)
		}
	}
	skin, err := tok.Decode(c, c.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	if err := skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
		t.Fatalf("decoded skin: %v", err)
	}
	for v, infl := range skin.Weights {
		if len(infl) > tok.MaxInfluences {
			t.Fatalf("vertex %d has %d influences", v, len(infl))
		}
	}

	// Save and load give the same codes and weights.
	var buf bytes.Buffer
	if err := tok.write(&buf); err != nil {
		t.Fatal(err)
	}
	tok2, err := readSkinTokenizer(&buf)
	if err != nil {
		t.Fatal(err)
	}
	codes2, err := tok2.EncodeAll(c.Clone())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(codes, codes2, slices.Equal[[]int]) {
		t.Fatalf("codes changed after save/load: %v vs %v", codes, codes2)
	}
	p1, _ := tok.Probabilities(c, c.Skeleton, codes)
	p2, _ := tok2.Probabilities(c, c.Skeleton, codes)
	if !slices.Equal(p1, p2) {
		t.Fatal("decoded weights changed after save/load")
	}
}

func TestSkinTokenizerErrors(t *testing.T) {
	tok, err := NewSkinTokenizer(DefaultCVAEConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	c := tube()
	codes, _ := tok.EncodeAll(c)
	bad := slices.Clone(codes)
	bad[0] = []int{tokens.SkinCodebookSize, 0, 0, 0}
	unskinned := c.Clone()
	unskinned.Skin = nil
	tests := []struct {
		name string
		run  func() error
	}{
		{"too few code lists", func() error { _, err := tok.Decode(c, c.Skeleton, codes[:2]); return err }},
		{"code out of range", func() error { _, err := tok.Decode(c, c.Skeleton, bad); return err }},
		{"short code list", func() error {
			_, err := tok.Decode(c, c.Skeleton, append([][]int{{1}}, codes[1:]...))
			return err
		}},
		{"joint out of range", func() error { _, err := tok.encode(c, 9); return err }},
		{"no skin", func() error { _, err := tok.EncodeAll(unskinned); return err }},
		{"bad checkpoint", func() error { _, err := readSkinTokenizer(bytes.NewReader([]byte("nonsense"))); return err }},
	}
	for _, tt := range tests {
		if err := tt.run(); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestSkinFromProbs(t *testing.T) {
	tests := []struct {
		name  string
		probs []float32
		want  [][]character.Influence
	}{
		{"top influences normalized", []float32{0.9, 0.3, 0, 0}, [][]character.Influence{{{Joint: 0, Weight: 0.75}, {Joint: 1, Weight: 0.25}}}},
		{"small dropped", []float32{0.99, 0.01, 0, 0}, [][]character.Influence{{{Joint: 0, Weight: 1}}}},
		{"all zero keeps one", []float32{0, 0, 0, 0}, [][]character.Influence{{{Joint: 0, Weight: 1}}}},
		{"at most two", []float32{0.5, 0.5, 0.5, 0.5}, [][]character.Influence{{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := skinFromProbabilities(tt.probs, 4, 2, 0.05)
			if len(got.Weights) != 1 || len(got.Weights[0]) != len(tt.want[0]) {
				t.Fatalf("got %v, want %v", got.Weights, tt.want)
			}
			for i, in := range got.Weights[0] {
				w := tt.want[0][i]
				if in.Joint != w.Joint || math.Abs(in.Weight-w.Weight) > 1e-6 {
					t.Fatalf("got %v, want %v", got.Weights, tt.want)
				}
			}
		})
	}
}

func TestSharpenProbabilities(t *testing.T) {
	tests := []struct {
		name        string
		gamma, odds float64
		probs       []float32
		want        []character.Influence
	}{
		{"none", 0, 0, []float32{0.6, 0.3, 0, 0}, []character.Influence{{Joint: 0, Weight: 2.0 / 3}, {Joint: 1, Weight: 1.0 / 3}}},
		{"power 1 is none", 1, 0, []float32{0.6, 0.3, 0, 0}, []character.Influence{{Joint: 0, Weight: 2.0 / 3}, {Joint: 1, Weight: 1.0 / 3}}},
		{"squared", 2, 0, []float32{0.6, 0.3, 0, 0}, []character.Influence{{Joint: 0, Weight: 0.8}, {Joint: 1, Weight: 0.2}}},
		{"a minor weight falls under the threshold", 2, 0, []float32{0.8, 0.16, 0, 0}, []character.Influence{{Joint: 0, Weight: 1}}},
		{"equal weights stay equal", 3, 0, []float32{0.4, 0.4, 0, 0}, []character.Influence{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}},
		// 0.6/0.4 = 1.5 and 0.3/0.7 = 3/7: the softmax of the logits.
		{"odds", 1, 1, []float32{0.6, 0.3, 0, 0}, []character.Influence{{Joint: 0, Weight: 1.5 / (1.5 + 3.0/7)}, {Joint: 1, Weight: (3.0 / 7) / (1.5 + 3.0/7)}}},
		// 0.6²/0.4^0.5 and 0.3²/0.7^0.5.
		{"squared over root", 2, 0.5, []float32{0.6, 0.3, 0, 0}, []character.Influence{
			{Joint: 0, Weight: 0.36 / math.Sqrt(0.4) / (0.36/math.Sqrt(0.4) + 0.09/math.Sqrt(0.7))},
			{Joint: 1, Weight: 0.09 / math.Sqrt(0.7) / (0.36/math.Sqrt(0.4) + 0.09/math.Sqrt(0.7))}}},
		{"a sure weight stays finite", 1, 1, []float32{1, 0.5, 0, 0}, []character.Influence{{Joint: 0, Weight: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := append([]float32(nil), tt.probs...)
			sharpenProbabilities(p, tt.gamma, tt.odds)
			got := skinFromProbabilities(p, 4, 2, 0.05)
			if len(got.Weights[0]) != len(tt.want) {
				t.Fatalf("got %v, want %v", got.Weights[0], tt.want)
			}
			for i, in := range got.Weights[0] {
				if in.Joint != tt.want[i].Joint || math.Abs(in.Weight-tt.want[i].Weight) > 1e-6 {
					t.Fatalf("got %v, want %v", got.Weights[0], tt.want)
				}
			}
		})
	}
}

func TestTokenizeDetokenize(t *testing.T) {
	tok, err := NewSkinTokenizer(DefaultCVAEConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	// A world-space character: scale and move the tube.
	c := character.Normalization{Center: vecmath.Vec3{-3, 1, 2}, Scale: 0.5}.Invert(tube())
	sf, codes, err := Tokenize(c, tok, tok.Options())
	if err != nil {
		t.Fatal(err)
	}
	if sf.K != tok.K() {
		t.Fatalf("stream file records K = %d, the tokenizer has %d", sf.K, tok.K())
	}
	if _, err := tokens.NewGrammar(tokens.MaxJoints, tok.K()).Run(sf.Tokens); err != nil {
		t.Fatalf("tokenized stream breaks the grammar: %v", err)
	}
	if sf.Joints != 4 || len(codes) != 4 || len(sf.Names) != 4 {
		t.Fatalf("joints %d, codes %d, names %v", sf.Joints, len(codes), sf.Names)
	}
	rig, err := Detokenize(sf.Tokens, sf.Names, c, tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := rig.Validate(); err != nil {
		t.Fatalf("detokenized rig: %v", err)
	}
	for i, j := range sf.Order {
		if rig.Skeleton.Names[i] != c.Skeleton.Names[j] {
			t.Fatalf("joint %d named %q, want %q", i, rig.Skeleton.Names[i], c.Skeleton.Names[j])
		}
		// World positions within half a bin (in world units: 1/256 per axis / Scale).
		if d := rig.Skeleton.Position(i).Dist(c.Skeleton.Position(j)); d > math.Sqrt(3)/tokens.CoordBins/0.5+1e-9 {
			t.Fatalf("joint %q moved by %g", c.Skeleton.Names[j], d)
		}
	}
	if readable(sf.Tokens) == "" {
		t.Fatal("empty readable form")
	}
}

func TestAugmentationKeepsDistances(t *testing.T) {
	// Rotating all vectors of a row about +Y (and mirroring) keeps |p - head|.
	rng := rand.New(rand.NewSource(5))
	row := make([]float32, queryFeatures)
	for i := range row {
		row[i] = float32(rng.NormFloat64())
	}
	before := math.Hypot(math.Hypot(float64(row[6]), float64(row[7])), float64(row[8]))
	transformRows(row, queryFeatures, 4, rotY(1.1).mul(mirrorX))
	after := math.Hypot(math.Hypot(float64(row[6]), float64(row[7])), float64(row[8]))
	if math.Abs(before-after) > 1e-5 {
		t.Fatalf("|p-head| %v → %v", before, after)
	}
}

// TestDecodedSkeletonMatches checks that the skin decoder gives the same weights on
// a character's own skeleton as on the skeleton decoded from its tokens (joints in
// token order): the tokenizer snaps joints to their bins, so both look the same.
func TestDecodedSkeletonMatches(t *testing.T) {
	tok, err := NewSkinTokenizer(DefaultCVAEConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	c := tube()
	codes, err := tok.EncodeAll(c)
	if err != nil {
		t.Fatal(err)
	}
	skel, order, err := tokens.EncodeSkeleton(c.Skeleton, character.Normalization{Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := tokens.DecodeSkeleton(skel)
	if err != nil {
		t.Fatal(err)
	}
	permuted := make([][]int, len(order))
	for i, j := range order {
		permuted[i] = codes[j]
	}
	own, err := tok.Probabilities(c, c.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	fromTokens, err := tok.Probabilities(c, dec, permuted)
	if err != nil {
		t.Fatal(err)
	}
	nJ := len(order)
	for v := 0; v < len(c.Mesh.Positions); v++ {
		for i, j := range order {
			if a, b := own[v*nJ+j], fromTokens[v*nJ+i]; math.Abs(float64(a-b)) > 1e-5 {
				t.Fatalf("vertex %d joint %d: %v on its own skeleton, %v on the decoded one", v, j, a, b)
			}
		}
	}
}

// TestExportCheckpoint exports a run's best and latest checkpoints and checks the
// facts: the step and validation loss of the exported checkpoint, the threshold.
func TestExportCheckpoint(t *testing.T) {
	dir := t.TempDir()
	run := dir + "/run.safetensors"
	tok, err := NewSkinTokenizer(CVAEConfig{D: 8, Heads: 2, Hidden: 8, K: tokens.DefaultK, Latents: 2, Blocks: 1, Levels: tokens.SkinLevels[:], Prior: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := tok.Save(run); err != nil {
		t.Fatal(err)
	}
	if err := tok.Save(BestPath(run)); err != nil {
		t.Fatal(err)
	}
	st := TrainState{Step: 1000, WallSec: 100, TrainCurves: TrainCurves{ValStep: []int{500, 1000}, ValLoss: []float64{0.4, 0.45}, BestVal: 0.4, BestStep: 500},
		TrainData: TrainData{TrainFiles: []string{"a", "b", "c"}, ValFiles: []string{"d"}, Extra: 5}}
	writeState := func() {
		b, _ := json.Marshal(st)
		if err := os.WriteFile(run+".state.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeState()
	dst := dir + "/ship/skin.safetensors"
	if err := os.MkdirAll(dir+"/ship", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src       string
		step      int
		val, wall float64
		ds        DecodeSettings
	}{
		{BestPath(run), 500, 0.4, 50, DecodeSettings{Threshold: 0.3}},
		{run, 1000, 0.45, 100, DecodeSettings{Threshold: 0.2, Sharpen: 1.5, OddsPower: 0.5, SnapShare: 0.8}},
	} {
		f, err := ExportCheckpoint(tc.src, run, dst, tc.ds)
		if err != nil {
			t.Fatal(err)
		}
		if f.Step != tc.step || f.ValLoss != tc.val || f.WallSeconds != tc.wall || f.TrainFiles != 3 || f.ValFiles != 1 || f.Synthetic != 5 {
			t.Errorf("export %s: facts %+v", tc.src, f)
		}
		var onDisk ShipFacts
		b, err := os.ReadFile(dir + "/ship/skin.json")
		if err != nil || json.Unmarshal(b, &onDisk) != nil || onDisk.Step != tc.step {
			t.Errorf("export %s: skin.json %s (%v)", tc.src, b, err)
		}
		got, err := Load(dst)
		if err != nil {
			t.Fatal(err)
		}
		facts := DecodeSettings{f.Threshold, f.Sharpen, f.OddsPower, f.SnapShare}
		if kept := got.Options().DecodeSettings; kept != tc.ds || facts != tc.ds {
			t.Errorf("export %s: checkpoint keeps %+v, facts say %+v; want %+v", tc.src, kept, facts, tc.ds)
		}
	}
	// A latest checkpoint written between validations has no validation loss.
	st.Step = 1100
	writeState()
	if _, err := ExportCheckpoint(run, run, dst, DecodeSettings{Threshold: 0.3}); err == nil {
		t.Error("exported a checkpoint with no validation loss at its step")
	}
}
