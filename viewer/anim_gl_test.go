package viewer

import (
	"testing"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/synth"
)

// TestAnimationScreenshots: a walk baked by package animation, drawn at two times,
// gives two different images, each matching the CPU-skinned silhouette of the
// animated joints (so the GPU plays the file's animation, not the bind pose).
func TestAnimationScreenshots(t *testing.T) {
	openOffscreen(t)
	c, err := synth.Generate("biped", 2, synth.Options{TargetVertices: 2000})
	if err != nil {
		t.Fatal(err)
	}
	clip, err := animation.Lookup("walk", animation.Humanoid)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := animation.Apply(c, clip, animation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Animations = []character.Animation{a}
	cam := defaultCamera()
	cam.Yaw += 1.2 // from the side, where a walk shows
	lo, hi := c.Mesh.Bounds()
	cam.frame(lo, hi, float64(shotW)/shotH)
	magenta := [3]float32{1, 0, 1}
	var masks [][]bool
	for _, tm := range []float64{0, 0.5} {
		o := ShotOptions{HideSkeleton: true, Pose: ShotPose{Animation: "walk", Time: tm},
			Frame: ShotFrame{Camera: &cam, Background: magenta}}
		gpu := mask(render(t, c, o))
		r := newRig(c)
		r.World = animation.AnimatedWorld(c.Skeleton, a, tm)
		raster := silhouette(cam.viewProj(float64(shotW)/shotH), r.deformedPositions(), c.Mesh.Triangles, shotW, shotH)
		if iou := iou(gpu, raster); iou < 0.95 {
			t.Errorf("t=%v: GPU image vs CPU-skinned walk IoU %.4f < 0.95", tm, iou)
		}
		masks = append(masks, gpu)
	}
	if iou := iou(masks[0], masks[1]); iou > 0.97 {
		t.Errorf("the walk at 0 s and 0.5 s looks the same (IoU %.4f)", iou)
	}
	if _, err := buildView(c, ShotOptions{Pose: ShotPose{Animation: "dance"}}, shotW, shotH); err == nil {
		t.Error("an animation the file lacks gave no error")
	}
}
