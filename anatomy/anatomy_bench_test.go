package anatomy_test

import (
	"testing"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/synth"
)

// BenchmarkFit30k times the anatomy step alone (kind, up axis and symmetry
// detected, template fitted) on a 30,000-vertex synthetic biped, the classical
// proposal made once beforehand.
func BenchmarkFit30k(b *testing.B) {
	c, err := synth.Generate("biped", 1, synth.Options{TargetVertices: 30000})
	if err != nil {
		b.Fatal(err)
	}
	prop, err := classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := anatomy.Fit(&c.Mesh, prop, anatomy.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
