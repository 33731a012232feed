package rewards

import (
	"encoding/json"
	"fmt"
	"github.com/rigkit/rigkit/animation"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// dataDir returns ../shared/data beside the repository root, or "" when absent.
func dataDir() string {
	d := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(d, "manifest.jsonl")); err != nil {
		return ""
	}
	return d
}

// realFiles lists every GLB under the data folder, sorted.
func realFiles(t testing.TB) []string {
	d := dataDir()
	if d == "" {
		t.Skip("../shared/data not found; real-rig hack suite skipped")
	}
	var files []string
	filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".glb") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// hackOutcome is one asset's true score and the hacks that reached it.
type hackOutcome struct {
	name    string
	truth   float64
	truthR  string // the true rig's rewards, for messages
	checked int
	beaten  []string // hacks scoring ≥ the true rig
	// excused are skeleton-moving hacks scoring ≥ a carried true rig (see
	// Report.Carried): logged, not failures.
	excused []string
	err     error
	carried bool // the true rig is carried (Report.Carried)
	// rows are every scored rig's rewards (the truth first), for RIGKIT_DUMP.
	rows []dumpRow
}

// dumpRow is one scored rig of the sweep, written as a JSON line when RIGKIT_DUMP
// names a file (for tuning the rewards offline).
type dumpRow struct {
	File    string             `json:"file"`
	Rig     string             `json:"rig"`
	Score   float64            `json:"score"`
	Rewards map[string]float64 `json:"rewards"`
	Details *Details           `json:"details,omitempty"`
}

// runHackSuite scores c's true rig and every applicable hack on one prepared mesh
// (for a prop, the CharactersOnly hacks do not apply). A skeleton-moving hack that
// reaches a carried true rig is excused (Hack.MovesSkeleton, Report.Carried).
func runHackSuite(c *character.Character, opt Options, prop bool) hackOutcome {
	out := hackOutcome{name: c.Name}
	p, err := Prepare(&c.Mesh, opt)
	if err != nil {
		out.err = err
		return out
	}
	truth, err := p.Score(c, opt)
	if err != nil {
		out.err = err
		return out
	}
	out.truth, out.truthR, out.carried = truth.Score, fmtRewards(truth.Rewards), truth.Carried()
	out.rows = append(out.rows, dumpRow{Rig: "truth", Score: truth.Score, Rewards: truth.Rewards, Details: &truth.Details})
	only := hackFilter()
	for _, h := range Hacks {
		if (only != nil && !only[h.Name]) || (prop && h.CharactersOnly) {
			continue
		}
		hc, ok := h.Build(c, 7)
		if !ok {
			continue
		}
		rep, err := p.Score(hc, opt)
		if err != nil {
			out.err = fmt.Errorf("hack %s: %w", h.Name, err)
			return out
		}
		out.checked++
		out.rows = append(out.rows, dumpRow{Rig: h.Name, Score: rep.Score, Rewards: rep.Rewards, Details: &rep.Details})
		if rep.Score > truth.Score || (rep.Score == truth.Score && !h.NamesOnly) {
			msg := fmt.Sprintf("%s %.3f (%v)", h.Name, rep.Score, fmtRewards(rep.Rewards))
			if h.MovesSkeleton && out.carried {
				out.excused = append(out.excused, msg)
			} else {
				out.beaten = append(out.beaten, msg)
			}
		}
	}
	return out
}

// hackFilter is the set of hack names in RIGKIT_HACKS (comma-separated), to sweep
// only those; nil (every hack) when it is unset.
func hackFilter() map[string]bool {
	v := os.Getenv("RIGKIT_HACKS")
	if v == "" {
		return nil
	}
	only := map[string]bool{}
	for _, n := range strings.Split(v, ",") {
		only[strings.TrimSpace(n)] = true
	}
	return only
}

func fmtRewards(r map[string]float64) string {
	var s []string
	for _, n := range RewardNames {
		s = append(s, fmt.Sprintf("%s=%.2f", n, r[n]))
	}
	return strings.Join(s, " ")
}

// The true rig must outscore every hack on synthetic creatures.
func TestHackSuiteSynthetic(t *testing.T) {
	cases := []struct {
		name string
		c    *character.Character
	}{
		{"capsule-man", capsuleMan(1, false).character(48)},
		{"capsule-man tail", capsuleMan(2, true).character(48)},
	}
	for i, kind := range synth.Kinds() {
		for seed := int64(1); seed <= 1; seed++ {
			c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 1500, Noise: i%2 == 1})
			if err != nil {
				t.Fatalf("synth %s seed %d: %v", kind, seed, err)
			}
			cases = append(cases, struct {
				name string
				c    *character.Character
			}{fmt.Sprintf("synth %s seed %d", kind, seed), c})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prop := strings.HasPrefix(tc.name, "synth prop ")
			o := runHackSuite(tc.c, Options{Poses: 4, Motion: animation.ClipPoses}, prop)
			if o.err != nil {
				t.Fatal(o.err)
			}
			want := len(Hacks) - 2 // two may not apply (rigid_weights on rigid truth, one more)
			if Weights[criticReward] == 0 {
				want -= len(criticHacks) // they apply only while the critic counts
			}
			for _, h := range Hacks {
				if prop && h.CharactersOnly {
					want--
				}
			}
			if o.checked < want && hackFilter() == nil {
				t.Errorf("only %d hacks applied", o.checked)
			}
			for _, b := range o.beaten {
				t.Errorf("true rig %.3f (%s) beaten by %s", o.truth, o.truthR, b)
			}
		})
	}
}

