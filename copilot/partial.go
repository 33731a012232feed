package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// partialJSON is the JSON form of a partial skeleton: joints by name, each with its
// parent's name (null for a root) and its position in the input file's world
// units and frame.
type partialJSON struct {
	Joints []partialJoint `json:"joints"`
}

type partialJoint struct {
	Name     string    `json:"name"`
	Parent   *string   `json:"parent"`
	Position []float64 `json:"position"`
}

// LoadPartial reads the skeleton a user starts from: a rigged .glb/.gltf (its
// skeleton at its bind pose) or a .json file ({"joints": [{"name", "parent",
// "position"}]}), read within budget (zero fields: the loader's current budget,
// which the --max-* flags set). The joints
// come back with parents before children; every error names the file. idle names
// the joints a rigged file's own skin gives no weight (a floor root, an armature
// node; skinning.IdleJoints), which the artist meant to move nothing (nil for
// JSON, or a file without a skin).
func LoadPartial(path string, budget format.Budget) (sk *character.Skeleton, idle map[string]bool, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		sk, err = loadPartialJSON(path, budgetOr(budget).JSONBytes)
	case ".glb", ".gltf":
		sk, idle, err = loadPartialGLTF(path, budget)
	default:
		err = errors.New("want a .json, .glb or .gltf file")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("partial skeleton %s: %w", path, err)
	}
	return sk, idle, nil
}

// budgetOr fills b's zero fields from the loader's current budget.
func budgetOr(b format.Budget) format.Budget {
	cur := format.CurrentBudget()
	if b.JSONBytes <= 0 {
		b.JSONBytes = cur.JSONBytes
	}
	return b
}

func loadPartialJSON(path string, maxBytes int64) (*character.Skeleton, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if st.Size() > maxBytes {
		return nil, fmt.Errorf("%d bytes, over the budget of %d (raise it with %s)", st.Size(), maxBytes, format.BudgetFlags["JSONBytes"])
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePartial(data)
}

// ParsePartial parses and checks the JSON form of a partial skeleton.
func ParsePartial(data []byte) (*character.Skeleton, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var pj partialJSON
	if err := dec.Decode(&pj); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	if err := checkJointCount(len(pj.Joints)); err != nil {
		return nil, err
	}
	names := make([]string, len(pj.Joints))
	parents := make([]string, len(pj.Joints))
	pos := make([]vecmath.Vec3, len(pj.Joints))
	for i, j := range pj.Joints {
		if len(j.Position) != 3 {
			return nil, fmt.Errorf("joint %d (%q): position has %d values, want [x, y, z]", i, j.Name, len(j.Position))
		}
		names[i], pos[i] = j.Name, vecmath.Vec3{j.Position[0], j.Position[1], j.Position[2]}
		if j.Parent != nil {
			if *j.Parent == "" {
				return nil, fmt.Errorf("joint %d (%q): parent is an empty name (use null for a root)", i, j.Name)
			}
			parents[i] = *j.Parent
		}
	}
	mats := make([]vecmath.Mat4, len(pos))
	for i, p := range pos {
		mats[i] = vecmath.Translate4(p)
	}
	return buildPartial(names, parents, mats)
}

func loadPartialGLTF(path string, budget format.Budget) (*character.Skeleton, map[string]bool, error) {
	c, _, err := assets.Load(path, assets.Options{Budget: budget, AllowOrphans: true})
	if err != nil {
		return nil, nil, err
	}
	if c.Skeleton == nil || c.Skeleton.NumJoints() == 0 {
		return nil, nil, errors.New("the file has no skeleton (want a rigged file, or a .json partial)")
	}
	sk := c.Skeleton
	if err := checkJointCount(sk.NumJoints()); err != nil {
		return nil, nil, err
	}
	parents := make([]string, sk.NumJoints())
	for j, p := range sk.Parents {
		if p >= 0 && p < len(sk.Names) {
			parents[j] = sk.Names[p]
		}
	}
	out, err := buildPartial(sk.Names, parents, sk.BindWorld)
	if err != nil {
		return nil, nil, err
	}
	return out, skinning.IdleJoints(c), nil
}

// checkJointCount bounds a partial skeleton: at least one joint, at most what one
// token stream holds.
func checkJointCount(n int) error {
	if n == 0 {
		return errors.New("no joints")
	}
	if n > tokens.MaxJoints {
		return fmt.Errorf("%d joints, at most %d (one token stream)", n, tokens.MaxJoints)
	}
	return nil
}

// buildPartial checks names (non-empty, unique), parents (known names, no cycle)
// and bind matrices (finite), and orders the joints parents first, keeping the
// given order among joints whose parents are placed.
func buildPartial(names, parents []string, mats []vecmath.Mat4) (*character.Skeleton, error) {
	index := make(map[string]int, len(names))
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, fmt.Errorf("joint %d has no name", i)
		}
		if k, dup := index[n]; dup {
			return nil, fmt.Errorf("duplicate joint name %q (joints %d and %d)", n, k, i)
		}
		index[n] = i
		if !mats[i].IsFinite() {
			return nil, fmt.Errorf("joint %q: position is not finite", n)
		}
	}
	parent := make([]int, len(names))
	for i, p := range parents {
		parent[i] = -1
		if p == "" {
			continue
		}
		k, ok := index[p]
		if !ok {
			return nil, fmt.Errorf("joint %q: unknown parent %q", names[i], p)
		}
		if k == i {
			return nil, fmt.Errorf("joint %q is its own parent", names[i])
		}
		parent[i] = k
	}
	order, err := parentsFirst(names, parent)
	if err != nil {
		return nil, err
	}
	sk := &character.Skeleton{}
	at := make([]int, len(names))
	for k, i := range order {
		at[i] = k
		p := -1
		if parent[i] >= 0 {
			p = at[parent[i]]
		}
		sk.Names, sk.Parents, sk.BindWorld = append(sk.Names, names[i]), append(sk.Parents, p), append(sk.BindWorld, mats[i])
	}
	return sk, nil
}

// parentsFirst orders joints so that every parent precedes its children (a stable
// topological order), or names a joint on a cycle.
func parentsFirst(names []string, parent []int) ([]int, error) {
	placed := make([]bool, len(names))
	order := make([]int, 0, len(names))
	for len(order) < len(names) {
		progress := false
		for i := range names {
			if !placed[i] && (parent[i] < 0 || placed[parent[i]]) {
				placed[i], progress = true, true
				order = append(order, i)
			}
		}
		if !progress {
			for i := range names {
				if !placed[i] {
					return nil, fmt.Errorf("joint %q: its parents form a cycle", names[i])
				}
			}
		}
	}
	return order, nil
}
