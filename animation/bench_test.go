package animation

import "testing"

// BenchmarkApplyWalk bakes the 1 s walk (31 samples) onto a 59-joint biped.
func BenchmarkApplyWalk(b *testing.B) {
	c := generate(b, "biped", 1)
	clip, _ := Lookup("walk", Humanoid)
	b.ResetTimer()
	for range b.N {
		if _, _, err := Apply(c, clip, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRetargetWalk retargets that walk onto another biped.
func BenchmarkRetargetWalk(b *testing.B) {
	src := generate(b, "biped", 1)
	clip, _ := Lookup("walk", Humanoid)
	a, _, err := Apply(src, clip, Options{})
	if err != nil {
		b.Fatal(err)
	}
	src.Animations = append(src.Animations, a)
	dst := generate(b, "biped", 2)
	b.ResetTimer()
	for range b.N {
		if _, _, err := Retarget(dst, src, 0, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
