package gltfio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/vecmath"
)

// SceneReport says what writing a Character over its source scene changed. The rig
// is one of "kept" (the file's own skeleton and weights, e.g. `rig convert`),
// "reweighted" (the file's skeleton with new weights, `rig skin`), "replaced" (a
// new skeleton instead of the file's, `rig auto` on a rigged file) or "added" (a
// new skeleton on a static file).
type SceneReport struct {
	Rig      string      `json:"rig"`
	Replaced SceneCounts `json:"replaced"`
	Added    SceneCounts `json:"added"`
	// ReplacedAnimations names the animations that drove only replaced joints.
	ReplacedAnimations []string `json:"replaced_animations,omitempty"`
	// Dropped lists what the output lacks that the input had, each with the reason.
	Dropped []SceneDrop `json:"dropped,omitempty"`
	// CopiedMeshes counts meshes drawn by several nodes (instancing) that were
	// copied, one per node, because each node gets its own weights. The copies
	// share every vertex accessor but JOINTS_0/WEIGHTS_0.
	CopiedMeshes int `json:"copied_meshes,omitempty"`
}

// SceneCounts counts rig parts.
type SceneCounts struct {
	Skins      int `json:"skins"`
	Joints     int `json:"joints"`
	Animations int `json:"animations"`
}

// SceneDrop is one thing of the input the output does not have, and why.
type SceneDrop struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

func (r *SceneReport) drop(reason, format string, args ...any) {
	r.Dropped = append(r.Dropped, SceneDrop{What: fmt.Sprintf(format, args...), Reason: reason})
}

// Save writes c over its source scene (c.Source, from Options.KeepScene) as GLB when
// path ends in .glb and as .gltf with embedded data otherwise, atomically, and says
// what changed. A character without a source is saved as a new scene (Save).
//
// The output is the input plus the rig: every node, mesh, primitive, material,
// texture, sampler, image, camera, extension and extra is kept. A file's own
// skeleton with new weights keeps its skins and joint nodes and gets new
// JOINTS_0/WEIGHTS_0 on each primitive. A new skeleton replaces every skin, every
// joint node and the animation channels that drive them (reported as replaced);
// its joint nodes go under the nearest common ancestor of the mesh nodes, their
// bind pose expressed in that ancestor's frame, so a scaled and rotated parent
// (e.g. Mixamo's "Armature") still scales and rotates the rig. Each mesh node gets
// a skin whose inverse bind matrices take its own stored vertices to the joints,
// so no node transform is baked into vertices and no mesh is merged.
func Save(path string, c *character.Character) (*SceneReport, error) {
	binary := strings.EqualFold(filepath.Ext(path), ".glb")
	var buf bytes.Buffer
	rep, err := encodeAny(&buf, c, binary)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	return rep, nil
}

// Encode writes c as GLB over its source scene (a new scene when it has none,
// then the report is nil), with the report of what was replaced or dropped.
func Encode(w io.Writer, c *character.Character) (*SceneReport, error) {
	rep, err := encodeAny(w, c, true)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", c.Name, err)
	}
	return rep, nil
}

// encodeAny writes c over its source scene, or as a new scene without one (then
// the report is nil).
func encodeAny(w io.Writer, c *character.Character, asBinary bool) (rep *SceneReport, err error) {
	if sceneOf(c) == nil {
		return nil, encode(w, c, asBinary)
	}
	defer func() {
		if r := recover(); r != nil {
			rep, err = nil, fmt.Errorf("internal error writing the source scene: %v", r)
		}
	}()
	doc, rep, err := editScene(c)
	if err != nil {
		return nil, err
	}
	if !asBinary {
		doc.Buffers[0].EmbeddedResource()
	}
	enc := gltf.NewEncoder(w)
	enc.AsBinary = asBinary
	if !asBinary {
		enc.SetJSONIndent("", " ")
	}
	return rep, enc.Encode(doc)
}

