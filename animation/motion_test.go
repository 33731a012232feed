package animation

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestMotion: a named biped plays every humanoid clip of MotionClips, the same
// biped with its names erased plays them by the names guessed from its shape
// (the same frames), a quadruped plays its walk, and a snake gets no frames.
func TestMotion(t *testing.T) {
	biped := generate(t, "biped", 1).Skeleton
	unnamed := biped.Clone()
	for j := range unnamed.Names {
		unnamed.Names[j] = fmt.Sprintf("joint_%02d", j)
	}
	for _, tc := range []struct {
		name   string
		sk     *character.Skeleton
		played []string
	}{
		{"named biped", biped, MotionClips},
		{"unnamed biped", unnamed, MotionClips},
		{"quadruped", generate(t, "quadruped", 1).Skeleton, []string{"walk"}},
		{"snake", generate(t, "snake", 2).Skeleton, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frames, played := Motion(tc.sk, 3)
			if !reflect.DeepEqual(played, tc.played) {
				t.Fatalf("played %v, want %v", played, tc.played)
			}
			if len(frames) != 3*len(tc.played) {
				t.Fatalf("%d frames for %d clips of 3", len(frames), len(tc.played))
			}
			for k, f := range frames {
				if len(f) != tc.sk.NumJoints() {
					t.Fatalf("frame %d has %d matrices for %d joints", k, len(f), tc.sk.NumJoints())
				}
				if moved(f) == 0 {
					t.Errorf("frame %d moves no joint", k)
				}
			}
		})
	}
	named, _ := Motion(biped, 3)
	guessed, _ := Motion(unnamed, 3)
	for k := range named {
		for j := range named[k] {
			if d := maxDiff(named[k][j], guessed[k][j]); d > 1e-9 {
				t.Fatalf("frame %d joint %d differs by %g between the named and the guessed biped", k, j, d)
			}
		}
	}
}

// moved counts the joints whose skinning matrix is not the identity.
func moved(f []vecmath.Mat4) int {
	n := 0
	for _, m := range f {
		if maxDiff(m, vecmath.Identity4()) > 1e-6 {
			n++
		}
	}
	return n
}

func maxDiff(a, b vecmath.Mat4) float64 {
	d := 0.0
	for i := range a {
		d = max(d, abs(a[i]-b[i]))
	}
	return d
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
