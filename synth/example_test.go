package synth_test

import (
	"fmt"

	"github.com/rigkit/rigkit/synth"
)

func ExampleGenerate() {
	c, err := synth.Generate("spider", 42, synth.Options{TargetVertices: 2000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(synth.Kinds())
	fmt.Println(c.Validate() == nil, c.Skeleton.Names[0])
	// Output:
	// [biped multi prop quadruped snake spider tailed winged]
	// true body
}
