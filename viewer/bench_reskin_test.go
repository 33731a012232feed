package viewer

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigkit/rigkit/viewer/edit"
)

// BenchmarkFrameWhileReskin times 1280×720 frames of a 20k-vertex character while
// a re-skin runs in the background, as the workbench's K key runs one ("reskin"),
// against the same frames with nothing in the background ("idle"). It reports the
// mean and the slowest frame: the window must stay responsive while weights are
// recomputed. The background job is geodesic in a loop (the token decoder needs the
// model, which this package does not link); both use every core.
func BenchmarkFrameWhileReskin(b *testing.B) {
	for _, busy := range []bool{false, true} {
		name := "idle"
		if busy {
			name = "reskin"
		}
		b.Run(name, func(b *testing.B) {
			off := offscreenSized(b, 1280, 720)
			defer off.close()
			c := sampleCharacter(24, 40000)
			v, err := buildView(c, ShotOptions{Mode: ModeHeatmap, Bone: "spine5", Overlay: helpLines}, 1280, 720)
			if err != nil {
				b.Fatal(err)
			}
			if err := off.renderNoRead(v); err != nil {
				b.Fatal(err)
			}
			off.finish()
			var stop atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				for busy && !stop.Load() {
					if _, err := edit.Geodesic(c); err != nil {
						b.Error(err)
						return
					}
				}
			}()
			slowest := time.Duration(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				v.Rigs[0].Pose = seededPose(c.Skeleton, int64(i))
				if err := off.renderNoRead(v); err != nil {
					b.Fatal(err)
				}
				off.finish()
				slowest = max(slowest, time.Since(t0))
			}
			b.StopTimer()
			stop.Store(true)
			<-done
			b.ReportMetric(float64(len(c.Mesh.Positions)), "vertices")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms/frame")
		})
	}
}
