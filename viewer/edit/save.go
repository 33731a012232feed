package edit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/gltfio"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/rewards"
)

// SaveOptions say where the edited rig came from and what the report holds.
type SaveOptions struct {
	// Input is the file the rig was loaded from: Save refuses to write over it
	// unless Overwrite is set (the artist confirmed).
	Input     string
	Overwrite bool
	// Score adds the rewards' scores and problems to the report.
	Score bool
}

// Report is the JSON written beside a saved rig (ReportPath).
type Report struct {
	Input    string   `json:"input"`
	Output   string   `json:"output"`
	Joints   int      `json:"joints"`
	Vertices int      `json:"vertices"`
	Edits    []string `json:"edits"`
	// Scene says what the output kept and replaced of the input's scene.
	Scene   *gltfio.SceneReport `json:"scene,omitempty"`
	Rewards *rewards.Report     `json:"rewards,omitempty"`
	// RewardsError says why Rewards is missing when scoring was asked for.
	RewardsError string `json:"rewards_error,omitempty"`
}

// SiblingPath is where an edited rig is saved when no output is named: beside the
// input, as NAME.edited.glb.
func SiblingPath(input string) string {
	return strings.TrimSuffix(input, filepath.Ext(input)) + ".edited.glb"
}

// ReportPath is the JSON report's path for an output: its name with .json.
func ReportPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".json"
}

// Save writes the edited rig through the same scene writer as `rig auto`
// (assets.Save: the input's scene kept, its rig replaced) to out, a .glb or .gltf
// path, and its report beside it.
func (r *Rig) Save(out string, opt SaveOptions) (*Report, error) {
	if err := checkOutput(opt.Input, out, opt.Overwrite); err != nil {
		return nil, fmt.Errorf("save %s: %w", out, err)
	}
	c := r.Character()
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("save %s: the edited rig is invalid: %w", out, err)
	}
	scene, err := assets.Save(out, c)
	if err != nil {
		return nil, err // names the file
	}
	rep := &Report{Input: opt.Input, Output: out, Joints: c.Skeleton.NumJoints(),
		Vertices: len(c.Mesh.Positions), Edits: r.History(), Scene: scene}
	if opt.Score {
		if rep.Rewards, err = rewards.Score(c, rewards.Options{Motion: animation.ClipPoses}); err != nil {
			rep.RewardsError = err.Error()
		}
	}
	path := ReportPath(out)
	err = atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
	if err != nil {
		return nil, fmt.Errorf("save report %s: %w", path, err)
	}
	return rep, nil
}

// checkOutput refuses an output that is not .glb or .gltf, or that is the input
// (by path, or the same file through a link) unless overwrite is set.
func checkOutput(input, out string, overwrite bool) error {
	switch strings.ToLower(filepath.Ext(out)) {
	case ".glb", ".gltf":
	default:
		return errors.New("want a .glb or .gltf output path")
	}
	if input == "" || overwrite {
		return nil
	}
	a, errA := filepath.Abs(input)
	b, errB := filepath.Abs(out)
	same := errA == nil && errB == nil && a == b
	if si, err := os.Stat(input); err == nil {
		if so, err := os.Stat(out); err == nil && os.SameFile(si, so) {
			same = true
		}
	}
	if same {
		return fmt.Errorf("that is the input file; save elsewhere (default %s) or confirm overwriting it", SiblingPath(input))
	}
	return nil
}
