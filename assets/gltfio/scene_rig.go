package gltfio

import (
	"math"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// This file replaces a source scene's rig: it removes the old skins, joint nodes
// and the animation channels that drove them, and adds the Character's skeleton
// under the mesh nodes' nearest common ancestor.

// nodeParents returns each node's parent (-1 for roots).
func nodeParents(doc *gltf.Document) []int {
	parent := make([]int, len(doc.Nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i, nd := range doc.Nodes {
		for _, ch := range nd.Children {
			if ch >= 0 && ch < len(parent) {
				parent[ch] = i
			}
		}
	}
	return parent
}

// removeRig removes every skin, the joint nodes (a joint that draws a mesh or
// holds a camera stays as a plain node) and the animation channels that target
// removed nodes; an animation left without channels is removed.
func (e *sceneEditor) removeRig() {
	doc := e.doc
	remove := make([]bool, len(doc.Nodes))
	for _, node := range e.src.JointNodes {
		remove[node] = true
	}
	for _, s := range doc.Skins {
		for _, j := range s.Joints {
			if j >= 0 && j < len(remove) {
				remove[j] = true
			}
		}
	}
	for i, nd := range doc.Nodes {
		if remove[i] && (nd.Mesh != nil || nd.Camera != nil) {
			remove[i] = false
			e.rep.drop("it draws a mesh or holds a camera, so it stays as a plain node", "joint node %d (%q) of the replaced skeleton", i, nd.Name)
		}
		if remove[i] {
			e.rep.Replaced.Joints++
		}
	}
	e.rep.Replaced.Skins = len(doc.Skins)
	for _, nd := range doc.Nodes {
		nd.Skin = nil
	}
	doc.Skins, e.srcSkins = nil, 0
	e.dropChannels(remove)
	e.removeNodes(remove)
}

// dropChannels removes animation channels that target removed nodes, and their
// samplers.
func (e *sceneEditor) dropChannels(remove []bool) {
	var kept []*gltf.Animation
	for ai, a := range e.doc.Animations {
		var chs []*gltf.AnimationChannel
		for _, ch := range a.Channels {
			if n := ch.Target.Node; n != nil && *n >= 0 && *n < len(remove) && remove[*n] {
				continue
			}
			chs = append(chs, ch)
		}
		switch {
		case len(chs) == len(a.Channels):
			kept = append(kept, a)
			continue
		case len(chs) == 0:
			e.rep.Replaced.Animations++
			e.rep.ReplacedAnimations = append(e.rep.ReplacedAnimations, a.Name)
			continue
		}
		e.rep.drop("they drove the replaced skeleton", "animation %d (%q): %d of %d channels", ai, a.Name, len(a.Channels)-len(chs), len(a.Channels))
		newIdx := map[int]int{}
		var samplers []*gltf.AnimationSampler
		for _, ch := range chs {
			k, ok := newIdx[ch.Sampler]
			if !ok {
				k = len(samplers)
				newIdx[ch.Sampler] = k
				samplers = append(samplers, a.Samplers[ch.Sampler])
			}
			ch.Sampler = k
		}
		a.Channels, a.Samplers = chs, samplers
		kept = append(kept, a)
	}
	e.doc.Animations = kept
}

// removeNodes deletes the marked nodes. Their surviving descendants move up to the
// nearest surviving ancestor (or become roots where the removed node was one),
// keeping their world transforms.
func (e *sceneEditor) removeNodes(remove []bool) {
	doc := e.doc
	parent := nodeParents(doc)
	for i, nd := range doc.Nodes {
		if remove[i] || parent[i] < 0 || !remove[parent[i]] {
			continue
		}
		p := parent[i]
		for p >= 0 && remove[p] {
			p = parent[p]
		}
		local := e.world[i]
		if p >= 0 {
			if inv, ok := e.world[p].Inverse(); ok {
				local = inv.Mul(e.world[i])
			}
		}
		setLocal(nd, local)
	}
	var expand func(list []int) []int
	expand = func(list []int) []int {
		var out []int
		for _, c := range list {
			if c < 0 || c >= len(remove) {
				continue
			}
			if remove[c] {
				out = append(out, expand(doc.Nodes[c].Children)...)
			} else {
				out = append(out, c)
			}
		}
		return out
	}
	e.nodeMap = make([]int, len(doc.Nodes))
	var nodes []*gltf.Node
	var world []vecmath.Mat4
	for i, nd := range doc.Nodes {
		if remove[i] {
			e.nodeMap[i] = -1
			continue
		}
		e.nodeMap[i] = len(nodes)
		nodes = append(nodes, nd)
		world = append(world, e.world[i])
	}
	remap := func(list []int) []int {
		out := make([]int, 0, len(list))
		for _, c := range expand(list) {
			out = append(out, e.nodeMap[c])
		}
		return out
	}
	for _, nd := range nodes {
		nd.Children = remap(nd.Children)
	}
	for _, sc := range doc.Scenes {
		if sc != nil {
			sc.Nodes = remap(sc.Nodes)
		}
	}
	for _, a := range doc.Animations {
		for _, ch := range a.Channels {
			if n := ch.Target.Node; n != nil && *n >= 0 && *n < len(e.nodeMap) {
				ch.Target.Node = gltf.Index(e.nodeMap[*n])
			}
		}
	}
	doc.Nodes, e.world = nodes, world
}

// setLocal sets a node's local transform, as translation, rotation and scale when
// they reproduce it (animation channels need them), else as a matrix.
func setLocal(nd *gltf.Node, m vecmath.Mat4) {
	t, r, s := vecmath.DecomposeTRS(m)
	r = normalizeQuat(r)
	if matClose(vecmath.TRS(t, r, s), m, 1e-6) {
		nd.Matrix = gltf.DefaultMatrix
		nd.Translation, nd.Rotation, nd.Scale = [3]float64(t), [4]float64(r), [3]float64(s)
		return
	}
	nd.Matrix = [16]float64(m)
	nd.Translation, nd.Rotation, nd.Scale = [3]float64{}, gltf.DefaultRotation, gltf.DefaultScale
}

// meshAncestor returns the nearest common ancestor of the mesh nodes' parents
// (-1: the scene root).
func (e *sceneEditor) meshAncestor() int {
	parent := nodeParents(e.doc)
	var common []int
	first := true
	for _, ref := range e.src.Primitives {
		n := e.remapNode(ref.Node)
		if n < 0 {
			continue
		}
		var chain []int
		for p := parent[n]; p >= 0; p = parent[p] {
			chain = append([]int{p}, chain...)
		}
		if first {
			common, first = chain, false
			continue
		}
		k := 0
		for k < len(common) && k < len(chain) && common[k] == chain[k] {
			k++
		}
		common = common[:k]
	}
	if len(common) == 0 {
		return -1
	}
	return common[len(common)-1]
}

// addJoints adds one node per Character joint under the mesh nodes' common
// ancestor and returns joint → node. A root joint's local transform is its bind
// pose taken from the Character's frame to the world (Scene.BindToWorld when the
// source was skinned) and then into the ancestor's frame.
func (e *sceneEditor) addJoints() []int {
	doc, sk := e.doc, e.c.Skeleton
	anc := e.meshAncestor()
	toWorld := vecmath.Identity4()
	for _, ref := range e.src.Primitives {
		if ref.Skin >= 0 {
			toWorld = e.src.BindToWorld
			break
		}
	}
	rootFrame := toWorld
	if anc >= 0 {
		if inv, ok := e.world[anc].Inverse(); ok {
			rootFrame = inv.Mul(toWorld)
		} else {
			anc = -1
		}
	}
	base := len(doc.Nodes)
	joints := make([]int, sk.NumJoints())
	for j := range joints {
		joints[j] = base + j
	}
	for j, name := range sk.Names {
		local := rootFrame.Mul(sk.BindWorld[j])
		if p := sk.Parents[j]; p >= 0 {
			if inv, ok := sk.BindWorld[p].Inverse(); ok {
				local = inv.Mul(sk.BindWorld[j])
			}
		}
		nd := &gltf.Node{Name: name}
		setLocal(nd, local)
		doc.Nodes = append(doc.Nodes, nd)
		switch p := sk.Parents[j]; {
		case p >= 0:
			doc.Nodes[joints[p]].Children = append(doc.Nodes[joints[p]].Children, joints[j])
		case anc >= 0:
			doc.Nodes[anc].Children = append(doc.Nodes[anc].Children, joints[j])
		default:
			if sc := e.defaultScene(); sc != nil {
				sc.Nodes = append(sc.Nodes, joints[j])
			}
		}
	}
	e.rep.Added.Joints = len(joints)
	e.rootFrame = rootFrame
	return joints
}

// defaultScene returns the scene a viewer shows (nil when the file has none).
func (e *sceneEditor) defaultScene() *gltf.Scene {
	doc := e.doc
	if doc.Scene != nil && *doc.Scene >= 0 && *doc.Scene < len(doc.Scenes) {
		return doc.Scenes[*doc.Scene]
	}
	if len(doc.Scenes) > 0 {
		return doc.Scenes[0]
	}
	return nil
}

// rootAnimations returns anims with root joints' channels taken from the
// Character's frame into the root joints' parent frame (rootFrame), which must be
// a similarity (rotation, uniform scale, translation) for rotations to carry over.
func rootAnimations(anims []character.Animation, sk *character.Skeleton, rootFrame vecmath.Mat4) []character.Animation {
	if matClose(rootFrame, vecmath.Identity4(), 1e-9) {
		return anims
	}
	return reframeRoots(anims, sk, func(int) vecmath.Mat4 { return rootFrame })
}

// reframeRoots returns anims with each root joint j's channels taken from the
// Character's frame into frameOf(j), a similarity.
func reframeRoots(anims []character.Animation, sk *character.Skeleton, frameOf func(j int) vecmath.Mat4) []character.Animation {
	out := make([]character.Animation, len(anims))
	for i, a := range anims {
		out[i] = character.Animation{Name: a.Name}
		for _, ch := range a.Channels {
			if ch.Joint < 0 || ch.Joint >= sk.NumJoints() || sk.Parents[ch.Joint] >= 0 {
				out[i].Channels = append(out[i].Channels, ch)
				continue
			}
			rootFrame := frameOf(ch.Joint)
			_, rq, sc := vecmath.DecomposeTRS(rootFrame)
			v := append([]float64(nil), ch.Values...)
			for k := 0; k+2 < len(v); {
				switch ch.Path {
				case "translation":
					p := rootFrame.Point(vecmath.Vec3{v[k], v[k+1], v[k+2]})
					copy(v[k:k+3], p[:])
					k += 3
				case "rotation":
					if k+3 >= len(v) {
						k = len(v)
						break
					}
					q := quatMul(rq, vecmath.Quat{v[k], v[k+1], v[k+2], v[k+3]})
					copy(v[k:k+4], q[:])
					k += 4
				default:
					for a := range 3 {
						v[k+a] *= math.Abs(sc[a])
					}
					k += 3
				}
			}
			ch.Values = v
			out[i].Channels = append(out[i].Channels, ch)
		}
	}
	return out
}
