package synth

import (
	"math/rand"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets"
)

func TestScratch(t *testing.T) {
	for _, k := range Kinds() {
		for seed := int64(0); seed < 4; seed++ {
			t0 := time.Now()
			c, err := Generate(k, seed, Options{})
			if err != nil {
				t.Fatal(err)
			}
			dt := time.Since(t0)
			b, nm, mo := edgeStats(c.Mesh)
			rng := rand.New(rand.NewSource(1))
			ff := 0.0
			for p := 0; p < 4; p++ {
				d, _ := c.Deform(assets.RandomPose(rng, c.Skeleton.NumJoints(), 0.785))
				ff += flipFraction(c.Mesh, d) / 4
			}
			t.Logf("%-9s %d v=%5d j=%2d b=%d nm=%d mo=%d vol=%.3f flip=%.4f %v", k, seed, len(c.Mesh.Positions), c.Skeleton.NumJoints(), b, nm, mo, signedVolume(c.Mesh), ff, dt)
		}
	}
}
