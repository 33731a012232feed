package gltfio

import (
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// updateAnimations brings the document's animations of a kept skeleton in line
// with the Character's: a loaded animation the Character still has unchanged stays
// as the file wrote it (its interpolation, its morph-weight and non-joint
// channels); one the Character dropped or changed is removed (reported as
// replaced); the Character's other animations are added, root joints' channels
// taken from the Character's frame into their parent node's frame.
func (e *sceneEditor) updateAnimations() {
	s := e.src
	kept := map[string]bool{}
	loaded := map[string]bool{}
	for _, a := range s.Animations {
		loaded[a.Name] = true
		if hasAnimation(e.c.Animations, a) {
			kept[a.Name] = true
		}
	}
	var docAnims []*gltf.Animation
	for ai, ga := range e.doc.Animations {
		name := loadedAnimationName(ga, ai)
		if ga != nil && loaded[name] && !kept[name] {
			e.rep.Replaced.Animations++
			e.rep.ReplacedAnimations = append(e.rep.ReplacedAnimations, name)
			continue
		}
		docAnims = append(docAnims, ga)
	}
	e.doc.Animations = docAnims
	var added []character.Animation
	for _, a := range e.c.Animations {
		if !kept[a.Name] || !hasAnimation(s.Animations, a) {
			added = append(added, a)
		}
	}
	before := len(e.doc.Animations)
	e.writeAnimations(reframeRoots(added, e.c.Skeleton, e.rootFrameOf), s.JointNodes, nil)
	e.rep.Added.Animations = len(e.doc.Animations) - before
}

// loadedAnimationName is the name the loader gives document animation ai.
func loadedAnimationName(ga *gltf.Animation, ai int) string {
	if ga == nil || ga.Name == "" {
		return fmt.Sprintf("animation_%d", ai)
	}
	return ga.Name
}

// rootFrameOf takes root joint j's Character-frame transforms to the frame of its
// node's parent (the world for a scene root): the inverse of the loader's
// re-framing, so that what the loader read comes back as the file wrote it.
func (e *sceneEditor) rootFrameOf(j int) vecmath.Mat4 {
	node := e.src.JointNodes[j]
	parents := nodeParents(e.src.Doc)
	if p := parents[node]; p >= 0 && p < len(e.src.World) {
		if inv, ok := e.src.World[p].Inverse(); ok {
			return inv.Mul(e.src.BindToWorld)
		}
	}
	return e.src.BindToWorld
}

// hasAnimation reports whether list holds an animation equal to a (name and keys).
func hasAnimation(list []character.Animation, a character.Animation) bool {
	for _, b := range list {
		if b.Name == a.Name && sameChannels(a.Channels, b.Channels) {
			return true
		}
	}
	return false
}

func sameChannels(a, b []character.AnimationChannel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Joint != b[i].Joint || a[i].Path != b[i].Path || !sameFloats(a[i].Times, b[i].Times) || !sameFloats(a[i].Values, b[i].Values) {
			return false
		}
	}
	return true
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// cloneAnimation deep-copies a, so that edits of the Character's animations do not
// reach the Scene's record of what was loaded.
func cloneAnimation(a character.Animation) character.Animation {
	out := character.Animation{Name: a.Name, Channels: make([]character.AnimationChannel, len(a.Channels))}
	for i, ch := range a.Channels {
		ch.Times = append([]float64(nil), ch.Times...)
		ch.Values = append([]float64(nil), ch.Values...)
		out.Channels[i] = ch
	}
	return out
}
