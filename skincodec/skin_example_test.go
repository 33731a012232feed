package skincodec_test

import (
	"fmt"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// Encode a creature's weights into skin codes with the shipped skin tokenizer, then
// decode the mean weight field of two code sets (the encoder's, and the same with
// the first bone's first code moved one step), as skin-only mode does with several
// sampled skin-token streams.
func ExampleSkinTokenizer_DecodeMean() {
	tok, err := skincodec.Load("")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := synth.Generate("quadruped", 1, synth.Options{TargetVertices: 800})
	if err != nil {
		fmt.Println(err)
		return
	}
	nc := character.NormalizationOf(c.Mesh).Apply(c) // the tokenizer works in the cube
	codes, err := tok.EncodeAll(nc)
	if err != nil {
		fmt.Println(err)
		return
	}
	other := make([][]int, len(codes))
	for j := range codes {
		other[j] = append([]int(nil), codes[j]...)
	}
	other[0][0] = (other[0][0] + 1) % tokens.SkinCodebookSize
	skin, err := tok.DecodeMean(nc, nc.Skeleton, [][][]int{codes, other})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("codes per bone:", len(codes[0]))
	fmt.Println("valid skin:", skin.Validate(len(nc.Mesh.Positions), nc.Skeleton.NumJoints(), 1e-5) == nil)
	// Output:
	// codes per bone: 12
	// valid skin: true
}

// A mesh of two pieces: a body of two triangles and a small loose triangle (say a
// buckle) whose vertices decoded mostly to joint 1. Snapping binds the buckle
// wholly to joint 1; the body, more than half the mesh, is left alone.
func ExampleSnapPieces() {
	mesh := &character.Mesh{
		Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {3, 0, 0}, {4, 0, 0}, {3, 1, 0}},
		Triangles: [][3]int{{0, 1, 2}, {1, 3, 2}, {4, 5, 6}},
	}
	half := []character.Influence{{Joint: 0, Weight: 0.5}, {Joint: 1, Weight: 0.5}}
	skin := &character.Skin{Weights: [][]character.Influence{
		{{Joint: 0, Weight: 1}}, half, half, {{Joint: 0, Weight: 1}},
		{{Joint: 1, Weight: 0.8}, {Joint: 0, Weight: 0.2}}, {{Joint: 1, Weight: 1}}, {{Joint: 0, Weight: 0.6}, {Joint: 1, Weight: 0.4}},
	}}
	n := skincodec.SnapPieces(mesh, skin, 0.6)
	fmt.Println("rebound", n, "vertices")
	for v := 4; v < 7; v++ {
		fmt.Println(v, skin.Weights[v])
	}
	fmt.Println(1, skin.Weights[1])
	// Output:
	// rebound 2 vertices
	// 4 [{1 1}]
	// 5 [{1 1}]
	// 6 [{1 1}]
	// 1 [{0 0.5} {1 0.5}]
}
