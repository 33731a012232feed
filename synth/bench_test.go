package synth

import (
	"testing"
)

// BenchmarkGenerate measures one creature at the default 5k vertices, cycling
// through the kinds; creatures/s = 1e9 / ns/op per core.
func BenchmarkGenerate(b *testing.B) {
	kinds := Kinds()
	for i := 0; b.Loop(); i++ {
		if _, err := Generate(kinds[i%len(kinds)], int64(i), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
