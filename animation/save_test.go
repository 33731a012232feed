package animation

import (
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/internal/khronos"

	"github.com/rigkit/rigkit/assets"
)

// TestSavedClipsRoundTrip: every built-in clip, saved into a GLB per kind, is valid
// glTF and loads back moving the joints as before.
func TestSavedClipsRoundTrip(t *testing.T) {
	for _, tc := range []struct{ creature, kind string }{{"biped", Humanoid}, {"quadruped", Quadruped}} {
		path := filepath.Join(t.TempDir(), tc.creature+".glb")
		c := generate(t, tc.creature, 6)
		for _, clip := range Clips() {
			if clip.Kind != tc.kind {
				continue
			}
			a, _, err := Apply(c, clip, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c.Animations = append(c.Animations, a)
		}
		if _, err := assets.Save(path, c); err != nil {
			t.Fatal(err)
		}
		back, _, err := assets.Load(path, assets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Animations) != len(c.Animations) || len(c.Animations) == 0 {
			t.Fatalf("%s: %d animations loaded, %d saved", tc.creature, len(back.Animations), len(c.Animations))
		}
		lo, hi := c.Mesh.Bounds()
		size := hi.Sub(lo).Len()
		for i, a := range c.Animations {
			for _, tm := range []float64{0.13, 0.5} {
				p, q := positionsAt(c, a, tm), positionsAt(back, back.Animations[i], tm)
				for j := range p {
					if d := p[j].Dist(q[j]); d > 1e-4*size {
						t.Fatalf("%s t=%v joint %s moved %.2g after the round trip", a.Name, tm, c.Skeleton.Names[j], d)
					}
				}
			}
		}
		khronos.Check(t, path)
	}
}