// sceneEditor edits a copy of a source document. Every buffer is merged into one
// (bin), so that the output is one self-contained GLB or .gltf.
type sceneEditor struct {
	*docBuilder
	src   *Scene
	c     *character.Character
	world []vecmath.Mat4 // rest world transform of each node, by current node index
	rep   *SceneReport
	// nodeMap takes source node indices to current ones (-1: removed); nil while
	// no node was removed.
	nodeMap []int
	// srcSkins is how many of the document's skins come from the source (the first).
	srcSkins int
	// rootFrame takes a new root joint's Character-frame bind pose to its parent's
	// frame (addJoints).
	rootFrame vecmath.Mat4
}

// editScene returns the edited copy of c.Source.Doc with c's rig.
func editScene(c *character.Character) (*gltf.Document, *SceneReport, error) {
	s := sceneOf(c)
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if len(c.Mesh.Positions) != s.NumVertices {
		return nil, nil, fmt.Errorf("the character has %d vertices, its source scene %d: a source scene is written only for the vertices it was loaded with", len(c.Mesh.Positions), s.NumVertices)
	}
	doc, err := cloneDocument(s.Doc)
	if err != nil {
		return nil, nil, err
	}
	e := &sceneEditor{docBuilder: &docBuilder{doc: doc}, src: s, c: c, world: append([]vecmath.Mat4(nil), s.World...),
		rep: &SceneReport{Rig: "kept"}, srcSkins: len(doc.Skins)}
	if err := e.mergeBuffers(); err != nil {
		return nil, nil, err
	}
	sameSkeleton := sameJoints(c.Skeleton, s)
	switch {
	case sameSkeleton && (c.Skin == nil || sameSkin(c.Skin, s.Skin)):
	case sameSkeleton:
		e.rep.Rig = "reweighted"
		e.writeWeights(s.JointNodes)
	default:
		e.rep.Rig = "added"
		if len(s.JointNodes) > 0 || len(doc.Skins) > 0 {
			e.rep.Rig = "replaced"
		}
		e.removeRig()
		if c.Skeleton != nil {
			joints := e.addJoints()
			e.writeWeights(joints)
			before := len(doc.Animations)
			e.writeAnimations(rootAnimations(c.Animations, c.Skeleton, e.rootFrame), joints, nil)
			e.rep.Added.Animations = len(doc.Animations) - before
		}
	}
	if sameSkeleton && c.Skeleton != nil {
		e.updateAnimations()
	}
	for len(e.bin)%4 != 0 {
		e.bin = append(e.bin, 0)
	}
	doc.Buffers = []*gltf.Buffer{{ByteLength: len(e.bin), Data: e.bin}}
	if doc.Asset.Generator == "" {
		doc.Asset.Generator = "rigkit"
	}
	return doc, e.rep, nil
}

// sameJoints reports whether sk is the source's skeleton: the joints it was loaded
// with, by name and bind pose.
func sameJoints(sk *character.Skeleton, s *Scene) bool {
	if sk == nil || s.Skeleton == nil {
		return sk == nil && s.Skeleton == nil
	}
	if sk.NumJoints() != len(s.JointNodes) {
		return false
	}
	for j := range s.JointNodes {
		if sk.Names[j] != s.Skeleton.Names[j] || !matClose(sk.BindWorld[j], s.Skeleton.BindWorld[j], 1e-6) {
			return false
		}
	}
	return true
}

// sameSkin reports whether two skins give every vertex the same weights.
func sameSkin(a, b *character.Skin) bool {
	if a == nil || b == nil || len(a.Weights) != len(b.Weights) {
		return false
	}
	for v := range a.Weights {
		if len(a.Weights[v]) != len(b.Weights[v]) {
			return false
		}
		for k, in := range a.Weights[v] {
			if in.Joint != b.Weights[v][k].Joint || math.Abs(in.Weight-b.Weights[v][k].Weight) > 1e-9 {
				return false
			}
		}
	}
	return true
}

// cloneDocument deep-copies a document's JSON; buffer bytes are shared (read-only).
func cloneDocument(doc *gltf.Document) (*gltf.Document, error) {
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("copy the source document: %w", err)
	}
	out, err := decodeDocument(data)
	if err != nil {
		return nil, fmt.Errorf("copy the source document: %w", err)
	}
	for i, b := range doc.Buffers {
		out.Buffers[i].Data = b.Data
	}
	return out, nil
}