// categories reads manifest.jsonl: file (relative to the data folder) → category.
func categories(dir string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		var row struct{ File, Category string }
		if json.Unmarshal([]byte(line), &row) == nil && row.File != "" {
			out[row.File] = row.Category
		}
	}
	return out
}

// knownGaps are the checks of the default subset that still fail, with the margin
// (hack score − true score at 8 poses) and the reason; they are logged, every other
// failure fails the test. The held-out half's failures are listed in
// docs/rewards.md. Keep this list short and say why.
var knownGaps = map[string]string{
	// Reward version 2 (the kept-skeleton and shrink-toward-centre hacks; margins at
	// 8 poses). Rigid props whose artist pivots sit at an axle or a yard: moving them
	// toward the other joints puts the bones more inside, which the mesh alone
	// cannot tell from a better pivot (see "Pivots at seams" in docs/rewards.md).
	"0ad/props__celt_rotary_mill_grinder.glb shrunk_joints_50": "rigid grinder, pivot at its axle; margin 0.005",
	"0ad/props__celt_rotary_mill_grinder.glb shrunk_joints_25": "rigid grinder, pivot at its axle; margin 0.013",
	"0ad/props__kush_trireme_main_sail.glb shrunk_joints_75":   "sail on its yard's joints; margin 0.002",
	// A worn shield moved by its wearer's arm (outside mass under the carried
	// rule's 0.5): tiny bones inside the shield beat the wearer's bones beside it.
	"0ad/props__shield__props__aspis_apron_01.glb surface_bones_kept": "worn shield on the wearer's arm; margin 0.028",
	// A dropped arm whose seam was the rig's hardest: one seam fewer buys more
	// deformation than the uncovered arm costs coverage (as the missing_limb
	// checks listed in docs/rewards.md).
	"minetest-mods/mineclone2__mobs_mc_evoker.glb missing_limb": "dropped limb's seam; margin 0.001",
	// Reward version 4: the evoker's folded-arms box straddles the mirror plane
	// on a pivot off its mirror image (symmetry 0.92); moving every joint onto the
	// plane costs its thick box limbs only 0.02 of coverage.
	"minetest-mods/mineclone2__mobs_mc_evoker.glb plane_collapsed": "folded arms off the mirror; margin 0.002",
	// Reward version 3 (deformation's free tears and distorted-edge strain, for the
	// rank agreement). A box-model zombie whose rigid artist seams tear fully: one
	// arm's seam fewer costs nothing the uncovered arm makes up.
	"minetest-mods/mineclone2__mobs_mc_zombie.glb missing_limb": "dropped limb's rigid seam; margin 0.006",
	// A ship moved by five rigid part joints (true coverage 0.14): 200 blended tiny
	// bones cover its hull, and their seams, 62% torn, now tear for free.
	"0ad/structural__ptol_ship_trireme.glb surface_bones_kept_blended": "tiny bones over a hull its five part joints do not reach; margin 0.044",
}

