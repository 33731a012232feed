package viewer

import (
	"fmt"
	"image"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
)

// maxPoseAngle is the largest random joint rotation (45°, as METRICS.md poses).
const maxPoseAngle = math.Pi / 4

// ShotOptions says what a screenshot shows. What is drawn stays at the top; the
// character's pose and the image's framing come as groups.
type ShotOptions struct {
	Mode Mode // mesh coloring
	Bone string
	// Compare, when set, is drawn beside the character with the same camera
	// (the pose and bone carried over by joint name).
	Compare      *character.Character
	Labels       [2]string // captions of the two rigs when comparing
	HideSkeleton bool
	Overlay      []string // text lines; nil draws none
	CPUSkin      bool     // skin on the CPU instead of the GPU (testing)
	Highlight    []int    // vertices painted in the highlight colour (a problem's region)
	Pose         ShotPose
	Frame        ShotFrame
}

// ShotPose is the pose a screenshot shows: a given one, a random one, or a frame
// of one of the character's animations; the zero value is the bind pose.
type ShotPose struct {
	// Fixed poses the character; nil keeps the bind pose unless Random is set.
	Fixed  character.Pose
	Random bool
	Seed   int64 // for Random
	// Animation, when not empty, poses the character by its animation of that name
	// (or index, "0" for the first) at Time seconds, instead of Fixed.
	Animation string
	Time      float64
}

// ShotFrame is the image and its camera; the zero value frames everything in a
// 1280×720 image from the default direction.
type ShotFrame struct {
	Width, Height int     // pixels; 0 means 1280×720
	Camera        *Camera // nil frames everything from the default direction
	// Yaw, when set, turns the default camera about the vertical (radians; 0 looks
	// at the character's front, π/2 at its left side) before framing.
	Yaw        *float64
	Background [3]float32
}

// seededPose is character.RandomPose (METRICS.md: every joint about a random axis by up
// to 45°) with the root joints kept at rest, so the character stays upright on screen.
func seededPose(sk *character.Skeleton, seed int64) character.Pose {
	return randomPose(sk, rand.New(rand.NewSource(seed)))
}

func randomPose(sk *character.Skeleton, rng *rand.Rand) character.Pose {
	n := sk.NumJoints()
	p := character.RandomPose(rng, n, maxPoseAngle)
	for j := 0; j < n; j++ {
		if sk.Parents[j] < 0 {
			p[j] = vecmath.Quat{0, 0, 0, 1}
		}
	}
	return p
}

// buildView turns screenshot options into a view framed for a w×h image. It fails
// when the named bone does not exist.
func buildView(c *character.Character, o ShotOptions, w, h int) (*view, error) {
	r := newRig(c)
	r.CPUSkin = o.CPUSkin
	r.Highlight = o.Highlight
	if o.Bone != "" {
		if r.Selected = jointByName(c.Skeleton, o.Bone); r.Selected < 0 {
			return nil, fmt.Errorf("no joint named %q in %s (%d joints)", o.Bone, c.Name, c.Skeleton.NumJoints())
		}
	}
	switch {
	case o.Pose.Fixed != nil:
		r.Pose = o.Pose.Fixed
	case o.Pose.Random:
		r.Pose = seededPose(c.Skeleton, o.Pose.Seed)
	}
	if o.Pose.Animation != "" {
		i, err := findAnimation(c, o.Pose.Animation)
		if err != nil {
			return nil, err
		}
		r.World = animation.AnimatedWorld(c.Skeleton, c.Animations[i], o.Pose.Time)
	}
	v := &view{Rigs: []*rig{r}, Mode: o.Mode, HideSkeleton: o.HideSkeleton, Overlay: o.Overlay,
		Camera: defaultCamera(), Background: o.Frame.Background}
	if o.Compare != nil {
		b := newRig(o.Compare)
		b.CPUSkin = o.CPUSkin
		if c.Skeleton != nil && o.Compare.Skeleton != nil {
			b.Pose = mapPose(c.Skeleton, o.Compare.Skeleton, r.Pose)
			b.Selected = matchJoint(c.Skeleton, o.Compare.Skeleton, r.Selected)
		}
		r.Label, b.Label = o.Labels[0], o.Labels[1]
		v.Rigs = append(v.Rigs, b)
	}
	if o.Frame.Camera != nil {
		v.Camera = *o.Frame.Camera
	} else {
		if o.Frame.Yaw != nil {
			v.Camera.Yaw = *o.Frame.Yaw
		}
		v.frameAll(w, h)
	}
	return v, nil
}

// Screenshot renders one image of c offscreen. Errors wrap ErrNoDisplay when no
// OpenGL context can be made.
func Screenshot(c *character.Character, o ShotOptions) (*image.RGBA, error) {
	w, h := o.Frame.Width, o.Frame.Height
	if w == 0 && h == 0 {
		w, h = 1280, 720
	}
	v, err := buildView(c, o, w, h)
	if err != nil {
		return nil, err
	}
	off, err := newOffscreen(w, h)
	if err != nil {
		return nil, err
	}
	defer off.close()
	return off.render(v)
}

// Stats returns the overlay line describing a character: vertices, triangles,
// joints, influences per vertex and animations.
func Stats(c *character.Character) string {
	maxInf, sum := 0, 0
	if c.Skin != nil {
		for _, w := range c.Skin.Weights {
			maxInf = max(maxInf, len(w))
			sum += len(w)
		}
	}
	mean := 0.0
	if n := len(c.Mesh.Positions); n > 0 {
		mean = float64(sum) / float64(n)
	}
	return fmt.Sprintf("%s: %d verts, %d tris, %d joints, %.2f influences/vert (max %d), %d animations",
		c.Name, len(c.Mesh.Positions), len(c.Mesh.Triangles), c.Skeleton.NumJoints(), mean, maxInf, len(c.Animations))
}
