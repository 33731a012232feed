package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// Step is one edit of a script (`rig view FILE --script EDITS.json`), a JSON array
// of objects such as
//
//	{"op": "move", "joint": "LeftArm", "delta": [0.02, 0, 0]}
//	{"op": "move", "joint": "LeftArm", "to": [0.3, 1.4, 0]}
//	{"op": "move", "joint": "LeftForeArm", "along": 0.05}
//	{"op": "mirror", "joint": "LeftArm"}
//	{"op": "add", "parent": "Head", "name": "HeadTop", "at": [0, 1.8, 0]}
//	{"op": "delete", "joint": "Spine2"}
//	{"op": "reparent", "joint": "Tail1", "parent": "Hips"}   ("parent": "" makes a root)
//	{"op": "rename", "joint": "joint12", "name": "LeftHand"}
//	{"op": "lock", "joint": "Head"}  {"op": "unlock", "joint": "Head"}
//	{"op": "reskin", "method": "geodesic", "scope": "edited"}   (or "tokens"; "all")
//	{"op": "undo"}  {"op": "redo"}
//	{"op": "save", "out": "fixed.glb"}
//
// Positions and deltas are in the file's world frame; "along" is a distance along
// the bone from the joint's parent.
type Step struct {
	Op     string   `json:"op"`
	Joint  string   `json:"joint,omitempty"`
	Parent *string  `json:"parent,omitempty"`
	Name   string   `json:"name,omitempty"`
	Delta  *Vec3    `json:"delta,omitempty"`
	To     *Vec3    `json:"to,omitempty"`
	Along  *float64 `json:"along,omitempty"`
	At     *Vec3    `json:"at,omitempty"`
	Method string   `json:"method,omitempty"`
	Scope  string   `json:"scope,omitempty"`
	Out    string   `json:"out,omitempty"`
}

// Vec3 is a script's position or delta: a JSON array of exactly three numbers.
type Vec3 vecmath.Vec3

// UnmarshalJSON refuses arrays of another length, which encoding/json would
// silently pad with zeros or cut.
func (v *Vec3) UnmarshalJSON(data []byte) error {
	var xs []float64
	if err := json.Unmarshal(data, &xs); err != nil {
		return fmt.Errorf("want [x, y, z]: %w", err)
	}
	if len(xs) != 3 {
		return fmt.Errorf("want [x, y, z], got %d numbers", len(xs))
	}
	*v = Vec3{xs[0], xs[1], xs[2]}
	return nil
}

// Limits on a script file.
const (
	maxScriptBytes = 16 << 20
	maxScriptSteps = 100000
)

// ParseScript reads and checks a script file; its errors name the file and step.
func ParseScript(path string) ([]Step, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	if len(data) > maxScriptBytes {
		return nil, fmt.Errorf("script %s: larger than %d MiB", path, maxScriptBytes>>20)
	}
	steps, err := DecodeScript(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return steps, nil
}

// DecodeScript decodes and checks a script's JSON.
func DecodeScript(data []byte) ([]Step, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var steps []Step
	if err := dec.Decode(&steps); err != nil {
		return nil, fmt.Errorf("want a JSON array of edits: %w", err)
	}
	if dec.More() {
		return nil, errors.New("data after the array of edits")
	}
	if len(steps) > maxScriptSteps {
		return nil, fmt.Errorf("%d edits: at most %d", len(steps), maxScriptSteps)
	}
	for i, s := range steps {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("edit %d (%q): %w", i+1, s.Op, err)
		}
	}
	return steps, nil
}

// check says what a step lacks or has too much of.
func (s Step) check() error {
	need := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("needs %s", what)
		}
		return nil
	}
	switch s.Op {
	case "move":
		n := btoi(s.Delta != nil) + btoi(s.To != nil) + btoi(s.Along != nil)
		return errors.Join(need(s.Joint != "", `"joint"`), need(n == 1, `exactly one of "delta", "to" and "along"`))
	case "mirror", "delete", "lock", "unlock":
		return need(s.Joint != "", `"joint"`)
	case "add":
		return errors.Join(need(s.Parent != nil && *s.Parent != "", `"parent"`), need(s.At != nil, `"at"`))
	case "reparent":
		return errors.Join(need(s.Joint != "", `"joint"`), need(s.Parent != nil, `"parent" ("" for a root)`))
	case "rename":
		return errors.Join(need(s.Joint != "", `"joint"`), need(s.Name != "", `"name"`))
	case "reskin":
		_, err := ParseScope(s.Scope)
		return err
	case "undo", "redo", "save":
		return nil
	}
	return fmt.Errorf("unknown op (want move, mirror, add, delete, reparent, rename, lock, unlock, reskin, undo, redo or save)")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Env is what a script's steps need beyond the rig.
