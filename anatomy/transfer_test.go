package anatomy_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// joint is a joint of a hand-built skeleton: its name, its parent's name ("" for a
// root) and its position.
type joint struct {
	name, parent string
	at           vecmath.Vec3
}

// tinyHumanoid is a fitted template on a mesh 2 high (NameTolerance: 0.15).
var tinyHumanoid = []joint{
	{"Hips", "", vecmath.Vec3{0, 1, 0}},
	{"Spine", "Hips", vecmath.Vec3{0, 1.3, 0}},
	{"Head", "Spine", vecmath.Vec3{0, 1.8, 0}},
	{"LeftArm", "Spine", vecmath.Vec3{0.3, 1.5, 0}},
	{"LeftForeArm", "LeftArm", vecmath.Vec3{0.6, 1.5, 0}},
	{"RightArm", "Spine", vecmath.Vec3{-0.3, 1.5, 0}},
	{"RightForeArm", "RightArm", vecmath.Vec3{-0.6, 1.5, 0}},
	{"LeftUpLeg", "Hips", vecmath.Vec3{0.15, 0.85, 0}},
	{"LeftLeg", "LeftUpLeg", vecmath.Vec3{0.15, 0.45, 0}},
	{"RightUpLeg", "Hips", vecmath.Vec3{-0.15, 0.85, 0}},
	{"RightLeg", "RightUpLeg", vecmath.Vec3{-0.15, 0.45, 0}},
}

// skeletonOf builds a skeleton in the order given (parents must come first).
func skeletonOf(t *testing.T, js []joint) *character.Skeleton {
	t.Helper()
	idx := map[string]int{}
	sk := &character.Skeleton{}
	for i, j := range js {
		p := -1
		if j.parent != "" {
			var ok bool
			if p, ok = idx[j.parent]; !ok {
				t.Fatalf("joint %s: parent %s not before it", j.name, j.parent)
			}
		}
		idx[j.name] = i
		sk.Names = append(sk.Names, j.name)
		sk.Parents = append(sk.Parents, p)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(j.at))
	}
	return sk
}

// modelLike is a model's skeleton: the joints renamed joint_NNN and moved by d.
func modelLike(t *testing.T, js []joint, d vecmath.Vec3) *character.Skeleton {
	t.Helper()
	sk := skeletonOf(t, js)
	for i := range sk.Names {
		sk.Names[i] = fmt.Sprintf("joint_%03d", i)
		sk.BindWorld[i] = vecmath.Translate4(sk.Position(i).Add(d))
	}
	return sk
}

// edit returns a copy of the template's joints changed by fn.
func edit(fn func([]joint) []joint) []joint {
	return fn(append([]joint(nil), tinyHumanoid...))
}

// parentsByName is each joint's parent's name ("" for the root).
func parentsByName(sk *character.Skeleton) map[string]string {
	out := map[string]string{}
	for j, p := range sk.Parents {
		out[sk.Names[j]] = ""
		if p >= 0 {
			out[sk.Names[j]] = sk.Names[p]
		}
	}
	return out
}

