package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/fixtures"
	"github.com/rigkit/rigkit/internal/modeltest"
	"github.com/rigkit/rigkit/vecmath"
)

func TestResolveSkinMethod(t *testing.T) {
	tests := []struct {
		give, want string
		note       bool
		err        bool
	}{
		{"geodesic", "geodesic", false, false},
		{"rigid", "rigid", false, false},
		{"heat", "heat", false, false},
		{"nope", "", false, true},
	}
	if _, ok := skinMethods["tokens"]; ok {
		tests = append(tests, struct {
			give, want string
			note       bool
			err        bool
		}{"", defaultSkinMethod, false, false})
	} else {
		tests = append(tests, struct {
			give, want string
			note       bool
			err        bool
		}{"", fallbackSkinMethod, true, false})
	}
	for _, tc := range tests {
		var errb bytes.Buffer
		got, fn, err := resolveSkinMethod(tc.give, &errb)
		if (err != nil) != tc.err || got != tc.want || (err == nil && fn == nil) {
			t.Errorf("%q: got %q, %v", tc.give, got, err)
		}
		if tc.note != (errb.Len() > 0) || strings.Count(errb.String(), "\n") > 1 {
			t.Errorf("%q: stderr %q", tc.give, errb.String())
		}
	}
}

func TestEvalPlannedTask(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"eval", "--data", t.TempDir(), "--task", "skeleton", "--out", filepath.Join(t.TempDir(), "r.md")}, &out, &errb)
	if _, ok := evalTasks["skeleton"]; !ok && (code != 1 || !strings.Contains(errb.String(), "not available yet")) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestSkinAndEvalRoundTrip skins one real rig, checks the output keeps the skeleton
// and positions, and evaluates two files.
func TestSkinAndEvalRoundTrip(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "data", "0ad")
	in := filepath.Join(data, "tiger.glb")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("real data not found: %v", err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "tiger.glb")
	var so, se bytes.Buffer
	if code := run([]string{"skin", in, "--method", "geodesic", "--out", out}, &so, &se); code != 0 {
		t.Fatalf("rig skin: exit %d: %s", code, se.String())
	}
	a, _, err := assets.Load(in, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := assets.Load(out, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Skeleton.Names, ",") != strings.Join(b.Skeleton.Names, ",") || len(a.Mesh.Positions) != len(b.Mesh.Positions) {
		t.Fatalf("skeleton or vertices changed")
	}
	if err := b.Validate(); err != nil || len(b.Skin.Orphans()) > 0 {
		t.Fatalf("output rig: %v", err)
	}
	// Evaluate a folder of two files (the input and its geodesic re-skin).
	evalDir := filepath.Join(dir, "data")
	os.MkdirAll(evalDir, 0o755)
	for _, f := range []string{in, out} {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(evalDir, filepath.Base(filepath.Dir(f))+"_"+filepath.Base(f)), b, 0o644)
	}
	report := filepath.Join(dir, "report.md")
	so.Reset()
	se.Reset()
	if code := run([]string{"eval", "--data", evalDir, "--method", "rigid,geodesic", "--leak=false", "--out", report}, &so, &se); code != 0 {
		t.Fatalf("rig eval: exit %d: %s", code, se.String())
	}
	md, _ := os.ReadFile(report)
	if !strings.Contains(string(md), "| geodesic | 2 | 0 |") || !strings.Contains(string(md), "| rigid | 2 | 0 |") {
		t.Errorf("report:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Error(err)
	}
}

// TestLookupSkinBlend resolves blends of two methods: their weights mix per vertex
// with the given share, and malformed names are usage errors.
func TestLookupSkinBlend(t *testing.T) {
	one := func(j int) skinMethod {
		return func(c *character.Character) (*character.Skin, error) {
			k := &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
			for v := range k.Weights {
				k.Weights[v] = []character.Influence{{Joint: j, Weight: 1}}
			}
			return k, nil
		}
	}
	methods := map[string]skinMethod{"a": one(0), "b": one(1)}
	c := &character.Character{Mesh: character.Mesh{Positions: make([]vecmath.Vec3, 3)}}
	tests := []struct {
		name   string
		wantA  float64 // weight of joint 0 at every vertex
		errSub string
	}{
		{"a", 1, ""},
		{"a+b", 0.5, ""},
		{"a+b@0.25", 0.25, ""},
		{"b+a@1", 0, ""},
		{"a+c", 0, "unknown skin method"},
		{"a+b@1.5", 0, "not in [0, 1]"},
		{"a+b@x", 0, "not in [0, 1]"},
		{"a@0.5", 0, "unknown skin method"},
		{"a+b@0.25^2", 0.0625 / (0.0625 + 0.5625), ""},
		{"a+b^1", 0.5, ""},
		{"a^3", 1, ""},
		{"a+b^0.5", 0, "not one number in [1, 16]"},
		{"a+b^x", 0, "not one number in [1, 16]"},
		{"a+b^2^2", 0, "not one number in [1, 16]"},
		{"c^2", 0, "unknown skin method"},
		{"a+b@0.25/blocks", 0.25, ""}, // no mesh, no blocks: the blend as is
		{"c/blocks", 0, "unknown skin method"},
		{"a+b@0.25/sides", 0.25, ""}, // no skeleton, no mirror plane: the blend as is
		{"a+b@0.25/sides/blocks", 0.25, ""},
		{"c/sides", 0, "unknown skin method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn, err := lookupSkinMethod(methods, tc.name)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) || !errors.Is(err, errUsage) {
					t.Fatalf("err %v, want a usage error with %q", err, tc.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			k, err := fn(c)
			if err != nil {
				t.Fatal(err)
			}
			for v, infl := range k.Weights {
				got := 0.0
				for _, in := range infl {
					if in.Joint == 0 {
						got = in.Weight
					}
				}
				if math.Abs(got-tc.wantA) > 1e-12 {
					t.Fatalf("vertex %d: %v, want joint 0 at %v", v, infl, tc.wantA)
				}
			}
		})
	}
}

