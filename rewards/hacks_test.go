package rewards

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
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
	checked int
	beaten  []string // hacks scoring ≥ the true rig
	err     error
}

// runHackSuite scores c's true rig and every applicable hack on one prepared mesh.
func runHackSuite(c *assets.Character, opt Options) hackOutcome {
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
	out.truth = truth.Score
	for _, h := range Hacks {
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
		if rep.Score >= truth.Score {
			out.beaten = append(out.beaten, fmt.Sprintf("%s %.3f (%v)", h.Name, rep.Score, fmtRewards(rep.Rewards)))
		}
	}
	return out
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
		c    *assets.Character
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
				c    *assets.Character
			}{fmt.Sprintf("synth %s seed %d", kind, seed), c})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := runHackSuite(tc.c, Options{Poses: 4})
			if o.err != nil {
				t.Fatal(o.err)
			}
			if o.checked < len(Hacks)-1 {
				t.Errorf("only %d hacks applied", o.checked)
			}
			for _, b := range o.beaten {
				t.Errorf("true rig %.3f beaten by %s", o.truth, b)
			}
		})
	}
}

// The true rig must outscore every hack on the real rigs. By default a deterministic
// subset (every 25th file); RIGKIT_FULL=1 runs all of them.
func TestHackSuiteReal(t *testing.T) {
	files := realFiles(t)
	full := os.Getenv("RIGKIT_FULL") == "1"
	if !full {
		var sub []string
		for i := 0; i < len(files); i += 25 {
			sub = append(sub, files[i])
		}
		files = sub
	}
	opt := Options{Poses: 4}
	if full {
		opt.Poses = 8
	}
	results := make([]hackOutcome, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range files {
		wg.Add(1)
		go func(i int, f string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := assets.Load(f)
			if err != nil {
				results[i] = hackOutcome{name: f, err: err}
				return
			}
			results[i] = runHackSuite(c, opt)
			results[i].name = f
		}(i, f)
	}
	wg.Wait()
	pass, checks, failedAssets := 0, 0, 0
	for _, o := range results {
		if o.err != nil {
			t.Errorf("%s: %v", o.name, o.err)
			failedAssets++
			continue
		}
		checks += o.checked
		pass += o.checked - len(o.beaten)
		if len(o.beaten) > 0 {
			failedAssets++
			for _, b := range o.beaten {
				t.Errorf("%s: true rig %.3f beaten by %s", o.name, o.truth, b)
			}
		}
	}
	t.Logf("hack suite: %d assets, %d of %d asset×hack checks passed, %d assets with a failure", len(files), pass, checks, failedAssets)
}