// mergeBuffers concatenates every buffer into e.bin (rebasing the buffer views)
// and moves images stored outside the file (external files) into it.
func (e *sceneEditor) mergeBuffers() error {
	base := make([]int, len(e.doc.Buffers))
	for i, b := range e.doc.Buffers {
		for len(e.bin)%8 != 0 {
			e.bin = append(e.bin, 0)
		}
		base[i] = len(e.bin)
		e.bin = append(e.bin, b.Data...)
	}
	for i, v := range e.doc.BufferViews {
		if v == nil || v.Buffer < 0 || v.Buffer >= len(base) {
			return fmt.Errorf("buffer view %d: no such buffer", i)
		}
		v.ByteOffset += base[v.Buffer]
		v.Buffer = 0
	}
	for i, im := range e.doc.Images {
		if im == nil || im.BufferView != nil || im.URI == "" || strings.HasPrefix(im.URI, "data:") {
			continue
		}
		img, err := e.src.Image(i)
		if err != nil {
			e.rep.drop("its file could not be read", "image %d (%q): %v", i, im.Name, err)
			continue
		}
		im.BufferView = gltf.Index(e.addView(img.Data, gltf.TargetNone))
		im.URI, im.MimeType = "", img.MIMEType
	}
	return nil
}

// skinUse is a skin the new weights are written against: Character joint → index
// in the skin's joint list (-1: not listed).
type skinUse struct {
	skin  int
	local []int
}

// reuseSkin returns the node's source skin s as a skinUse when its inverse bind
// matrices agree with the Character's bind pose for toChar (a file's own skeleton
// with new weights): the joints the weights of vertices [first, first+count) need
// and s lacks are appended to it. It returns nil when s does not fit.
func (e *sceneEditor) reuseSkin(s int, joints []int, toChar vecmath.Mat4, first, count int, cache map[int]*skinUse) *skinUse {
	if s < 0 || s >= e.srcSkins {
		return nil
	}
	use, seen := cache[s]
	if seen && use == nil {
		return nil
	}
	sk := e.doc.Skins[s]
	if !seen {
		use = e.matchSkin(sk, joints, toChar)
		use.skin = s
		cache[s] = use
		if use.local == nil {
			cache[s] = nil
			return nil
		}
	}
	var add []int
	for _, infl := range e.c.Skin.Weights[first : first+count] {
		for _, in := range infl {
			if use.local[in.Joint] < 0 {
				use.local[in.Joint] = len(sk.Joints) + len(add)
				add = append(add, in.Joint)
			}
		}
	}
	if len(add) > 0 {
		ibm := e.skinIBM(sk)
		for _, j := range add {
			sk.Joints = append(sk.Joints, joints[j])
			inv, _ := e.c.Skeleton.BindWorld[j].Inverse()
			ibm = append(ibm, inv.Mul(toChar))
		}
		sk.InverseBindMatrices = gltf.Index(e.matrixAccessor(ibm))
	}
	return use
}

// matchSkin maps Character joints onto sk's joint list; local is nil when an
// inverse bind matrix disagrees with the Character's bind pose.
func (e *sceneEditor) matchSkin(sk *gltf.Skin, joints []int, toChar vecmath.Mat4) *skinUse {
	use := &skinUse{local: make([]int, len(joints))}
	at := map[int]int{}
	for k, node := range sk.Joints {
		at[node] = k
	}
	ibm := e.skinIBM(sk)
	for j, node := range joints {
		k, ok := at[node]
		if !ok {
			use.local[j] = -1
			continue
		}
		inv, _ := e.c.Skeleton.BindWorld[j].Inverse()
		if !matClose(ibm[k], inv.Mul(toChar), 1e-5) {
			return &skinUse{}
		}
		use.local[j] = k
	}
	return use
}

// skinIBM returns a source skin's inverse bind matrices (identities when absent
// or unreadable, as the loader reads them).
func (e *sceneEditor) skinIBM(sk *gltf.Skin) []vecmath.Mat4 {
	out := make([]vecmath.Mat4, len(sk.Joints))
	var vals []float64
	if sk.InverseBindMatrices != nil {
		vals, _ = e.src.acc.readTyped(*sk.InverseBindMatrices, gltf.AccessorMat4, "inverseBindMatrices")
	}
	for k := range out {
		out[k] = vecmath.Identity4()
		if len(vals) >= 16*(k+1) {
			copy(out[k][:], vals[16*k:16*k+16])
		}
	}
	return out
}

