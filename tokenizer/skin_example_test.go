package tokenizer_test

import (
	"fmt"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
	"github.com/rigkit/rigkit/tokenizer"
)

// Encode a creature's weights into skin codes with the shipped skin tokenizer, then
// decode the mean weight field of two code sets (the encoder's, and the same with
// the first bone's first code moved one step), as skin-only mode does with several
// sampled skin-token streams.
func ExampleSkinTokenizer_DecodeMean() {
	tok, err := tokenizer.DefaultSkinTokenizer()
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := synth.Generate("quadruped", 1, synth.Options{TargetVertices: 800})
	if err != nil {
		fmt.Println(err)
		return
	}
	nc := assets.NormalizationOf(c.Mesh).Apply(c) // the tokenizer works in the cube
	codes, err := tok.EncodeAll(nc)
	if err != nil {
		fmt.Println(err)
		return
	}
	other := make([][]int, len(codes))
	for j := range codes {
		other[j] = append([]int(nil), codes[j]...)
	}
	other[0][0] = (other[0][0] + 1) % tokenizer.SkinCodebookSize
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