// The true rig must outscore every hack on the real rigs, strictly (a tie fails; a names-only hack may tie). By
// default a deterministic subset (every 25th file, all categories);
// RIGKIT_FULL=1 runs all of them (both at the default 8 poses) and logs a per-category tally;
// RIGKIT_HALF=tune or report keeps the files of that half of the families
// (dataset.FamilyHalf), RIGKIT_EVERY=k every k-th of the files left, starting at
// RIGKIT_OFFSET (default 0);
// RIGKIT_DUMP=FILE writes every scored rig's rewards and details as JSON lines.
func TestHackSuiteReal(t *testing.T) {
	files := realFiles(t)
	cats := categories(dataDir())
	full := os.Getenv("RIGKIT_FULL") == "1"
	if half := os.Getenv("RIGKIT_HALF"); half != "" {
		files = filesOfHalf(t, files, half)
	}
	every := 25
	if full {
		every = 1
	}
	if v := os.Getenv("RIGKIT_EVERY"); v != "" {
		if _, err := fmt.Sscan(v, &every); err != nil || every < 1 {
			t.Fatalf("RIGKIT_EVERY=%q: want a positive integer", v)
		}
	}
	offset := 0
	if v := os.Getenv("RIGKIT_OFFSET"); v != "" {
		if _, err := fmt.Sscan(v, &offset); err != nil || offset < 0 {
			t.Fatalf("RIGKIT_OFFSET=%q: want a non-negative integer", v)
		}
	}
	var sub []string
	for i := offset; i < len(files); i += every {
		sub = append(sub, files[i])
	}
	files = sub
	// The default poses and the clips every rig command adds, as the sweep
	// figures in docs/rewards.md.
	opt := Options{Poses: 8, Motion: animation.ClipPoses}
	results := make([]hackOutcome, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range files {
		wg.Add(1)
		go func(i int, f string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, _, err := assets.Load(f, assets.Options{})
			if err != nil {
				results[i] = hackOutcome{name: f, err: err}
				return
			}
			rel, _ := filepath.Rel(dataDir(), f)
			results[i] = runHackSuite(c, opt, cats[filepath.ToSlash(rel)] == "prop/mechanical")
			results[i].name = f
		}(i, f)
	}
	wg.Wait()
	if path := os.Getenv("RIGKIT_DUMP"); path != "" {
		var buf strings.Builder
		for _, o := range results {
			rel, _ := filepath.Rel(dataDir(), o.name)
			for _, row := range o.rows {
				row.File = filepath.ToSlash(rel)
				b, _ := json.Marshal(row)
				buf.Write(b)
				buf.WriteByte('\n')
			}
		}
		if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
			t.Errorf("RIGKIT_DUMP: %v", err)
		}
	}
	type tally struct{ assets, clean, checks, pass, carried, excused int }
	by := map[string]*tally{}
	for _, o := range results {
		rel, _ := filepath.Rel(dataDir(), o.name)
		cat := cats[filepath.ToSlash(rel)]
		if by[cat] == nil {
			by[cat] = &tally{}
		}
		tl := by[cat]
		tl.assets++
		if o.err != nil {
			t.Errorf("%s: %v", o.name, o.err)
			continue
		}
		tl.checks += o.checked
		tl.pass += o.checked - len(o.beaten) - len(o.excused)
		if len(o.beaten) == 0 {
			tl.clean++
		}
		if o.carried {
			tl.carried++
		}
		tl.excused += len(o.excused)
		for _, b := range o.excused {
			t.Logf("excused, carried rig: %s (%s): true rig %.3f (%s) reached by %s", o.name, cat, o.truth, o.truthR, b)
		}
		for _, b := range o.beaten {
			msg := fmt.Sprintf("%s (%s): true rig %.3f (%s) beaten by %s", o.name, cat, o.truth, o.truthR, b)
			if why, ok := knownGaps[filepath.ToSlash(rel)+" "+strings.Fields(b)[0]]; ok {
				t.Logf("known gap (%s): %s", why, msg)
			} else {
				t.Error(msg)
			}
		}
	}
	cs := make([]string, 0, len(by))
	for c := range by {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	for _, c := range cs {
		tl := by[c]
		t.Logf("hack suite %-16q %3d assets, %3d with no failing hack, %4d of %4d asset×hack checks passed; %3d carried rigs, %2d skeleton-moving hacks excused on them",
			c, tl.assets, tl.clean, tl.pass, tl.checks, tl.carried, tl.excused)
	}
}

// TestPokeOutSheet checks that poke_out pokes out of a flat sheet too, where the
// line of a bone lying in the sheet never crosses the surface: every moved leaf ends
// pokeDepth or more from the sheet (in the normalized cube).
func TestPokeOutSheet(t *testing.T) {
	// A 2 × 1 grid of quads in the z = 0 plane, a chain of three joints along x.
	const nx, ny = 20, 10
	c := &character.Character{Name: "sheet"}
	for y := 0; y <= ny; y++ {
		for x := 0; x <= nx; x++ {
			c.Mesh.Positions = append(c.Mesh.Positions, vecmath.Vec3{float64(x) / 10, float64(y) / 10, 0})
		}
	}
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			a := y*(nx+1) + x
			c.Mesh.Triangles = append(c.Mesh.Triangles, [3]int{a, a + 1, a + nx + 2}, [3]int{a, a + nx + 2, a + nx + 1})
		}
	}
	c.Skeleton = &character.Skeleton{Names: []string{"a", "b", "c"}, Parents: []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0.2, 0.5, 0}), vecmath.Translate4(vecmath.Vec3{1, 0.5, 0}), vecmath.Translate4(vecmath.Vec3{1.6, 0.5, 0})}}
	c.Skin = character.RigidSkin(c.Mesh.Positions, c.Skeleton)
	h, ok := pokeOut(c, 1)
	if !ok {
		t.Fatal("poke_out did not apply")
	}
	norm := character.NormalizationOf(c.Mesh)
	nm := &character.Mesh{Triangles: c.Mesh.Triangles}
	for _, p := range c.Mesh.Positions {
		nm.Positions = append(nm.Positions, norm.Point(p))
	}
	hit, ok := geom.NewBVH(nm).Closest(norm.Point(h.Skeleton.Position(2)))
	if !ok || hit.Dist < pokeDepth-1e-9 {
		t.Fatalf("the leaf ends %.3f from the sheet, want at least %v", hit.Dist, pokeDepth)
	}
}