func TestNameFromTemplate(t *testing.T) {
	mesh := &character.Mesh{Positions: []vecmath.Vec3{{-0.5, 0, -0.2}, {0.5, 2, 0.2}}}
	tpl := skeletonOf(t, tinyHumanoid)
	byName := func(js []joint) map[string]string {
		out := map[string]string{}
		for _, j := range js {
			out[j.name] = j.parent
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		model  *character.Skeleton
		want   map[string]string // joint → parent, by name
		naming anatomy.Naming
	}{
		{
			name:   "exact match, moved within tolerance",
			model:  modelLike(t, tinyHumanoid, vecmath.Vec3{0.03, -0.05, 0.04}),
			want:   byName(tinyHumanoid),
			naming: anatomy.Naming{Named: 11, Of: 11, Template: 11, Root: "Hips"},
		},
		{
			name: "missing joints",
			model: modelLike(t, edit(func(js []joint) []joint {
				return append(js[:8], js[9:10]...) // no LeftLeg, no RightLeg
			}), vecmath.Vec3{}),
			want:   byName(edit(func(js []joint) []joint { return append(js[:8], js[9:10]...) })),
			naming: anatomy.Naming{Named: 9, Of: 9, Template: 11, Root: "Hips"},
		},
		{
			name: "extra joints take their named ancestor's name",
			model: modelLike(t, edit(func(js []joint) []joint {
				return append(js,
					joint{"hand", "LeftForeArm", vecmath.Vec3{0.9, 1.5, 0}},
					joint{"finger", "hand", vecmath.Vec3{1.1, 1.5, 0}},
					joint{"tail", "Hips", vecmath.Vec3{0, 0.9, -0.6}})
			}), vecmath.Vec3{}),
			want: func() map[string]string {
				w := byName(tinyHumanoid)
				w["LeftForeArm_extra_1"], w["LeftForeArm_extra_2"], w["Hips_extra_1"] = "LeftForeArm", "LeftForeArm_extra_1", "Hips"
				return w
			}(),
			naming: anatomy.Naming{Named: 11, Of: 14, Template: 11, Root: "Hips"},
		},
		{
			name: "root in the chest is moved to the hips",
			model: modelLike(t, []joint{
				{"Spine", "", vecmath.Vec3{0, 1.3, 0}},
				{"Head", "Spine", vecmath.Vec3{0, 1.8, 0}},
				{"LeftArm", "Spine", vecmath.Vec3{0.3, 1.5, 0}},
				{"LeftForeArm", "LeftArm", vecmath.Vec3{0.6, 1.5, 0}},
				{"RightArm", "Spine", vecmath.Vec3{-0.3, 1.5, 0}},
				{"RightForeArm", "RightArm", vecmath.Vec3{-0.6, 1.5, 0}},
				{"Hips", "Spine", vecmath.Vec3{0, 1, 0}},
				{"LeftUpLeg", "Hips", vecmath.Vec3{0.15, 0.85, 0}},
				{"LeftLeg", "LeftUpLeg", vecmath.Vec3{0.15, 0.45, 0}},
				{"RightUpLeg", "Hips", vecmath.Vec3{-0.15, 0.85, 0}},
				{"RightLeg", "RightUpLeg", vecmath.Vec3{-0.15, 0.45, 0}},
			}, vecmath.Vec3{}),
			want:   byName(tinyHumanoid),
			naming: anatomy.Naming{Named: 11, Of: 11, Template: 11, Rerooted: true, Root: "Hips"},
		},
		{
			name: "a leg hanging from the other thigh moves to the hips",
			model: modelLike(t, edit(func(js []joint) []joint {
				js[9].parent = "LeftUpLeg"
				return js
			}), vecmath.Vec3{}),
			want:   byName(tinyHumanoid),
			naming: anatomy.Naming{Named: 11, Of: 11, Template: 11, Reparented: 1, Root: "Hips"},
		},
		{
			name: "a forearm off the spine moves under the arm",
			model: modelLike(t, edit(func(js []joint) []joint {
				js[4].parent = "Spine"
				return js
			}), vecmath.Vec3{}),
			want:   byName(tinyHumanoid),
			naming: anatomy.Naming{Named: 11, Of: 11, Template: 11, Reparented: 1, Root: "Hips"},
		},
		{
			name: "an arm chain running the wrong way loses the forearm's name",
			model: modelLike(t, edit(func(js []joint) []joint {
				js[3], js[4] = js[4], js[3]
				js[3].parent, js[4].parent = "Spine", "LeftForeArm"
				return js
			}), vecmath.Vec3{}),
			want: func() map[string]string {
				w := byName(tinyHumanoid)
				delete(w, "LeftForeArm")
				w["Spine_extra_1"], w["LeftArm"] = "Spine", "Spine_extra_1"
				return w
			}(),
			naming: anatomy.Naming{Named: 10, Of: 11, Template: 11, Dropped: 1, Root: "Hips"},
		},
		{
			name: "a second root hangs from its nearest joint",
			model: modelLike(t, edit(func(js []joint) []joint {
				js[3].parent = "" // the left arm is a tree of its own
				return js
			}), vecmath.Vec3{}),
			want:   byName(tinyHumanoid),
			naming: anatomy.Naming{Named: 11, Of: 11, Template: 11, Joined: 1, Root: "Hips"},
		},
		{
			name: "trees join the first tree, not each other",
			model: modelLike(t, edit(func(js []joint) []joint {
				js[3].parent, js[4].parent = "", "" // arm and forearm are trees of their own
				return js
			}), vecmath.Vec3{}),
			// Both hang from the spine; the forearm then moves under the arm.
			want:   byName(tinyHumanoid),
			naming: anatomy.Naming{Named: 11, Of: 11, Template: 11, Joined: 2, Reparented: 1, Root: "Hips"},
		},
		{
			name: "no joint near the hips: one is added as the root",
			model: modelLike(t, []joint{
				{"Spine", "", vecmath.Vec3{0, 1.3, 0}},
				{"Head", "Spine", vecmath.Vec3{0, 1.8, 0}},
				{"LeftUpLeg", "Spine", vecmath.Vec3{0.15, 0.85, 0}},
				{"LeftLeg", "LeftUpLeg", vecmath.Vec3{0.15, 0.45, 0}},
				{"RightUpLeg", "Spine", vecmath.Vec3{-0.15, 0.85, 0}},
			}, vecmath.Vec3{}),
			// The left thigh is nearest the hips; the spine moves off it.
			want: map[string]string{"Hips": "", "LeftUpLeg": "Hips", "LeftLeg": "LeftUpLeg",
				"Spine": "Hips", "Head": "Spine", "RightUpLeg": "Spine"},
			naming: anatomy.Naming{Named: 5, Of: 5, Template: 11, Rerooted: true, Inserted: true, Reparented: 1, Root: "Hips"},
		},
		{
			name:  "nothing within tolerance: generic names under an added root",
			model: modelLike(t, tinyHumanoid[:3], vecmath.Vec3{0, 0.3, 0.5}),
			want: map[string]string{
				"Hips": "", "Hips_extra_1": "Hips", "Hips_extra_2": "Hips_extra_1", "Hips_extra_3": "Hips_extra_2",
			},
			naming: anatomy.Naming{Named: 0, Of: 3, Template: 11, Inserted: true, Root: "Hips"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := anatomy.NameFromTemplate(tc.model, tpl, mesh, anatomy.Options{Up: "y"})
			if err != nil {
				t.Fatal(err)
			}
			if g := parentsByName(got.Skeleton); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("joints → parents:\n got %v\nwant %v", g, tc.want)
			}
			if got.Naming != tc.naming {
				t.Errorf("naming %+v, want %+v", got.Naming, tc.naming)
			}
			checkNamed(t, tc.model, got)
		})
	}
}