// TestSkinOrFallback checks that a failing skin-token method gives way to
// geodesic weights with the reason, and that other methods' errors stay errors.
func TestSkinOrFallback(t *testing.T) {
	in := filepath.Join("..", "..", "..", "shared", "data", "0ad", "tiger.glb")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("real data not found: %v", err)
	}
	c, _, err := assets.Load(in, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	broken := func(*character.Character) (*character.Skin, error) { return nil, errors.New("decoder: sequence full") }
	tests := []struct {
		name      string
		fn        skinMethod
		wantNote  string
		wantError bool
	}{
		{"tokens", broken, "skin tokens failed (decoder: sequence full): the skin is geodesic", false},
		{"tokens-greedy", broken, "skin tokens failed", false},
		{"heat", broken, "", true},
		{"tokens", skinMethods["rigid"], "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			skin, note, err := skinOrFallback(c, tc.name, tc.fn)
			if (err != nil) != tc.wantError {
				t.Fatalf("error %v, want error %v", err, tc.wantError)
			}
			if !strings.HasPrefix(note, tc.wantNote) || (tc.wantNote == "") != (note == "") {
				t.Errorf("fallback %q, want %q", note, tc.wantNote)
			}
			if err == nil {
				if err := skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-3); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestSkinTokensPastOneStream runs `rig skin --method tokens-greedy` on the
// largest artist rig grown to 80 joints, two more than one stream of the shipped
// model holds: the skin comes from the tokens, not from a fallback.
func TestSkinTokensPastOneStream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped model")
	}
	if _, ok := skinMethods["tokens-greedy"]; !ok {
		t.Skip("the shipped model writes no skin tokens")
	}
	in := filepath.Join("..", "..", "..", "shared", "data", "cube2", "snoutx10k.glb")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("real data not found: %v", err)
	}
	c, _, err := assets.Load(in, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Skeleton = modeltest.SkeletonOfSize(t, c.Skeleton, 80)
	dir := t.TempDir()
	grown := filepath.Join(dir, "grown.glb")
	if _, err := assets.Save(grown, c); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	if code := run([]string{"skin", grown, "--method", "tokens-greedy", "--out", filepath.Join(dir, "out.glb"), "--json"}, &so, &se); code != 0 {
		t.Fatalf("rig skin: exit %d: %s", code, se.String())
	}
	var rep skinRun
	if err := json.Unmarshal(so.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Joints != 80 || rep.Method != "tokens-greedy" || rep.Fallback != "" {
		t.Errorf("report: %d joints, method %s, fallback %q; want 80 joints by tokens-greedy", rep.Joints, rep.Method, rep.Fallback)
	}
}

// floorRootBiped writes fixtures.FloorRootBiped to dir/floor_root.glb.
func floorRootBiped(t *testing.T, dir string) string {
	t.Helper()
	c, err := fixtures.FloorRootBiped()
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "floor_root.glb")
	if _, err := assets.Save(in, c); err != nil {
		t.Fatal(err)
	}
	return in
}

// jointMass is the weight c's skin gives the joint named name, summed over vertices.
func jointMass(c *character.Character, name string) float64 {
	mass := 0.0
	for _, infl := range c.Skin.Weights {
		for _, w := range infl {
			if c.Skeleton.Names[w.Joint] == name {
				mass += w.Weight
			}
		}
	}
	return mass
}

// TestSkinKeepsIdleJoints: a biped whose skeleton hangs from a root on the floor,
// which its skin gives no weight, is re-skinned by geodesic weights with that root
// still weightless (the report lists it), and with --keep-idle=false the root
// takes the vertices its bones pass by; no vertex is left without weights.
func TestSkinKeepsIdleJoints(t *testing.T) {
	dir := t.TempDir()
	in := floorRootBiped(t, dir)
	rootMass := func(keep string) (float64, string) {
		out := filepath.Join(dir, "out_"+keep+".glb")
		var so, se bytes.Buffer
		if code := run([]string{"skin", in, "--method", "geodesic", "--keep-idle=" + keep, "--json", "--out", out}, &so, &se); code != 0 {
			t.Fatalf("rig skin --keep-idle=%s: exit %d: %s", keep, code, se.String())
		}
		r, _, err := assets.Load(out, assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Skin.Orphans()) > 0 {
			t.Errorf("--keep-idle=%s: %d vertices without weights", keep, len(r.Skin.Orphans()))
		}
		return jointMass(r, "FloorRoot"), so.String()
	}
	kept, report := rootMass("true")
	if kept != 0 || !strings.Contains(report, `"FloorRoot"`) {
		t.Errorf("floor root keeps %.2f of weight; report %s", kept, report)
	}
	if given, _ := rootMass("false"); given == 0 {
		t.Error("without --keep-idle the floor root takes nothing: the test cannot fail")
	}
}