// matrixAccessor writes MAT4 data.
func (e *sceneEditor) matrixAccessor(ms []vecmath.Mat4) int {
	var data []byte
	for _, m := range ms {
		m[3], m[7], m[11], m[15] = 0, 0, 0, 1
		for _, v := range m {
			data = putF32(data, float32(v))
		}
	}
	return e.addAccessor(data, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorMat4, len(ms), nil, nil)
}

// newSkin adds a skin over every Character joint (joint j → node joints[j]) whose
// inverse bind matrices take vertices stored with toChar to the joints.
func (e *sceneEditor) newSkin(joints []int, toChar vecmath.Mat4) *skinUse {
	ibm := make([]vecmath.Mat4, len(joints))
	local := make([]int, len(joints))
	for j := range joints {
		inv, _ := e.c.Skeleton.BindWorld[j].Inverse()
		ibm[j], local[j] = inv.Mul(toChar), j
	}
	e.doc.Skins = append(e.doc.Skins, &gltf.Skin{
		Joints:              append([]int(nil), joints...),
		InverseBindMatrices: gltf.Index(e.matrixAccessor(ibm)),
		Skeleton:            e.skinRoot(joints),
	})
	e.rep.Added.Skins++
	return &skinUse{skin: len(e.doc.Skins) - 1, local: local}
}

// writeWeights gives every mesh node with Character vertices a skin over joints
// (Character joint j → node joints[j]) and JOINTS_0/WEIGHTS_0 on each primitive.
// A node keeps its own skin when that skin's bind pose is the Character's; other
// nodes whose stored vertices share a frame share a new skin. Primitives that
// share their vertices share the new attributes.
func (e *sceneEditor) writeWeights(joints []int) {
	if e.c.Skin == nil {
		return
	}
	fresh := map[vecmath.Mat4]*skinUse{}
	reused := map[int]*skinUse{}
	meshOwner := map[int]int{} // mesh → the node whose weights it carries
	type span struct{ node, first int }
	written := map[span][2]int{}
	for _, ref := range e.src.Primitives {
		node := e.remapNode(ref.Node)
		if node < 0 {
			continue
		}
		nd := e.doc.Nodes[node]
		mesh := e.ownMesh(node, meshOwner)
		var use *skinUse
		if nd.Skin != nil {
			use = e.reuseSkin(*nd.Skin, joints, ref.ToCharacter, ref.First, ref.Count, reused)
		}
		if use == nil {
			use = fresh[ref.ToCharacter]
			if use == nil {
				use = e.newSkin(joints, ref.ToCharacter)
				fresh[ref.ToCharacter] = use
			}
		}
		nd.Skin = gltf.Index(use.skin)
		acc, ok := written[span{node, ref.First}]
		if !ok {
			acc[0], acc[1] = e.weightAccessors(ref.First, ref.Count, use.local)
			written[span{node, ref.First}] = acc
		}
		p := e.doc.Meshes[mesh].Primitives[ref.Primitive]
		p.Attributes[gltf.JOINTS_0], p.Attributes[gltf.WEIGHTS_0] = acc[0], acc[1]
		delete(p.Attributes, "JOINTS_1")
		delete(p.Attributes, "WEIGHTS_1")
	}
	e.dropUnusedSkins()
}

// skinRoot picks a new skin's skeleton root: the common root of the joints when
// there is one joint without a parent, else none (glTF then resolves the joints
// from the scene root).
func (e *sceneEditor) skinRoot(joints []int) *int {
	var roots []int
	for j, p := range e.c.Skeleton.Parents {
		if p < 0 {
			roots = append(roots, joints[j])
		}
	}
	if len(roots) == 1 {
		return gltf.Index(roots[0])
	}
	for _, s := range e.doc.Skins[:e.srcSkins] {
		if s != nil && s.Skeleton != nil {
			return gltf.Index(*s.Skeleton)
		}
	}
	return nil
}