// checkNamed checks what every named skeleton keeps: each joint at its input
// joint's position, parents first, and a skin that follows its joints.
func checkNamed(t *testing.T, in *character.Skeleton, got *anatomy.Named) {
	t.Helper()
	sk := got.Skeleton
	if err := sk.Validate(); err != nil {
		t.Fatal(err)
	}
	added := 0
	if got.Naming.Inserted {
		added = 1
	}
	if len(got.Order) != in.NumJoints()+added || sk.NumJoints() != in.NumJoints()+added {
		t.Fatalf("%d joints, order %v, input %d joints", sk.NumJoints(), got.Order, in.NumJoints())
	}
	for j, p := range sk.Parents { // the first child is on the parent's local +Y
		if p < 0 || firstChild(sk, p) != j {
			continue
		}
		m := sk.BindWorld[p]
		if bone := sk.Position(j).Sub(sk.Position(p)).Normalize(); bone.Dot(vecmath.Vec3{m[4], m[5], m[6]}) < 0.999 {
			t.Errorf("joint %s does not point at its child %s", sk.Names[p], sk.Names[j])
		}
	}
	skin := &character.Skin{}
	for j := range in.Names {
		skin.Weights = append(skin.Weights, []character.Influence{{Joint: j, Weight: 1}})
	}
	moved := got.Skin(skin)
	for i, j := range got.Order {
		if j < 0 {
			if !got.Naming.Inserted || i != 0 {
				t.Errorf("joint %d (%s) comes from no input joint", i, sk.Names[i])
			}
			continue
		}
		if d := sk.Position(i).Dist(in.Position(j)); d > 1e-12 {
			t.Errorf("joint %d (%s) moved by %g", i, sk.Names[i], d)
		}
		if w := moved.Weights[j]; w[0].Joint != i {
			t.Errorf("vertex bound to input joint %d is bound to %d, want %d", j, w[0].Joint, i)
		}
	}
}

func TestNameFromTemplateErrors(t *testing.T) {
	tpl := skeletonOf(t, tinyHumanoid)
	mesh := &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {0, 2, 0}}}
	flat := &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 1}}}
	bad := modelLike(t, tinyHumanoid, vecmath.Vec3{})
	bad.Parents[0] = 3
	for _, tc := range []struct {
		name      string
		sk, tpl   *character.Skeleton
		mesh      *character.Mesh
		wantError string
	}{
		{"child before parent", bad, tpl, mesh, "parents must precede children"},
		{"empty template", tpl, &character.Skeleton{}, mesh, "template"},
		{"flat mesh", tpl, tpl, flat, "no height"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := anatomy.NameFromTemplate(tc.sk, tc.tpl, tc.mesh, anatomy.Options{Up: "y"})
			if err == nil || !strings.Contains(err.Error(), tc.wantError) {
				t.Fatalf("error %v, want one saying %q", err, tc.wantError)
			}
		})
	}
}

func firstChild(sk *character.Skeleton, p int) int {
	for j, q := range sk.Parents {
		if q == p {
			return j
		}
	}
	return -1
}
