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

// BenchmarkCheckPosture poses the walk's skinned mesh (about 1,500 vertices) at
// PostureSamples times, the self-check `rig animate` runs per added clip; compare
// with BenchmarkApplyWalk.
func BenchmarkCheckPosture(b *testing.B) {
	c := generate(b, "biped", 1)
	clip, _ := Lookup("walk", Humanoid)
	a, _, err := Apply(c, clip, Options{})
	if err != nil {
		b.Fatal(err)
	}
	times := PostureTimes(clip.Duration, PostureSamples)
	b.ResetTimer()
	for range b.N {
		if err := CheckPosture(c, a, times); err != nil {
			b.Fatal(err)
		}
	}
}