// ownMesh returns the mesh node draws, copied when another node already carries
// weights on it (instancing: each node gets its own weights).
func (e *sceneEditor) ownMesh(node int, owner map[int]int) int {
	cur := *e.doc.Nodes[node].Mesh
	if o, ok := owner[cur]; !ok || o == node {
		owner[cur] = node
		return cur
	}
	src := e.doc.Meshes[cur]
	cp := *src
	cp.Primitives = make([]*gltf.Primitive, len(src.Primitives))
	for i, p := range src.Primitives {
		q := *p
		q.Attributes = gltf.PrimitiveAttributes{}
		for k, v := range p.Attributes {
			q.Attributes[k] = v
		}
		cp.Primitives[i] = &q
	}
	e.doc.Meshes = append(e.doc.Meshes, &cp)
	n := len(e.doc.Meshes) - 1
	e.doc.Nodes[node].Mesh = gltf.Index(n)
	owner[n] = node
	e.rep.CopiedMeshes++
	return n
}

// weightAccessors writes JOINTS_0/WEIGHTS_0 for Character vertices [first,
// first+count): the MaxInfluencesWritten heaviest influences, renormalized, joints
// numbered by local (Character joint → index in the skin).
func (e *sceneEditor) weightAccessors(first, count int, local []int) (int, int) {
	wide := false
	for _, k := range local {
		wide = wide || k >= 256
	}
	var jd, wd []byte
	for _, infl := range e.c.Skin.Weights[first : first+count] {
		js, ws := topInfluences(infl)
		for i := range 4 {
			if ws[i] > 0 {
				js[i] = local[js[i]]
			} else {
				js[i] = 0
			}
		}
		jd, wd = appendInfluences(jd, wd, js, ws, wide)
	}
	ct := gltf.ComponentUbyte
	if wide {
		ct = gltf.ComponentUshort
	}
	ja := e.addAccessor(jd, gltf.TargetArrayBuffer, ct, gltf.AccessorVec4, count, nil, nil)
	wa := e.addAccessor(wd, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec4, count, nil, nil)
	return ja, wa
}

// topInfluences returns a vertex's MaxInfluencesWritten heaviest joints and their
// weights, renormalized so that the float32 sum is 1.
func topInfluences(infl []character.Influence) ([4]int, [4]float32) {
	tmp := &character.Skin{Weights: [][]character.Influence{append([]character.Influence(nil), infl...)}}
	tmp.Prune(character.MaxInfluencesWritten)
	top := tmp.Weights[0]
	var js [4]int
	var ws [4]float32
	sum := float32(0)
	for i, in := range top {
		js[i], ws[i] = in.Joint, float32(in.Weight)
		sum += ws[i]
	}
	for i := range top {
		ws[i] /= sum
	}
	// Put the float32 rounding residue on the heaviest weight.
	s := float32(0)
	for i := len(top) - 1; i >= 1; i-- {
		s += ws[i]
	}
	if len(top) > 0 {
		ws[0] = 1 - s
	}
	return js, ws
}

// remapNode returns a source node's current index (-1 when removed).
func (e *sceneEditor) remapNode(n int) int {
	if e.nodeMap == nil {
		return n
	}
	return e.nodeMap[n]
}

// dropUnusedSkins removes the source's skins that no node uses any more (new
// weights replaced them) and counts them as replaced.
func (e *sceneEditor) dropUnusedSkins() {
	used := make([]bool, len(e.doc.Skins))
	for _, nd := range e.doc.Nodes {
		if nd.Skin != nil && *nd.Skin >= 0 && *nd.Skin < len(used) {
			used[*nd.Skin] = true
		}
	}
	newIdx := make([]int, len(e.doc.Skins))
	var kept []*gltf.Skin
	for i, s := range e.doc.Skins {
		if !used[i] && i < e.srcSkins {
			newIdx[i] = -1
			e.rep.Replaced.Skins++
			continue
		}
		newIdx[i] = len(kept)
		kept = append(kept, s)
	}
	e.doc.Skins = kept
	for _, nd := range e.doc.Nodes {
		if nd.Skin != nil {
			nd.Skin = gltf.Index(newIdx[*nd.Skin])
		}
	}
}
