package synth

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// checkRig asserts what every clean creature must satisfy.
func checkRig(t *testing.T, c *character.Character, target int) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	if b, nm, mo := edgeStats(c.Mesh); b+nm+mo != 0 {
		t.Errorf("%s: %d boundary, %d non-manifold, %d misoriented edges; want a closed manifold", c.Name, b, nm, mo)
	}
	if v := signedVolume(c.Mesh); !(v > 0) {
		t.Errorf("%s: signed volume %g; triangles must face outwards", c.Name, v)
	}
	if n := len(c.Mesh.Positions); math.Abs(float64(n)/float64(target)-1) > 0.3 {
		t.Errorf("%s: %d vertices, target %d", c.Name, n, target)
	}
	if n := c.Skeleton.NumJoints(); n < 5 || n > 90 {
		t.Errorf("%s: %d joints", c.Name, n)
	}
	name := regexp.MustCompile(`^[a-z]+[0-9]*(_[a-z0-9]+)*$`)
	for _, n := range c.Skeleton.Names {
		if !name.MatchString(n) {
			t.Errorf("%s: joint name %q", c.Name, n)
		}
	}
	for v, infl := range c.Skin.Weights {
		if len(infl) > character.MaxInfluencesWritten {
			t.Fatalf("%s: vertex %d has %d influences", c.Name, v, len(infl))
		}
	}
	for j, m := range c.Skeleton.BindWorld {
		if d := m.Translation().Dist(c.Skeleton.Position(j)); d != 0 || m.Det() != 1 {
			t.Fatalf("%s: joint %d bind matrix is not a pure translation", c.Name, j)
		}
	}
}

func TestGenerateEveryKind(t *testing.T) {
	for _, kind := range Kinds() {
		for _, tc := range []struct {
			seed   int64
			target int
		}{{1, 0}, {2, 0}, {3, 2000}} {
			c, err := Generate(kind, tc.seed, Options{TargetVertices: tc.target})
			if err != nil {
				t.Fatal(err)
			}
			target := tc.target
			if target == 0 {
				target = DefaultVertices
			}
			checkRig(t, c, target)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		kind string
		opt  Options
		want string
	}{
		{"dragonfly", Options{}, "unknown kind"},
		{"biped", Options{TargetVertices: 10}, "too small"},
	} {
		_, err := Generate(tc.kind, 1, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%q, %+v) error %v, want %q", tc.kind, tc.opt, err, tc.want)
		}
	}
}

func TestDeterministicPerSeed(t *testing.T) {
	for _, opt := range []Options{{}, {Noise: true, Posed: true}} {
		for _, kind := range []string{"biped", "multi", "spider"} {
			a, err := Generate(kind, 7, opt)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Generate(kind, 7, opt)
			if len(a.Mesh.Positions) != len(b.Mesh.Positions) || len(a.Mesh.Triangles) != len(b.Mesh.Triangles) {
				t.Fatalf("%s: sizes differ between runs", kind)
			}
			for v := range a.Mesh.Positions {
				if a.Mesh.Positions[v] != b.Mesh.Positions[v] {
					t.Fatalf("%s: vertex %d differs between runs", kind, v)
				}
				for i, in := range a.Skin.Weights[v] {
					if b.Skin.Weights[v][i] != in {
						t.Fatalf("%s: vertex %d weights differ between runs", kind, v)
					}
				}
			}
			c, _ := Generate(kind, 8, opt)
			if len(c.Mesh.Positions) == len(a.Mesh.Positions) && c.Mesh.Positions[0] == a.Mesh.Positions[0] {
				t.Errorf("%s: seeds 7 and 8 gave the same creature", kind)
			}
		}
	}
}

// chainOf names the limb chain a joint belongs to, e.g. finger_l_2_1 → finger_l_2,
// leg_l_lower → leg_l; "" for joints outside fingers and legs.
func chainOf(name string) string {
	parts := strings.Split(name, "_")
	switch {
	case parts[0] == "finger" && len(parts) >= 3:
		return strings.Join(parts[:3], "_")
	case (parts[0] == "leg" || parts[0] == "foot" || parts[0] == "toe") && len(parts) >= 2:
		return "leg_" + parts[1]
	}
	return ""
}

