package viewer

import (
	"testing"
)

// BenchmarkFrame100k times one 1280×720 frame of a 100k-triangle character with a
// new pose every frame (forward kinematics, joint upload, GPU skinning, skeleton and
// text overlay), waiting for the GPU to finish. Under Xvfb this is Mesa's llvmpipe
// software renderer.
func BenchmarkFrame100k(b *testing.B) {
	for _, mode := range []Mode{ModeShaded, ModeHeatmap, ModeWireframe} {
		b.Run(mode.String(), func(b *testing.B) {
			off := offscreenSized(b, 1280, 720)
			defer off.Close()
			c := SampleCharacter(24, 100000)
			v, err := BuildView(c, ShotOptions{Mode: mode, Bone: "spine5", Overlay: HelpLines}, 1280, 720)
			if err != nil {
				b.Fatal(err)
			}
			if err := off.RenderNoRead(v); err != nil { // upload buffers outside the timing
				b.Fatal(err)
			}
			off.Finish()
			b.ReportMetric(float64(len(c.Mesh.Triangles)), "tris")
			cpu0 := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v.Rigs[0].Pose = RandomPose(c.Skeleton, int64(i))
				if err := off.RenderNoRead(v); err != nil {
					b.Fatal(err)
				}
				off.Finish()
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
			// CPU time of the whole process (Go + llvmpipe threads): less sensitive to
			// other load on a shared machine than wall time.
			b.ReportMetric((processCPU()-cpu0)*1000/float64(b.N), "cpu-ms/frame")
			b.Logf("renderer: %s", off.Renderer())
		})
	}
}

// offscreenSized makes a dedicated offscreen target or skips like offscreen does.
func offscreenSized(tb testing.TB, w, h int) *Offscreen {
	tb.Helper()
	offscreen(tb) // skip or fail consistently when there is no GL
	o, err := NewOffscreen(w, h)
	if err != nil {
		tb.Fatal(err)
	}
	return o
}
