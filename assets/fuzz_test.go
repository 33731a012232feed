package assets

import (
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the glTF decoder: it must return a character
// or an error, never panic, hang or allocate far beyond the input. A character it
// returns must be valid. The seed corpus is the valid and corrupt inputs of the
// table tests plus testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add(glbBytes(f, docOf(f, tubeCharacter(f, 3, 4, 2))))
	f.Add(glbBytes(f, skinnedQuadDoc(true)))
	for _, tc := range corruptCases(f) {
		f.Add(tc.data)
	}
	f.Add([]byte(`{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, rep, err := Decode(data, "fuzz.glb", nil)
		if err != nil {
			return
		}
		if rep == nil {
			t.Fatal("nil report without error")
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("loaded an invalid character: %v", verr)
		}
		_ = Inspect(c)
	})
}
