package copilot_test

import (
	"fmt"

	"github.com/rigkit/rigkit/copilot"
)

// A partial skeleton in its JSON form: joints may come in any order, and come back
// parents first, at exactly the given positions.
func ExampleParsePartial() {
	sk, err := copilot.ParsePartial([]byte(`{"joints": [
		{"name": "hand_l", "parent": "arm_l", "position": [0.56, 0.92, 0]},
		{"name": "arm_l", "parent": "hips", "position": [0.15, 1.13, 0]},
		{"name": "hips", "parent": null, "position": [0, 0.68, 0]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for j, n := range sk.Names {
		fmt.Println(n, sk.Parents[j], sk.Position(j))
	}
	_, err = copilot.ParsePartial([]byte(`{"joints": [{"name": "hand_l", "parent": "arm_l", "position": [0, 0, 0]}]}`))
	fmt.Println(err)
	// Output:
	// hips -1 [0 0.68 0]
	// arm_l 0 [0.15 1.13 0]
	// hand_l 1 [0.56 0.92 0]
	// joint "hand_l": unknown parent "arm_l"
}
