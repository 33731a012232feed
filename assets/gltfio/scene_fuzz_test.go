package gltfio

import (
	"bytes"
	"testing"

	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
)

// FuzzSaveScene decodes arbitrary bytes with their scene kept and writes them back
// (as loaded, and with every vertex bound to a new one-joint skeleton): writing
// must not fail on a file the loader accepted, and the output must load with as
// many vertices.
func FuzzSaveScene(f *testing.F) {
	f.Add(glbBytes(f, docOf(f, meshtest.Tube(f, 3, 4, 2))))
	f.Add(glbBytes(f, skinnedQuadDoc(true)))
	f.Add([]byte(`{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := testDecode(bytes.NewReader(data), "fuzz.glb", nil, testOptions{KeepScene: true, AllowOrphans: true})
		if err != nil {
			return
		}
		one := c.Clone()
		lo, _ := c.Mesh.Bounds()
		one.Skeleton = &character.Skeleton{Names: []string{"root"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.TRS(lo, vecmath.Quat{0, 0, 0, 1}, vecmath.Vec3{1, 1, 1})}}
		one.Skin = &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
		for v := range one.Skin.Weights {
			one.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1}}
		}
		for _, ch := range []*character.Character{c, one} {
			var buf bytes.Buffer
			if _, err := Encode(&buf, ch); err != nil {
				t.Fatalf("encode a loaded file: %v", err)
			}
			back, _, err := testDecode(bytes.NewReader(buf.Bytes()), "back.glb", nil, testOptions{AllowOrphans: true})
			if err != nil {
				t.Fatalf("reload: %v", err)
			}
			if len(back.Mesh.Positions) != len(c.Mesh.Positions) {
				t.Fatalf("reloaded %d vertices, wrote %d", len(back.Mesh.Positions), len(c.Mesh.Positions))
			}
		}
	})
}
