package autorig

import (
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// blockyRig is one box, stored as loose faces, around a two-joint chain, each
// vertex split evenly between the two joints.
func blockyRig() *character.Character {
	c := &character.Character{Skeleton: &character.Skeleton{Names: []string{"a", "b"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0, 0.5, 0}), vecmath.Translate4(vecmath.Vec3{0, 3, 0})}}}
	meshtest.AppendLooseBox(&c.Mesh, vecmath.Vec3{-1, 0, -1}, vecmath.Vec3{1, 2, 1})
	c.Skin = &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v := range c.Skin.Weights {
		c.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}
	}
	return c
}

func TestRigidBlocks(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rig        *character.Character
		wantMethod string
		wantScore  bool
	}{
		{"a box follows the joint on it", blockyRig(), "tokenrig+heat@0.3/blocks", false},
		{"no block: the rig as it was, with its score", twoJointRig(), "tokenrig+heat@0.3", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, info, err := RigidBlocks{fixedRigger{rig: tc.rig, method: "tokenrig+heat@0.3"}}.Rig(nil)
			if err != nil {
				t.Fatal(err)
			}
			if info.Method != tc.wantMethod || (info.Score != nil) != tc.wantScore {
				t.Errorf("method %q, score kept %v; want %q, %v", info.Method, info.Score != nil, tc.wantMethod, tc.wantScore)
			}
			if tc.wantScore {
				return
			}
			for v, ws := range out.Skin.Weights {
				if len(ws) != 1 || ws[0] != (character.Influence{Joint: 0, Weight: 1}) {
					t.Fatalf("vertex %d: %v, want joint a alone (the joint on the box)", v, ws)
				}
			}
			if tc.rig.Skin.Weights[0][0].Weight != 0.5 {
				t.Error("the rigger's own skin was changed")
			}
		})
	}
}
