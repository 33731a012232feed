package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/vecmath"
)

// External skins: `rig eval --task skin --external NAME=DIR` scores weights another
// tool wrote (tools/blender/heat.py writes Blender's bone heat in this format), one
// JSON file per asset at DIR/<path of the asset under its --data folder, .json>:
//
//	{"joints": ["name", ...], "vertices": [[x, y, z], ...],
//	 "weights": [[[joint index, weight], ...], ...], "seconds": 0.5}
//
// or {"error": "why the tool failed"}. Vertices are in the asset's world frame
// (glTF axes and units) and correspond to its vertices by position, joints by name,
// as shared/METRICS.md says for any prediction (metrics.MatchSkin). A vertex the tool
// left without weight stays empty: it does not move under the poses, as in Blender,
// and counts as an orphan.

// maxExternalBytes bounds one weights file (a 1M-vertex mesh with 4 influences
// each is about 80 MB of JSON).
const maxExternalBytes = 256 << 20

// externalSkinFile is the JSON a tool writes per asset. Vertices and influences are
// decoded as plain lists so that a short or long one is an error, not a zero.
type externalSkinFile struct {
	Error    string        `json:"error"`
	Seconds  float64       `json:"seconds"`
	Joints   []string      `json:"joints"`
	Vertices [][]float64   `json:"vertices"`
	Weights  [][][]float64 `json:"weights"`
}

// externalSkinPath is where the weights of asset f live under dir.
func externalSkinPath(dir string, f File) string {
	rel := f.Rel
	if rel == "" {
		rel = filepath.Base(f.Path)
	}
	return filepath.Join(dir, strings.TrimSuffix(rel, filepath.Ext(rel))+".json")
}

// externalSkin reads a tool's weights for ground truth gt from path and expresses
// them on gt's vertices and joints (metrics.MatchSkin), with the tool's own timing.
// Every error names path.
func externalSkin(gt *character.Character, path string) (*character.Skin, float64, error) {
	pred, secs, err := loadExternalSkin(path)
	if err != nil {
		return nil, 0, err
	}
	w, err := metrics.MatchSkin(gt, pred)
	if err != nil {
		return nil, 0, fmt.Errorf("external weights %s: %w", path, err)
	}
	return w, secs, nil
}

// loadExternalSkin reads a tool's weights for one asset as a prediction (mesh and
// skeleton names only) with the tool's own timing.
func loadExternalSkin(path string) (*character.Character, float64, error) {
	bad := func(format string, a ...any) (*character.Character, float64, error) {
		return nil, 0, fmt.Errorf("external weights %s: %s", path, fmt.Sprintf(format, a...))
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return bad("no such file (run the tool on this asset first)")
	}
	if err != nil {
		return nil, 0, fmt.Errorf("external weights: %w", err)
	}
	if st.Size() > maxExternalBytes {
		return bad("%d bytes, more than the %d allowed", st.Size(), maxExternalBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("external weights: %w", err)
	}
	var f externalSkinFile
	if err := json.Unmarshal(b, &f); err != nil {
		return bad("%v", err)
	}
	if f.Error != "" {
		return bad("the tool failed: %s", oneLine(f.Error))
	}
	if len(f.Vertices) == 0 || len(f.Joints) == 0 {
		return bad("no vertices or no joints")
	}
	if len(f.Weights) != len(f.Vertices) {
		return bad("%d weight lists for %d vertices", len(f.Weights), len(f.Vertices))
	}
	if !(f.Seconds >= 0) || math.IsInf(f.Seconds, 0) {
		return bad("seconds %v", f.Seconds)
	}
	c := &character.Character{
		Mesh:     character.Mesh{Positions: make([]vecmath.Vec3, len(f.Vertices))},
		Skeleton: &character.Skeleton{Names: f.Joints},
		Skin:     &character.Skin{Weights: make([][]character.Influence, len(f.Weights))},
	}
	for v, p := range f.Vertices {
		if len(p) != 3 {
			return bad("vertex %d has %d coordinates, want 3", v, len(p))
		}
		for i, x := range p {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return bad("vertex %d has a non-finite coordinate", v)
			}
			c.Mesh.Positions[v][i] = x
		}
	}
	for v, row := range f.Weights {
		for _, in := range row {
			if len(in) != 2 {
				return bad("vertex %d has an influence of %d numbers, want [joint, weight]", v, len(in))
			}
			j, w := in[0], in[1]
			// Compared as floats: int() of a huge index is undefined.
			if j != math.Trunc(j) || j < 0 || j >= float64(len(f.Joints)) {
				return bad("vertex %d names joint %v of %d", v, j, len(f.Joints))
			}
			if !(w >= 0) || math.IsInf(w, 0) {
				return bad("vertex %d has weight %v on joint %d", v, w, int(j))
			}
			c.Skin.Weights[v] = append(c.Skin.Weights[v], character.Influence{Joint: int(j), Weight: w})
		}
	}
	return c, f.Seconds, nil
}
