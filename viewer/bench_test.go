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
			defer off.close()
			c := sampleCharacter(24, 100000)
			v, err := buildView(c, ShotOptions{Mode: mode, Bone: "spine5", Overlay: helpLines}, 1280, 720)
			if err != nil {
				b.Fatal(err)
			}
			if err := off.renderNoRead(v); err != nil { // upload buffers outside the timing
				b.Fatal(err)
			}
			off.finish()
			b.ReportMetric(float64(len(c.Mesh.Triangles)), "tris")
			cpu0 := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v.Rigs[0].Pose = seededPose(c.Skeleton, int64(i))
				if err := off.renderNoRead(v); err != nil {
					b.Fatal(err)
				}
				off.finish()
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
			// CPU time of the whole process (Go + llvmpipe threads): less sensitive to
			// other load on a shared machine than wall time.
			b.ReportMetric((processCPU()-cpu0)*1000/float64(b.N), "cpu-ms/frame")
			b.Logf("renderer: %s", off.renderer())
		})
	}
}

// offscreenSized makes a dedicated offscreen target or skips like offscreen does.
func offscreenSized(tb testing.TB, w, h int) *offscreen {
	tb.Helper()
	openOffscreen(tb) // skip or fail consistently when there is no GL
	o, err := newOffscreen(w, h)
	if err != nil {
		tb.Fatal(err)
	}
	return o
}
