package gltfio

import (
	"io/fs"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Scene is the glTF document a Character was loaded from, with the map from the
// Character's vertices and joints back to the document's meshes, primitives and
// nodes. The rigging math sees only the Character (one mesh in one frame); the
// writer (Save) starts from the document and edits it, so that everything the
// file holds besides the rig (node hierarchy and transforms, separate meshes and
// primitives, materials, textures, samplers, extensions, vertex colours, extra UV
// sets, morph targets, extras, names) reaches the output unchanged.
//
// A Scene is read-only: writers copy the document before editing it.
type Scene struct {
	// Doc is the document as read, with every buffer's Data filled.
	Doc *gltf.Document
	// Format is "glb" or "gltf".
	Format string
	// Primitives maps Character vertices to the primitives they came from, in the
	// order the loader read them.
	Primitives []PrimitiveRef
	// JointNodes is the node of each Character joint (nil when unrigged).
	JointNodes []int
	// Skeleton is the Character's skeleton when loaded (nil when unrigged): a
	// character whose skeleton still equals it keeps the file's joints.
	Skeleton *character.Skeleton
	// Skin is the Character's skin when loaded (nil when unrigged or unskinned).
	Skin *character.Skin
	// World is each node's world transform in the file's rest pose.
	World []vecmath.Mat4
	// BindToWorld takes the Character's frame to the scene's world frame: the
	// identity for unskinned geometry (the loader applies node transforms), and for
	// skinned geometry the transform that joint world × inverse bind matrix gives
	// for most joints (e.g. the scale-0.01, −90°-about-X "Armature" node above a
	// Mixamo skeleton).
	BindToWorld vecmath.Mat4
	// NumVertices is the Character's vertex count when loaded.
	NumVertices int
	// Animations are the Character's animations when loaded: the writer keeps a
	// document animation the Character still has unchanged, and removes one it
	// dropped or replaced.
	Animations []character.Animation

	sceneFiles
}

// sceneFiles is how a Scene reads its buffers and images: the accessor reader over
// the document, and the images of files beside it, read while the folder was open.
type sceneFiles struct {
	acc *accessorReader
	dir fs.FS
	// external holds the images read from files beside the document at load time
	// (readExternalImages), externalErr the ones that could not be read.
	external    map[int]*character.Image
	externalErr map[int]error
}

// SourceFormat names the document's format, "glb" or "gltf"; it makes a *Scene a
// character.Source.
func (s *Scene) SourceFormat() string { return s.Format }

// sceneOf returns the glTF scene c was loaded from, or nil.
func sceneOf(c *character.Character) *Scene {
	if c == nil {
		return nil
	}
	s, _ := c.Source.(*Scene)
	return s
}

// PrimitiveRef says where a run of Character vertices comes from: vertices
// [First, First+Count) are vertices 0..Count−1 of primitive Primitive of mesh Mesh,
// drawn by node Node. Primitives of one node that share their vertex accessors map
// to the same run.
type PrimitiveRef struct {
	Node, Mesh, Primitive int
	First, Count          int
	// Skin is the skin the node used for this primitive, or -1 when unskinned.
	Skin int
	// ToCharacter takes the primitive's stored positions to the Character's frame:
	// the identity for skinned geometry (already in bind space); for unskinned
	// geometry the node's world transform, followed by the inverse of
	// Scene.BindToWorld when the file also has skinned geometry.
	ToCharacter vecmath.Mat4
}

// mapPrimitive records that Character vertices [first, first+count) are primitive
// prim of the mesh node node draws, placed by toChar when unskinned.
func (l *loader) mapPrimitive(node, prim, first, count int, skinned bool, toChar vecmath.Mat4) {
	if l.scene == nil {
		return
	}
	nd := l.doc.Nodes[node]
	ref := PrimitiveRef{Node: node, Mesh: *nd.Mesh, Primitive: prim, First: first, Count: count, Skin: -1, ToCharacter: toChar}
	if skinned {
		ref.Skin, ref.ToCharacter = *nd.Skin, vecmath.Identity4()
	}
	l.scene.Primitives = append(l.scene.Primitives, ref)
}

// finishScene fills what the Scene needs from the finished Character.
func (l *loader) finishScene(c *character.Character) {
	s := l.scene
	s.World = l.world
	s.NumVertices = len(c.Mesh.Positions)
	s.BindToWorld = vecmath.Identity4()
	if n := len(l.jointNode); n > 0 {
		order := l.jointOrder()
		s.JointNodes = make([]int, n)
		for old, nw := range order {
			s.JointNodes[nw] = l.jointNode[old]
		}
		skinned := false
		for _, p := range s.Primitives {
			skinned = skinned || p.Skin >= 0
		}
		if skinned {
			s.BindToWorld = l.bindToWorld()
		}
	}
	s.Skeleton, s.Skin = c.Skeleton.Clone(), c.Skin.Clone()
	for _, a := range c.Animations {
		s.Animations = append(s.Animations, cloneAnimation(a))
	}
	c.Source = s
}

// BindSpaceToWorld returns the transform from the loaded character's coordinates to
// the file's world (character.Placed): BindToWorld for a skinned scene, the
// identity when the loader placed the vertices in the world itself.
func (s *Scene) BindSpaceToWorld() vecmath.Mat4 { return s.BindToWorld }

// bindToWorld returns the joint world × inverse bind matrix most joints agree on:
// the transform from skinned vertices' bind space to the world. A posed scene (some
// joints away from their bind pose) still has its unposed joints agree.
func (l *loader) bindToWorld() vecmath.Mat4 {
	cand := make([]vecmath.Mat4, 0, len(l.jointNode))
	for id, node := range l.jointNode {
		inv, ok := l.bindWorld[id].Inverse()
		if !ok {
			continue
		}
		cand = append(cand, l.world[node].Mul(inv))
	}
	best, bestVotes := vecmath.Identity4(), 0
	for i := 0; i < len(cand) && i < 32; i++ {
		votes := 0
		for _, m := range cand {
			if matClose(cand[i], m, 1e-4) {
				votes++
			}
		}
		if votes > bestVotes {
			best, bestVotes = cand[i], votes
		}
	}
	return best
}

// Image returns the encoded bytes of the document's image i, wherever the file
// keeps them (a buffer view, a data: URI or a file beside it).
func (s *Scene) Image(i int) (*character.Image, error) {
	if img, ok := s.external[i]; ok {
		return img, nil
	}
	if err, ok := s.externalErr[i]; ok {
		return nil, err
	}
	return s.acc.imageBytes(i, s.dir, 256<<20)
}

// readExternalImages reads the images kept in files beside the document while its
// folder is open (the loader closes it when the load returns), so that saving never
// opens a file again.
func (s *Scene) readExternalImages() {
	s.external, s.externalErr = map[int]*character.Image{}, map[int]error{}
	for i, im := range s.Doc.Images {
		if im == nil || im.BufferView != nil || im.URI == "" || strings.HasPrefix(im.URI, "data:") {
			continue
		}
		img, err := s.acc.imageBytes(i, s.dir, 256<<20)
		if err != nil {
			s.externalErr[i] = err
			continue
		}
		s.external[i] = img
	}
	s.dir = nil
}