func TestNoBleedingBetweenFingersOrLegs(t *testing.T) {
	checked := 0
	for seed := int64(0); seed < 12; seed++ {
		for _, kind := range []string{"biped", "quadruped", "spider"} {
			c, err := Generate(kind, seed, Options{TargetVertices: 3000})
			if err != nil {
				t.Fatal(err)
			}
			for v, infl := range c.Skin.Weights {
				chains := map[string]bool{}
				for _, in := range infl {
					if ch := chainOf(c.Skeleton.Names[in.Joint]); ch != "" && strings.Count(ch, "_") >= 1 {
						chains[ch] = true
					}
				}
				checked++
				if len(chains) > 1 {
					var names []string
					for _, in := range infl {
						names = append(names, fmt.Sprintf("%s:%.2f", c.Skeleton.Names[in.Joint], in.Weight))
					}
					t.Errorf("%s vertex %d is weighted to several limbs: %v", c.Name, v, names)
					break
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no vertices checked")
	}
}

func TestRigidAwayFromJoints(t *testing.T) {
	// Most of the surface of a limb-rich creature moves with one joint only.
	for _, kind := range []string{"biped", "spider", "prop"} {
		c, err := Generate(kind, 4, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rigid := 0
		for _, infl := range c.Skin.Weights {
			if infl[0].Weight > 0.999 {
				rigid++
			}
		}
		if f := float64(rigid) / float64(len(c.Skin.Weights)); f < 0.3 {
			t.Errorf("%s: only %.0f%% of vertices are rigid", kind, 100*f)
		}
	}
}

// TestFlipFraction measures the share of triangles that flip under METRICS.md
// random poses (up to 45° per joint) and holds true folds to a loose bound.
func TestFlipFraction(t *testing.T) {
	const seeds, poses = 3, 4
	for _, kind := range Kinds() {
		var sumW, sumL, worstL float64
		for seed := int64(0); seed < seeds; seed++ {
			c, err := Generate(kind, seed, Options{TargetVertices: 3000})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(seed))
			for p := 0; p < poses; p++ {
				d, posed := c.Deform(character.RandomPose(rng, c.Skeleton.NumJoints(), math.Pi/4))
				w, l := flipFractions(c, d, posed)
				sumW += w
				sumL += l
				worstL = math.Max(worstL, l)
			}
		}
		meanW, meanL := sumW/(seeds*poses), sumL/(seeds*poses)
		t.Logf("%-9s flips at ≤45°: folds (joint frame) mean %.2f%% worst %.2f%%; world-normal test mean %.2f%%",
			kind, 100*meanL, 100*worstL, 100*meanW)
		if meanL > 0.05 {
			t.Errorf("%s: %.1f%% of triangles fold under random poses", kind, 100*meanL)
		}
	}
}

func TestRestPoseIsIdentity(t *testing.T) {
	c, err := Generate("tailed", 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Deform(character.RestPose(c.Skeleton.NumJoints()))
	for v := range d {
		if d[v].Dist(c.Mesh.Positions[v]) > 1e-9 {
			t.Fatalf("vertex %d moves in the rest pose", v)
		}
	}
}

func TestPosedVariant(t *testing.T) {
	for _, kind := range Kinds() {
		rest, err := Generate(kind, 3, Options{TargetVertices: 2000})
		if err != nil {
			t.Fatal(err)
		}
		posed, err := Generate(kind, 3, Options{TargetVertices: 2000, Posed: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := posed.Validate(); err != nil {
			t.Fatalf("%s posed: %v", kind, err)
		}
		if b, nm, _ := edgeStats(posed.Mesh); b+nm != 0 {
			t.Errorf("%s posed: %d boundary and %d non-manifold edges", kind, b, nm)
		}
		moved := 0
		for v := range rest.Mesh.Positions {
			if rest.Mesh.Positions[v].Dist(posed.Mesh.Positions[v]) > 1e-6 {
				moved++
			}
		}
		if moved == 0 {
			t.Errorf("%s: posed variant equals the rest pose", kind)
		}
		// The posed skeleton is the bind pose: the rest pose leaves the mesh alone.
		d, _ := posed.Deform(character.RestPose(posed.Skeleton.NumJoints()))
		for v := range d {
			if d[v].Dist(posed.Mesh.Positions[v]) > 1e-6 {
				t.Fatalf("%s posed: vertex %d moves in the rest pose", kind, v)
			}
		}
	}
}

func TestNoise(t *testing.T) {
	defects := 0
	for seed := int64(0); seed < 6; seed++ {
		c, err := Generate("biped", seed, Options{Noise: true, TargetVertices: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		b, nm, mo := edgeStats(c.Mesh)
		clean, _ := Generate("biped", seed, Options{TargetVertices: 2000})
		if b+nm+mo > 0 || len(c.Mesh.Positions) != len(clean.Mesh.Positions) {
			defects++
		}
	}
	if defects == 0 {
		t.Error("noise added no defect to any of 6 creatures")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range Kinds() {
		c, err := Generate(kind, 11, Options{TargetVertices: 1500, Noise: kind == "biped"})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, kind+".glb")
		if _, err := assets.Save(path, c); err != nil {
			t.Fatal(err)
		}
		back, _, err := assets.Load(path, assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("%s reloaded: %v", kind, err)
		}
		if !back.Rigged() || back.Skeleton.NumJoints() != c.Skeleton.NumJoints() || len(back.Mesh.Triangles) != len(c.Mesh.Triangles) {
			t.Fatalf("%s: reloaded %d joints %d triangles, saved %d and %d", kind,
				back.Skeleton.NumJoints(), len(back.Mesh.Triangles), c.Skeleton.NumJoints(), len(c.Mesh.Triangles))
		}
		for j, n := range c.Skeleton.Names {
			if back.Skeleton.Names[j] != n {
				t.Fatalf("%s: joint %d reloaded as %q, saved %q", kind, j, back.Skeleton.Names[j], n)
			}
		}
	}
}

func TestPiecesAndDefectShapesAreClosed(t *testing.T) {
	for name, m := range map[string]character.Mesh{
		"sphere": sphereMesh(vecmath.Vec3{1, 2, 3}, 0.5, 6, 8),
		"box":    boxMesh(vecmath.Vec3{-1, 0, 2}, 0.3),
	} {
		if b, nm, mo := edgeStats(m); b+nm+mo != 0 {
			t.Errorf("%s: %d %d %d bad edges", name, b, nm, mo)
		}
		if v := signedVolume(m); !(v > 0) {
			t.Errorf("%s: volume %g", name, v)
		}
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}