type Env struct {
	// Skinners are the re-skin methods by name; "geodesic" is always there.
	Skinners map[string]Skinner
	// Save says where the input is and what the reports hold; Out is where a save
	// step without "out" writes (empty: SiblingPath of the input).
	Save SaveOptions
	Out  string
	// Log gets one line per step (nil: none).
	Log io.Writer
}

// Replay applies the steps in order and stops at the first that fails, naming it.
func Replay(r *Rig, steps []Step, env Env) error {
	for i, s := range steps {
		msg, err := r.Apply(s, env)
		if err != nil {
			return fmt.Errorf("edit %d (%s): %w", i+1, s.Op, err)
		}
		if env.Log != nil {
			fmt.Fprintf(env.Log, "%d: %s\n", i+1, msg)
		}
	}
	return nil
}

// Apply runs one step and returns a line saying what it did.
func (r *Rig) Apply(s Step, env Env) (string, error) {
	if err := s.check(); err != nil {
		return "", err
	}
	switch s.Op {
	case "undo":
		label, err := r.Undo()
		return "undo " + label, err
	case "redo":
		label, err := r.Redo()
		return "redo " + label, err
	case "reskin":
		return r.applyReskin(s, env)
	case "save":
		return r.applySave(s, env)
	}
	if err := r.applyJointEdit(s); err != nil {
		return "", err
	}
	return r.undo[len(r.undo)-1].label, nil
}

// applyJointEdit runs the steps that name a joint.
func (r *Rig) applyJointEdit(s Step) error {
	if s.Op == "add" {
		p, err := r.Joint(*s.Parent)
		if err != nil {
			return err
		}
		_, err = r.AddChild(p, s.Name, vecmath.Vec3(*s.At))
		return err
	}
	j, err := r.Joint(s.Joint)
	if err != nil {
		return err
	}
	switch s.Op {
	case "move":
		return r.applyMove(j, s)
	case "mirror":
		return r.Mirror(j)
	case "delete":
		return r.Delete(j)
	case "reparent":
		p := -1
		if *s.Parent != "" {
			if p, err = r.Joint(*s.Parent); err != nil {
				return err
			}
		}
		return r.Reparent(j, p)
	case "rename":
		return r.Rename(j, s.Name)
	}
	return r.Lock(j, s.Op == "lock")
}

func (r *Rig) applyMove(j int, s Step) error {
	switch {
	case s.Delta != nil:
		return r.Move(j, vecmath.Vec3(*s.Delta))
	case s.To != nil:
		return r.MoveTo(j, vecmath.Vec3(*s.To))
	}
	return r.MoveAlongBone(j, *s.Along)
}

func (r *Rig) applyReskin(s Step, env Env) (string, error) {
	method := s.Method
	if method == "" {
		method = "geodesic"
	}
	skin, ok := env.Skinners[method]
	if method == "geodesic" && !ok {
		skin, ok = Geodesic, true
	}
	if !ok {
		return "", fmt.Errorf("re-skin method %q is not available (have geodesic%s)", method, otherSkinners(env.Skinners))
	}
	scope, _ := ParseScope(s.Scope) // checked
	if err := r.Reskin(skin, scope); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s with %s", r.undo[len(r.undo)-1].label, method), nil
}

// otherSkinners lists the methods besides geodesic, sorted, for an error message.
func otherSkinners(m map[string]Skinner) string {
	var names []string
	for n := range m {
		if n != "geodesic" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := ""
	for _, n := range names {
		out += ", " + n
	}
	return out
}

func (r *Rig) applySave(s Step, env Env) (string, error) {
	out := s.Out
	if out == "" {
		out = env.Out
	}
	if out == "" {
		if env.Save.Input == "" {
			return "", errors.New(`save needs "out": the rig has no input file to save beside`)
		}
		out = SiblingPath(env.Save.Input)
	}
	rep, err := r.Save(out, env.Save)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("saved %s (%d joints) and %s", out, rep.Joints, ReportPath(out)), nil
}
