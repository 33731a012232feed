package sampler

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/tokens"
)

// TestPlanSkinWindows checks that the windows of any skeleton own every joint
// once, hold at most the stream's joints, list parents first, and number about
// J / (¾·capacity), so that the work grows linearly with the joint count.
func TestPlanSkinWindows(t *testing.T) {
	chain := func(n int) []int { // one limb: the deepest hierarchy
		p := make([]int, n)
		for j := range p {
			p[j] = j - 1
		}
		return p
	}
	star := func(n int) []int { // one root with n-1 leaves: the widest
		p := make([]int, n)
		for j := range p {
			p[j] = min(j-1, 0)
		}
		return p
	}
	forest := func(n int) []int { // roots every 5 joints
		p := chain(n)
		for j := 0; j < n; j += 5 {
			p[j] = -1
		}
		return p
	}
	tests := []struct {
		name     string
		parents  []int
		capacity int
		windows  int
	}{
		{"fits", chain(78), 78, 1},
		{"one joint", chain(1), 78, 1},
		{"chain 80", chain(80), 78, 2},
		{"chain 256", chain(256), 78, 5},
		{"star 256", star(256), 78, 5},
		{"forest 200", forest(200), 32, 9},
		{"small capacity", chain(10), 2, 10},
		{"capacity 1", star(5), 1, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := planSkinWindows(tc.parents, tc.capacity)
			if len(ws) != tc.windows {
				t.Errorf("%d windows, want %d", len(ws), tc.windows)
			}
			owners := make([]int, len(tc.parents))
			for wi, w := range ws {
				if len(w.joints) > tc.capacity || len(w.joints) != len(w.owned) {
					t.Fatalf("window %d: %d joints, %d owned flags, capacity %d", wi, len(w.joints), len(w.owned), tc.capacity)
				}
				for i, j := range w.joints {
					if i > 0 && j <= w.joints[i-1] {
						t.Fatalf("window %d: joints %v not increasing", wi, w.joints)
					}
					if w.owned[i] {
						owners[j]++
					}
				}
			}
			for j, n := range owners {
				if n != 1 {
					t.Fatalf("joint %d owned by %d windows", j, n)
				}
			}
		})
	}
}

// TestSkinWithAnySize skins skeletons of 1 to 256 joints on the same mesh with a
// model whose streams hold 32 joints: every joint gets one code row of K codes in
// every stream, and the skin is valid for the whole skeleton.
func TestSkinWithAnySize(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 12)
	if err != nil {
		t.Fatal(err)
	}
	base := modeltest.Rig(t)
	for _, n := range []int{1, 2, 31, 32, 33, 64, 80, 128, 256} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := base.Clone()
			c.Skeleton = modeltest.SkeletonOfSize(t, base.Skeleton, n)
			c.Skin = nil
			if err := c.Skeleton.Validate(); err != nil {
				t.Fatal(err)
			}
			var sets [][][]int
			var mean bool
			r := &Generator{Model: m, Skin: meanDecoder{&sets, &mean}, SkinMode: SkinFromTokens, Seed: 1, SkinSamples: 3}
			skin, err := r.SkinOnly(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := skin.Validate(len(c.Mesh.Positions), n, 1e-6); err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				return // one joint takes every vertex; no codes are written
			}
			checkCodeSets(t, sets, 3, n, m.Cfg.K())
			if want := skinOfCodes(t, c, sets[0]); fmt.Sprint(want.Weights) != fmt.Sprint(skin.Weights) {
				t.Error("the skin is not the decoded weights of the first code set on c's own joint order")
			}
		})
	}
}

// checkCodeSets fails unless sets holds n code sets of one row of k codes per
// joint of nJ.
func checkCodeSets(t *testing.T, sets [][][]int, n, nJ, k int) {
	t.Helper()
	if len(sets) != n {
		t.Fatalf("%d code sets, want %d", len(sets), n)
	}
	for s, codes := range sets {
		if len(codes) != nJ {
			t.Fatalf("set %d: %d code rows for %d joints", s, len(codes), nJ)
		}
		for j, row := range codes {
			if len(row) != k {
				t.Fatalf("set %d joint %d: %d codes, want %d", s, j, len(row), k)
			}
		}
	}
}

// skinOfCodes is what the test decoder makes of codes on c's own skeleton: rigid
// weights, which map back to c's joints only when the joint order is right.
func skinOfCodes(t *testing.T, c *character.Character, codes [][]int) *character.Skin {
	t.Helper()
	norm := character.NormalizationOf(c.Mesh)
	cube := norm.Apply(&character.Character{Name: c.Name, Mesh: c.Mesh})
	sk := tokens.SkeletonToCube(c.Skeleton, norm)
	skin, err := rigidDecoder{}.Decode(cube, sk, codes)
	if err != nil {
		t.Fatal(err)
	}
	return skin
}

// TestGenerateStopsAfterSkinJoints checks that SkinJoints ends each stream right
// after the skin codes of its first joints, greedy or sampled, and that the codes
// written are those of the stream that runs to EOS.
func TestGenerateStopsAfterSkinJoints(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 7)
	if err != nil {
		t.Fatal(err)
	}
	c := modeltest.Rig(t)
	norm := character.NormalizationOf(c.Mesh)
	prompt, _, err := tokens.EncodeSkeleton(c.Skeleton, norm)
	if err != nil {
		t.Fatal(err)
	}
	nm, _ := rigmodel.NormalizedMesh(&c.Mesh)
	lat, err := m.Encode(rigmodel.SamplePoints(&nm, modeltest.TinyConfig.Points, rand.New(rand.NewSource(1))), nil)
	if err != nil {
		t.Fatal(err)
	}
	k := m.Cfg.K()
	run := func(opts []SampleOptions) []*Sampled {
		sess, err := m.NewSession(lat)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := GenerateN(sess, prompt, opts, rand.New(rand.NewSource(3)))
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	full := run([]SampleOptions{{K: k}, {K: k, Temperature: 1}})
	for _, joints := range []int{1, 3, c.Skeleton.NumJoints()} {
		rows := run([]SampleOptions{{K: k, SkinJoints: joints}, {K: k, SkinJoints: joints, Temperature: 1}})
		for i, row := range rows {
			if got := len(row.Tokens) - len(prompt); got != joints*k {
				t.Fatalf("%d joints, row %d: %d skin tokens, want %d", joints, i, got, joints*k)
			}
			if fmt.Sprint(row.Tokens) != fmt.Sprint(full[i].Tokens[:len(row.Tokens)]) {
				t.Errorf("%d joints, row %d: codes differ from the full stream's", joints, i)
			}
		}
	}
}
