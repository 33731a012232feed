package train

import (
	"fmt"
	mrand "math/rand"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

func TestCachedCodes(t *testing.T) {
	codes := [][]int{{1, 2}, {3, 4}, {5, 6}}
	tests := []struct {
		name    string
		order   tokens.Order
		want    string
		wantErr bool
	}{
		{"own order", tokens.Order{0, 1, 2}, "[[1 2] [3 4] [5 6]]", false},
		{"token order", tokens.Order{2, 0, 1}, "[[5 6] [1 2] [3 4]]", false},
		{"too few joints", tokens.Order{0, 1}, "", true},
		{"joint out of range", tokens.Order{0, 1, 3}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cachedCodes{k: 2, codes: codes}.EncodeSkin(nil, tc.order)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if err == nil && fmt.Sprint(got) != tc.want {
				t.Errorf("codes %v, want %s", got, tc.want)
			}
		})
	}
}

// countingSkin is modeltest.FakeSkin that counts its encodes.
type countingSkin struct {
	modeltest.FakeSkin
	calls *int
}

func (c countingSkin) EncodeSkin(ch *character.Character, order tokens.Order) ([][]int, error) {
	*c.calls++
	return c.FakeSkin.EncodeSkin(ch, order)
}

// TestCodeSetIsKeptBesideTheCheckpoint checks that the code set encodes each
// character once, that a second run reads the file instead of encoding, and that
// another tokenizer or a changed rig is encoded again.
func TestCodeSetIsKeptBesideTheCheckpoint(t *testing.T) {
	base := modeltest.Rig(t)
	moved := base.Clone()
	moved.Mesh.Positions[0][0] += 0.01
	calls := 0
	opt := Options{Out: filepath.Join(t.TempDir(), "m.safetensors"), SkinID: "tokA",
		Skin: countingSkin{modeltest.FakeSkin{Seed: 3}, &calls}, Data: Data{Workers: 1}}
	steps := []struct {
		name  string
		id    string
		chars []*character.Character
		calls int
	}{
		{"first run encodes", "tokA", []*character.Character{base, base.Clone()}, 2},
		{"second run reads the file", "tokA", []*character.Character{base, base.Clone()}, 0},
		{"a changed rig is encoded", "tokA", []*character.Character{base, moved}, 1},
		{"another tokenizer encodes all", "tokB", []*character.Character{base, moved}, 2},
	}
	for _, st := range steps {
		calls = 0
		opt.SkinID = st.id
		set, err := buildCodeSet(opt, st.chars)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if calls != st.calls {
			t.Errorf("%s: %d encodes, want %d", st.name, calls, st.calls)
		}
		want, _ := encodeOwnOrder(base, modeltest.FakeSkin{Seed: 3})
		if fmt.Sprint(set.codes[0]) != fmt.Sprint(want) {
			t.Errorf("%s: codes %v, want %v", st.name, set.codes[0], want)
		}
	}
}

// sharedRig loads a rig of ../shared/data, skipping the test without it.
func sharedRig(t testing.TB, rel string) *character.Character {
	t.Helper()
	path := meshtest.SharedData(t, rel)
	c, _, err := assets.Load(path, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cacheRigs are real rigs of several sources for the code set's checks.
var cacheRigs = []string{"0ad/Croc.glb", "0ad/animal_boar.glb", "cube2/frankie.glb", "fable-game/animals__Alpaca.glb",
	"minetest-mods/animalia__animala_horse.glb", "quaternius-fbx/Alien_Animated__Alien.glb"}

// TestCachedCodesFitAugmentedCopies measures what the code set gives up: on
// augmented copies (DefaultAugment: stretch, turn, mirror, re-pose) of real
// rigs, the shipped tokenizer's decode of the source's codes against the decode
// of the copy's own codes, both scored against the artist's weights (deformation
// error ×100). The cached codes must stay within 10% of re-encoding on average.
func TestCachedCodesFitAugmentedCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes real rigs")
	}
	tok, err := skincodec.Load("")
	if err != nil {
		t.Skip(err)
	}
	opt := tok.Options()
	opt.RefineRounds = 0
	enc := TokenizerSkin(tok, opt)
	var cached, fresh float64
	n := 0
	for i, rel := range cacheRigs {
		c := sharedRig(t, rel)
		codes, err := encodeOwnOrder(c, enc)
		if err != nil {
			t.Fatal(err)
		}
		for a := 0; a < 2; a++ {
			aug, _ := augment(c, DefaultAugment, mrand.New(mrand.NewSource(int64(10*i+a))))
			own, err := encodeOwnOrder(aug, enc)
			if err != nil {
				t.Fatal(err)
			}
			dc, df := decodedDeform(t, tok, aug, codes), decodedDeform(t, tok, aug, own)
			t.Logf("%s copy %d: deformation ×100 cached codes %.3f, own codes %.3f", rel, a, dc, df)
			cached, fresh, n = cached+dc, fresh+df, n+1
		}
	}
	cached, fresh = cached/float64(n), fresh/float64(n)
	t.Logf("mean over %d augmented copies: cached codes %.3f, own codes %.3f (ratio %.3f)", n, cached, fresh, cached/fresh)
	if cached > 1.1*fresh {
		t.Errorf("cached codes deform %.3f, re-encoded %.3f: more than 10%% worse", cached, fresh)
	}
}

// decodedDeform decodes codes (c's joint order) on c's cube and returns the
// deformation error (×100) against c's own weights.
func decodedDeform(t *testing.T, tok *skincodec.SkinTokenizer, c *character.Character, codes [][]int) float64 {
	t.Helper()
	norm := character.NormalizationOf(c.Mesh)
	cube := norm.Apply(c)
	skin, err := tok.Decode(cube, cube.Skeleton, codes)
	if err != nil {
		t.Fatal(err)
	}
	res, err := metrics.SkinMetrics(c, skin, 1)
	if err != nil {
		t.Fatal(err)
	}
	return res.DeformMean
}

var _ rigmodel.SkinEncoder = cachedCodes{}
