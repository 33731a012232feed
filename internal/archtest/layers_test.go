// Package archtest checks rigkit's package stack: every package sits on a declared
// layer and imports only packages on lower layers, so data flows one way (glTF in,
// character, tokens, model, rig, glTF out) and no package reaches back up. It also
// bounds the size of structs and functions (size_test.go) and the exported names of
// each package (exports_test.go).
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/rigkit/rigkit/"

// layers places every package of the module, by path below the module root. A
// package may import only packages on a strictly lower layer; two packages on one
// layer are independent of each other. A new package gets a line here.
var layers = map[string]int{
	// Leaves: numeric kernels and small utilities; then the character model.
	"internal/fastmath":   0,
	"internal/engine":     0,
	"internal/atomicfile": 0,
	"internal/unionfind":  0,
	"internal/workgroup":  0,
	"internal/progress":   0,
	"internal/cputime":    0,
	"internal/bigcopy":    0,
	"internal/archtest":   0,
	// Test support: hostile inputs, allocation bounds for fuzzing, the glTF
	// validator, the three.js and Blender checks.
	"internal/hostile":      0,
	"internal/fuzzbound":    0,
	"internal/khronos":      0,
	"internal/browsercheck": 0,
	"internal/blendercheck": 0,
	// The math of frames; the character model; what every file reader shares; the glTF and OBJ readers
	// and writer; the one entry point that picks among them.
	"vecmath":           1,
	"character":         2,
	"assets/format":     3,
	"internal/meshtest": 3,
	"assets/gltfio":     4,
	"assets/obj":        4,
	"assets":            5,
	// Geometry, rendering and synthetic characters over the character model; the
	// token contract; the network layers.
	"geom":        10,
	"render":      10,
	"synth":       10,
	"tokens":      10,
	"internal/nn": 10,
	"metrics":     10,
	"dataset":     10,
	// Anatomical skeletons and animation clips over the character model and geometry;
	// real-world test scenes over the synthetic characters.
	// The rewards' learned critic: skeleton features over the geometry, the
	// fitted ranker.
	"critic":         15,
	"anatomy":        20,
	"anatomy/stress": 25,
	// The rigging workbench's edits (joint moves, hierarchy, re-skin, save) under
	// the viewer that calls them.
	"viewer/edit":       25,
	"animation":         20,
	"internal/fixtures": 20,
	// Skinning methods and rewards over the geometry.
	"skinning": 20,
	"rewards":  20,
	// The skin codec and the classical rigger; the viewer, which plays clips.
	"skincodec": 30,
	"classical": 30,
	"viewer":    30,
	// The model network; the scoring service.
	"rigmodel": 40,
	"serve":    40,
	// Sampling the model: decoding streams into rigs under the grammar and region
	// masks, the skeleton vote, the validity gate.
	"internal/modeltest": 42,
	"sampler":            45,
	// Batch rigging (rig auto) over the sampler and the classical rigger; training,
	// GRPO and weight averaging of the model; evaluation over both riggers.
	"autorig": 50,
	"train":   50,
	// Completing a user's partial skeleton over the model rigger and the templates.
	"copilot": 55,
	"eval":    60,
	// The command line.
	"cmd/rig": 90,
}

// pkg is the part of `go list -json` output the check reads.
type pkg struct {
	ImportPath string
	Imports    []string
}

// violations returns one line per import that runs upward or sideways, and per
// package missing from the table.
func violations(table map[string]int, pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		from, ok := table[rel]
		if !ok {
			out = append(out, fmt.Sprintf("%s is not in the layer table (internal/archtest/layers_test.go)", rel))
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			to, known := table[dep]
			if known && to < from {
				continue
			}
			out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d)", rel, from, dep, to))
		}
	}
	sort.Strings(out)
	return out
}

func TestViolations(t *testing.T) {
	table := map[string]int{"assets": 0, "tokens": 10, "rewards": 10, "rigmodel": 40}
	tests := []struct {
		name string
		pkgs []pkg
		want []string
	}{
		{"downward imports pass", []pkg{
			{module + "rigmodel", []string{module + "tokens", module + "assets", "fmt"}},
			{module + "tokens", []string{module + "assets"}},
		}, nil},
		{"an upward import fails", []pkg{
			{module + "tokens", []string{module + "rigmodel"}},
		}, []string{"tokens (layer 10) imports rigmodel (layer 40)"}},
		{"a sideways import fails", []pkg{
			{module + "rewards", []string{module + "tokens"}},
		}, []string{"rewards (layer 10) imports tokens (layer 10)"}},
		{"an unplaced package fails", []pkg{
			{module + "misc", nil},
		}, []string{"misc is not in the layer table (internal/archtest/layers_test.go)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := violations(table, tc.pkgs)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("violations = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoUpwardImports runs `go list` over the module (default build tags and the
// cuda tag) and checks every package's imports against the layer table.
func TestNoUpwardImports(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for _, tags := range []string{"", "cuda"} {
		args := []string{"list", "-json=ImportPath,Imports"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.Command(gobin, append(args, module+"...")...)
		cmd.Dir = "../.."
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		data, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("go list -tags %q: %v: %s", tags, err, stderr.String())
			}
			t.Skipf("go command not usable: %v", err)
		}
		var pkgs []pkg
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var p pkg
			if err := dec.Decode(&p); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("go list output: %v", err)
			}
			pkgs = append(pkgs, p)
		}
		if len(pkgs) < 10 {
			t.Fatalf("go list -tags %q found %d packages", tags, len(pkgs))
		}
		for _, v := range violations(layers, pkgs) {
			t.Errorf("tags %q: %s", tags, v)
		}
	}
}
